/* Tambua React Native SDK: https://github.com/tambua/tambua (sdk/react-native). Built by sdk/build.mjs. */

// react-native/src/ServiceVerification.tsx
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ActivityIndicator, Image, ImageBackground, StyleSheet, Text, TouchableOpacity, View } from "react-native";
import { Camera, runAtTargetFps, useCameraDevice, useCameraPermission, useFrameProcessor } from "react-native-vision-camera";
import { Worklets } from "react-native-worklets-core";
import ImageEditor from "@react-native-community/image-editor";

// core/src/errors.ts
var SdkError = class extends Error {
  constructor(code, message, opts = {}) {
    super(message);
    this.name = "SdkError";
    this.code = code;
    this.serverCode = opts.serverCode;
    this.status = opts.status;
  }
};

// core/src/base64.ts
var alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
var lookup = new Int16Array(128).fill(-1);
for (let i = 0; i < alphabet.length; i++) lookup[alphabet.charCodeAt(i)] = i;
lookup["-".charCodeAt(0)] = 62;
lookup["_".charCodeAt(0)] = 63;
function encodeBase64(bytes) {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = bytes[i] << 16 | bytes[i + 1] << 8 | bytes[i + 2];
    out += alphabet[n >> 18] + alphabet[n >> 12 & 63] + alphabet[n >> 6 & 63] + alphabet[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += alphabet[n >> 18] + alphabet[n >> 12 & 63] + "==";
  } else if (rest === 2) {
    const n = bytes[i] << 16 | bytes[i + 1] << 8;
    out += alphabet[n >> 18] + alphabet[n >> 12 & 63] + alphabet[n >> 6 & 63] + "=";
  }
  return out;
}
function decodeBase64(s) {
  const clean = s.replace(/=+$/, "");
  if (clean.length % 4 === 1) throw new Error("base64: bad length");
  const out = new Uint8Array(Math.floor(clean.length * 3 / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const c = clean.charCodeAt(i);
    const v = c < 128 ? lookup[c] : -1;
    if (v < 0) throw new Error("base64: bad character");
    acc = acc << 6 | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = acc >> bits & 255;
    }
  }
  return out;
}
function utf8Encode(s) {
  const out = [];
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c < 128) out.push(c);
    else if (c < 2048) out.push(192 | c >> 6, 128 | c & 63);
    else if (c < 65536) out.push(224 | c >> 12, 128 | c >> 6 & 63, 128 | c & 63);
    else out.push(240 | c >> 18, 128 | c >> 12 & 63, 128 | c >> 6 & 63, 128 | c & 63);
  }
  return Uint8Array.from(out);
}
function utf8Decode(b) {
  let out = "";
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    let cp = 65533;
    let n = 1;
    if (c < 128) cp = c;
    else if (c >= 194 && c < 224 && i + 1 < b.length) cp = (c & 31) << 6 | b[i + 1] & 63, n = 2;
    else if (c >= 224 && c < 240 && i + 2 < b.length) cp = (c & 15) << 12 | (b[i + 1] & 63) << 6 | b[i + 2] & 63, n = 3;
    else if (c >= 240 && c < 245 && i + 3 < b.length)
      cp = (c & 7) << 18 | (b[i + 1] & 63) << 12 | (b[i + 2] & 63) << 6 | b[i + 3] & 63, n = 4;
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}

// core/src/jwt.ts
function base64UrlDecode(s) {
  return utf8Decode(decodeBase64(s));
}
function decodeSdkToken(token, nowSeconds = Date.now() / 1e3) {
  var _a2;
  if (typeof token !== "string" || token.length > 16384) {
    throw new SdkError("INVALID_JWT", "the token is not a string of sensible length");
  }
  const parts = token.trim().split(".");
  if (parts.length !== 3 || parts.some((p) => p === "" || !/^[A-Za-z0-9_-]+$/.test(p))) {
    throw new SdkError("INVALID_JWT", "the token is not a JWT (three base64url parts)");
  }
  let c;
  try {
    c = JSON.parse(base64UrlDecode(parts[1]));
  } catch {
    throw new SdkError("INVALID_JWT", "the token claims are not JSON");
  }
  if (c === null || typeof c !== "object" || Array.isArray(c)) {
    throw new SdkError("INVALID_JWT", "the token claims are not an object");
  }
  const strings = ["workflowId", "clientId", "apiUrl", "refresh_token"];
  for (const k of strings) {
    if (typeof c[k] !== "string" || c[k] === "") throw new SdkError("INVALID_JWT", `the token has no ${k}`);
  }
  if (c.config !== void 0 && typeof c.config !== "string") throw new SdkError("INVALID_JWT", "config must be a string");
  const org = typeof c.organisationId === "string" ? Number(c.organisationId) : c.organisationId;
  if (typeof org !== "number" || !Number.isInteger(org) || org < 1) {
    throw new SdkError("INVALID_JWT", "the token has no integer organisationId");
  }
  for (const k of ["iat", "exp"]) {
    if (typeof c[k] !== "number" || !Number.isFinite(c[k])) throw new SdkError("INVALID_JWT", `the token has no numeric ${k}`);
  }
  if (c.exp <= nowSeconds) throw new SdkError("INVALID_JWT", "the token has expired");
  let api;
  try {
    api = new URL(c.apiUrl);
  } catch {
    throw new SdkError("INVALID_JWT", "apiUrl is not a URL");
  }
  if (api.protocol !== "https:" && api.protocol !== "http:") throw new SdkError("INVALID_JWT", "apiUrl must be http(s)");
  return {
    workflowId: c.workflowId,
    clientId: c.clientId,
    organisationId: org,
    apiUrl: c.apiUrl,
    refresh_token: c.refresh_token,
    config: (_a2 = c.config) != null ? _a2 : "",
    iat: c.iat,
    exp: c.exp
  };
}

// core/src/config.ts
var defaultTheme = {
  primaryColor: "#0b5394",
  secondaryColor: "#e8eef6",
  accentColor: "#f1a208",
  backgroundColor: "#ffffff",
  textColor: "#1b1f24",
  buttonTextColor: "#ffffff"
};
var defaultCamera = {
  idFrameColor: "#ffffff",
  selfieOutlineColor: "#ffffff",
  captureButtonColor: "#ffffff"
};
function fromWorkflowConfig(w) {
  var _a2;
  if (!w || typeof w !== "object") return {};
  const theme = {};
  const landing = {};
  const c = (_a2 = w.colors) != null ? _a2 : {};
  if (c.primary) theme.primaryColor = c.primary;
  if (c.secondary) theme.secondaryColor = c.secondary;
  if (c.text) theme.textColor = c.text;
  if (c.background) theme.backgroundColor = c.background;
  if (w.logo) landing.logoUrl = w.logo;
  if (w.title) landing.heroMessage = w.title;
  if (w.tagline) landing.tagline = w.tagline;
  if (w.hero_image) landing.heroImage = w.hero_image;
  if (w.background_image) landing.backgroundImage = w.background_image;
  return { theme, landing };
}
function pick(base, ...layers) {
  const out = { ...base };
  for (const layer of layers) {
    if (!layer || typeof layer !== "object") continue;
    for (const [k, v] of Object.entries(layer)) {
      if (k in out && typeof v === "string" && v !== "") out[k] = v;
    }
  }
  return out;
}
function resolveCustomization(defaults, props, workflow) {
  const wf = fromWorkflowConfig(workflow);
  return {
    theme: pick(defaults.theme, props == null ? void 0 : props.theme, wf.theme),
    landing: pick(defaults.landing, props == null ? void 0 : props.landing, wf.landing),
    messages: pick(defaults.messages, props == null ? void 0 : props.messages, wf.messages),
    camera: pick(defaults.camera, props == null ? void 0 : props.camera, wf.camera)
  };
}

// core/src/i18n.ts
var languages = ["en", "sw", "fr"];
var en = {
  heroMessage: "Verify your identity",
  tagline: "You need your ID card and about a minute.",
  getStartedButtonText: "Get started",
  idFrontTitle: "Front of your ID",
  idFrontSubtitle: "Place the front of your ID inside the frame",
  idBackTitle: "Back of your ID",
  idBackSubtitle: "Turn the card over and place the back inside the frame",
  selfieTitle: "Take a selfie",
  selfieSubtitle: "Put your face inside the oval and look at the camera",
  reviewTitle: "Check your photo",
  startVerificationButton: "Start verification",
  retakeButton: "Retake",
  continueButton: "Continue",
  captureButton: "Take photo",
  cancelButton: "Cancel",
  guideNoCard: "Place the card inside the frame",
  guideBlurry: "Hold still: the picture is blurry",
  guideGlare: "Too much glare: tilt the card away from the light",
  guideDark: "Too dark: move to more light",
  guideHoldSteady: "Hold steady…",
  guideReady: "Looks good",
  guideSelfie: "Good light, face straight on, no glasses or hat",
  submitting: "Checking your documents…",
  done: "Thank you. Your photos have been sent.",
  cameraDeniedTitle: "Camera access is off",
  cameraDeniedText: "Allow the camera in your browser settings, or choose a photo instead.",
  noCameraTitle: "No camera found",
  noCameraText: "Choose a photo of your document from this device.",
  appCameraDeniedText: "Allow the camera for this app in your phone’s settings, then try again.",
  appNoCameraText: "This device has no camera the app can use. Continue on a phone with a camera.",
  uploadButton: "Choose a photo",
  retryCameraButton: "Try the camera again",
  errorTitle: "Something went wrong on our side",
  errorText: "Your verification did not run. This says nothing about you. Please try again.",
  tryAgainButton: "Try again",
  handoffButton: "Continue on your phone",
  handoffTitle: "Continue on your phone",
  handoffText: "Scan this code with your phone’s camera. The code works once, for 10 minutes.",
  handoffWaiting: "Waiting for your phone…",
  handoffOpened: "Opened on your phone. Take the photos there.",
  handoffRunning: "Checking your documents…",
  handoffExpired: "This code has expired.",
  handoffNewCode: "Show a new code",
  handoffDone: "Done. You can go back to your computer.",
  handoffBack: "Use this computer instead"
};
var sw = {
  heroMessage: "Thibitisha utambulisho wako",
  tagline: "Unahitaji kitambulisho chako na takriban dakika moja.",
  getStartedButtonText: "Anza",
  idFrontTitle: "Upande wa mbele wa kitambulisho",
  idFrontSubtitle: "Weka upande wa mbele wa kitambulisho chako ndani ya fremu",
  idBackTitle: "Upande wa nyuma wa kitambulisho",
  idBackSubtitle: "Geuza kadi na uweke upande wa nyuma ndani ya fremu",
  selfieTitle: "Piga picha ya uso wako",
  selfieSubtitle: "Weka uso wako ndani ya duara na utazame kamera",
  reviewTitle: "Kagua picha yako",
  startVerificationButton: "Anza uthibitishaji",
  retakeButton: "Piga tena",
  continueButton: "Endelea",
  captureButton: "Piga picha",
  cancelButton: "Ghairi",
  guideNoCard: "Weka kadi ndani ya fremu",
  guideBlurry: "Tulia: picha haiko wazi",
  guideGlare: "Mng’ao mwingi: inamisha kadi mbali na mwanga",
  guideDark: "Giza sana: sogea kwenye mwanga zaidi",
  guideHoldSteady: "Shikilia bila kutikisika…",
  guideReady: "Inaonekana vizuri",
  guideSelfie: "Mwanga mzuri, uso moja kwa moja, bila miwani wala kofia",
  submitting: "Tunakagua nyaraka zako…",
  done: "Asante. Picha zako zimetumwa.",
  cameraDeniedTitle: "Ruhusa ya kamera imezimwa",
  cameraDeniedText: "Ruhusu kamera katika mipangilio ya kivinjari, au chagua picha badala yake.",
  noCameraTitle: "Hakuna kamera",
  noCameraText: "Chagua picha ya hati yako kutoka kwenye kifaa hiki.",
  appCameraDeniedText: "Ruhusu kamera kwa programu hii katika mipangilio ya simu yako, kisha ujaribu tena.",
  appNoCameraText: "Kifaa hiki hakina kamera ambayo programu inaweza kutumia. Endelea kwenye simu yenye kamera.",
  uploadButton: "Chagua picha",
  retryCameraButton: "Jaribu kamera tena",
  errorTitle: "Hitilafu imetokea upande wetu",
  errorText: "Uthibitishaji wako haukufanyika. Hili si jibu kukuhusu. Tafadhali jaribu tena.",
  tryAgainButton: "Jaribu tena",
  handoffButton: "Endelea kwenye simu yako",
  handoffTitle: "Endelea kwenye simu yako",
  handoffText: "Changanua msimbo huu kwa kamera ya simu yako. Msimbo unatumika mara moja, kwa dakika 10.",
  handoffWaiting: "Tunasubiri simu yako…",
  handoffOpened: "Imefunguliwa kwenye simu yako. Piga picha huko.",
  handoffRunning: "Tunakagua nyaraka zako…",
  handoffExpired: "Msimbo huu umeisha muda.",
  handoffNewCode: "Onyesha msimbo mpya",
  handoffDone: "Imekamilika. Unaweza kurudi kwenye kompyuta yako.",
  handoffBack: "Tumia kompyuta hii badala yake"
};
var fr = {
  heroMessage: "Vérifiez votre identité",
  tagline: "Il vous faut votre pièce d’identité et environ une minute.",
  getStartedButtonText: "Commencer",
  idFrontTitle: "Recto de votre pièce",
  idFrontSubtitle: "Placez le recto de votre pièce d’identité dans le cadre",
  idBackTitle: "Verso de votre pièce",
  idBackSubtitle: "Retournez la carte et placez le verso dans le cadre",
  selfieTitle: "Prenez un selfie",
  selfieSubtitle: "Placez votre visage dans l’ovale et regardez la caméra",
  reviewTitle: "Vérifiez votre photo",
  startVerificationButton: "Lancer la vérification",
  retakeButton: "Reprendre",
  continueButton: "Continuer",
  captureButton: "Prendre la photo",
  cancelButton: "Annuler",
  guideNoCard: "Placez la carte dans le cadre",
  guideBlurry: "Ne bougez pas : l’image est floue",
  guideGlare: "Trop de reflets : inclinez la carte",
  guideDark: "Trop sombre : rapprochez-vous de la lumière",
  guideHoldSteady: "Ne bougez plus…",
  guideReady: "C’est bon",
  guideSelfie: "Bonne lumière, visage de face, sans lunettes ni chapeau",
  submitting: "Vérification de vos documents…",
  done: "Merci. Vos photos ont été envoyées.",
  cameraDeniedTitle: "L’accès à la caméra est désactivé",
  cameraDeniedText: "Autorisez la caméra dans les réglages du navigateur, ou choisissez une photo.",
  noCameraTitle: "Aucune caméra trouvée",
  noCameraText: "Choisissez une photo de votre document sur cet appareil.",
  appCameraDeniedText: "Autorisez la caméra pour cette application dans les réglages du téléphone, puis réessayez.",
  appNoCameraText: "Cet appareil n’a pas de caméra utilisable par l’application. Continuez sur un téléphone équipé d’une caméra.",
  uploadButton: "Choisir une photo",
  retryCameraButton: "Réessayer la caméra",
  errorTitle: "Un problème est survenu de notre côté",
  errorText: "Votre vérification n’a pas eu lieu. Ce n’est pas un résultat vous concernant. Veuillez réessayer.",
  tryAgainButton: "Réessayer",
  handoffButton: "Continuer sur votre téléphone",
  handoffTitle: "Continuer sur votre téléphone",
  handoffText: "Scannez ce code avec l’appareil photo de votre téléphone. Il sert une fois, pendant 10 minutes.",
  handoffWaiting: "En attente de votre téléphone…",
  handoffOpened: "Ouvert sur votre téléphone. Prenez les photos là-bas.",
  handoffRunning: "Vérification de vos documents…",
  handoffExpired: "Ce code a expiré.",
  handoffNewCode: "Afficher un nouveau code",
  handoffDone: "Terminé. Vous pouvez revenir à votre ordinateur.",
  handoffBack: "Utiliser plutôt cet ordinateur"
};
var texts = { en, sw, fr };
function pickLanguage(preferred) {
  for (const tag of preferred != null ? preferred : []) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (languages.includes(primary)) return primary;
  }
  return "en";
}
function messagesFor(lang) {
  const { heroMessage: _h, tagline: _t, getStartedButtonText: _g, ...m } = texts[lang];
  return m;
}

// core/src/steps.ts
var SELFIE_CHECKS = ["face_matching", "liveness_detection", "age_verification"];
function needsSelfie(steps) {
  return steps.some((s) => SELFIE_CHECKS.includes(s.name));
}
function captureSteps(steps) {
  return needsSelfie(steps) ? ["id_front", "id_back", "selfie"] : ["id_front", "id_back"];
}
function parseWorkflow(body) {
  var _a2;
  const w = body == null ? void 0 : body.workflow;
  if (!w || typeof w.id !== "string" || !Array.isArray(w.steps)) throw new Error("the answer has no workflow with steps");
  const steps = [];
  for (const s of w.steps) {
    const st = s;
    if (typeof (st == null ? void 0 : st.name) !== "string") throw new Error("a workflow step has no name");
    steps.push({ name: st.name, order: Number(st.order) || 0, required: st.required === true });
  }
  steps.sort((a, b) => a.order - b.order);
  return { ...w, id: w.id, name: String((_a2 = w.name) != null ? _a2 : ""), steps };
}

// node_modules/fflate/esm/browser.js
var u8 = Uint8Array;
var u16 = Uint16Array;
var i32 = Int32Array;
var fleb = new u8([
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  1,
  1,
  1,
  1,
  2,
  2,
  2,
  2,
  3,
  3,
  3,
  3,
  4,
  4,
  4,
  4,
  5,
  5,
  5,
  5,
  0,
  /* unused */
  0,
  0,
  /* impossible */
  0
]);
var fdeb = new u8([
  0,
  0,
  0,
  0,
  1,
  1,
  2,
  2,
  3,
  3,
  4,
  4,
  5,
  5,
  6,
  6,
  7,
  7,
  8,
  8,
  9,
  9,
  10,
  10,
  11,
  11,
  12,
  12,
  13,
  13,
  /* unused */
  0,
  0
]);
var clim = new u8([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);
var freb = function(eb, start) {
  var b = new u16(31);
  for (var i = 0; i < 31; ++i) {
    b[i] = start += 1 << eb[i - 1];
  }
  var r = new i32(b[30]);
  for (var i = 1; i < 30; ++i) {
    for (var j = b[i]; j < b[i + 1]; ++j) {
      r[j] = j - b[i] << 5 | i;
    }
  }
  return { b, r };
};
var _a = freb(fleb, 2);
var fl = _a.b;
var revfl = _a.r;
fl[28] = 258, revfl[258] = 28;
var _b = freb(fdeb, 0);
var fd = _b.b;
var revfd = _b.r;
var rev = new u16(32768);
for (i = 0; i < 32768; ++i) {
  x = (i & 43690) >> 1 | (i & 21845) << 1;
  x = (x & 52428) >> 2 | (x & 13107) << 2;
  x = (x & 61680) >> 4 | (x & 3855) << 4;
  rev[i] = ((x & 65280) >> 8 | (x & 255) << 8) >> 1;
}
var x;
var i;
var hMap = (function(cd, mb, r) {
  var s = cd.length;
  var i = 0;
  var l = new u16(mb);
  for (; i < s; ++i) {
    if (cd[i])
      ++l[cd[i] - 1];
  }
  var le = new u16(mb);
  for (i = 1; i < mb; ++i) {
    le[i] = le[i - 1] + l[i - 1] << 1;
  }
  var co;
  if (r) {
    co = new u16(1 << mb);
    var rvb = 15 - mb;
    for (i = 0; i < s; ++i) {
      if (cd[i]) {
        var sv = i << 4 | cd[i];
        var r_1 = mb - cd[i];
        var v = le[cd[i] - 1]++ << r_1;
        for (var m = v | (1 << r_1) - 1; v <= m; ++v) {
          co[rev[v] >> rvb] = sv;
        }
      }
    }
  } else {
    co = new u16(s);
    for (i = 0; i < s; ++i) {
      if (cd[i]) {
        co[i] = rev[le[cd[i] - 1]++] >> 15 - cd[i];
      }
    }
  }
  return co;
});
var flt = new u8(288);
for (i = 0; i < 144; ++i)
  flt[i] = 8;
var i;
for (i = 144; i < 256; ++i)
  flt[i] = 9;
var i;
for (i = 256; i < 280; ++i)
  flt[i] = 7;
var i;
for (i = 280; i < 288; ++i)
  flt[i] = 8;
var i;
var fdt = new u8(32);
for (i = 0; i < 32; ++i)
  fdt[i] = 5;
var i;
var flm = /* @__PURE__ */ hMap(flt, 9, 0);
var fdm = /* @__PURE__ */ hMap(fdt, 5, 0);
var shft = function(p) {
  return (p + 7) / 8 | 0;
};
var slc = function(v, s, e) {
  if (s == null || s < 0)
    s = 0;
  if (e == null || e > v.length)
    e = v.length;
  return new u8(v.subarray(s, e));
};
var wbits = function(d, p, v) {
  v <<= p & 7;
  var o = p / 8 | 0;
  d[o] |= v;
  d[o + 1] |= v >> 8;
};
var wbits16 = function(d, p, v) {
  v <<= p & 7;
  var o = p / 8 | 0;
  d[o] |= v;
  d[o + 1] |= v >> 8;
  d[o + 2] |= v >> 16;
};
var hTree = function(d, mb) {
  var t = [];
  for (var i = 0; i < d.length; ++i) {
    if (d[i])
      t.push({ s: i, f: d[i] });
  }
  var s = t.length;
  var t2 = t.slice();
  if (!s)
    return { t: et, l: 0 };
  if (s == 1) {
    var v = new u8(t[0].s + 1);
    v[t[0].s] = 1;
    return { t: v, l: 1 };
  }
  t.sort(function(a, b) {
    return a.f - b.f;
  });
  t.push({ s: -1, f: 25001 });
  var l = t[0], r = t[1], i0 = 0, i1 = 1, i2 = 2;
  t[0] = { s: -1, f: l.f + r.f, l, r };
  while (i1 != s - 1) {
    l = t[t[i0].f < t[i2].f ? i0++ : i2++];
    r = t[i0 != i1 && t[i0].f < t[i2].f ? i0++ : i2++];
    t[i1++] = { s: -1, f: l.f + r.f, l, r };
  }
  var maxSym = t2[0].s;
  for (var i = 1; i < s; ++i) {
    if (t2[i].s > maxSym)
      maxSym = t2[i].s;
  }
  var tr = new u16(maxSym + 1);
  var mbt = ln(t[i1 - 1], tr, 0);
  if (mbt > mb) {
    var i = 0, dt = 0;
    var lft = mbt - mb, cst = 1 << lft;
    t2.sort(function(a, b) {
      return tr[b.s] - tr[a.s] || a.f - b.f;
    });
    for (; i < s; ++i) {
      var i2_1 = t2[i].s;
      if (tr[i2_1] > mb) {
        dt += cst - (1 << mbt - tr[i2_1]);
        tr[i2_1] = mb;
      } else
        break;
    }
    dt >>= lft;
    while (dt > 0) {
      var i2_2 = t2[i].s;
      if (tr[i2_2] < mb)
        dt -= 1 << mb - tr[i2_2]++ - 1;
      else
        ++i;
    }
    for (; i >= 0 && dt; --i) {
      var i2_3 = t2[i].s;
      if (tr[i2_3] == mb) {
        --tr[i2_3];
        ++dt;
      }
    }
    mbt = mb;
  }
  return { t: new u8(tr), l: mbt };
};
var ln = function(n, l, d) {
  return n.s == -1 ? Math.max(ln(n.l, l, d + 1), ln(n.r, l, d + 1)) : l[n.s] = d;
};
var lc = function(c) {
  var s = c.length;
  while (s && !c[--s])
    ;
  var cl = new u16(++s);
  var cli = 0, cln = c[0], cls = 1;
  var w = function(v) {
    cl[cli++] = v;
  };
  for (var i = 1; i <= s; ++i) {
    if (c[i] == cln && i != s)
      ++cls;
    else {
      if (!cln && cls > 2) {
        for (; cls > 138; cls -= 138)
          w(32754);
        if (cls > 2) {
          w(cls > 10 ? cls - 11 << 5 | 28690 : cls - 3 << 5 | 12305);
          cls = 0;
        }
      } else if (cls > 3) {
        w(cln), --cls;
        for (; cls > 6; cls -= 6)
          w(8304);
        if (cls > 2)
          w(cls - 3 << 5 | 8208), cls = 0;
      }
      while (cls--)
        w(cln);
      cls = 1;
      cln = c[i];
    }
  }
  return { c: cl.subarray(0, cli), n: s };
};
var clen = function(cf, cl) {
  var l = 0;
  for (var i = 0; i < cl.length; ++i)
    l += cf[i] * cl[i];
  return l;
};
var wfblk = function(out, pos, dat) {
  var s = dat.length;
  var o = shft(pos + 2);
  out[o] = s & 255;
  out[o + 1] = s >> 8;
  out[o + 2] = out[o] ^ 255;
  out[o + 3] = out[o + 1] ^ 255;
  for (var i = 0; i < s; ++i)
    out[o + i + 4] = dat[i];
  return (o + 4 + s) * 8;
};
var wblk = function(dat, out, final, syms, lf, df, eb, li, bs, bl, p) {
  wbits(out, p++, final);
  ++lf[256];
  var _a2 = hTree(lf, 15), dlt = _a2.t, mlb = _a2.l;
  var _b2 = hTree(df, 15), ddt = _b2.t, mdb = _b2.l;
  var _c = lc(dlt), lclt = _c.c, nlc = _c.n;
  var _d = lc(ddt), lcdt = _d.c, ndc = _d.n;
  var lcfreq = new u16(19);
  for (var i = 0; i < lclt.length; ++i)
    ++lcfreq[lclt[i] & 31];
  for (var i = 0; i < lcdt.length; ++i)
    ++lcfreq[lcdt[i] & 31];
  var _e = hTree(lcfreq, 7), lct = _e.t, mlcb = _e.l;
  var nlcc = 19;
  for (; nlcc > 4 && !lct[clim[nlcc - 1]]; --nlcc)
    ;
  var flen = bl + 5 << 3;
  var ftlen = clen(lf, flt) + clen(df, fdt) + eb;
  var dtlen = clen(lf, dlt) + clen(df, ddt) + eb + 14 + 3 * nlcc + clen(lcfreq, lct) + 2 * lcfreq[16] + 3 * lcfreq[17] + 7 * lcfreq[18];
  if (bs >= 0 && flen <= ftlen && flen <= dtlen)
    return wfblk(out, p, dat.subarray(bs, bs + bl));
  var lm, ll, dm, dl;
  wbits(out, p, 1 + (dtlen < ftlen)), p += 2;
  if (dtlen < ftlen) {
    lm = hMap(dlt, mlb, 0), ll = dlt, dm = hMap(ddt, mdb, 0), dl = ddt;
    var llm = hMap(lct, mlcb, 0);
    wbits(out, p, nlc - 257);
    wbits(out, p + 5, ndc - 1);
    wbits(out, p + 10, nlcc - 4);
    p += 14;
    for (var i = 0; i < nlcc; ++i)
      wbits(out, p + 3 * i, lct[clim[i]]);
    p += 3 * nlcc;
    var lcts = [lclt, lcdt];
    for (var it = 0; it < 2; ++it) {
      var clct = lcts[it];
      for (var i = 0; i < clct.length; ++i) {
        var len = clct[i] & 31;
        wbits(out, p, llm[len]), p += lct[len];
        if (len > 15)
          wbits(out, p, clct[i] >> 5 & 127), p += clct[i] >> 12;
      }
    }
  } else {
    lm = flm, ll = flt, dm = fdm, dl = fdt;
  }
  for (var i = 0; i < li; ++i) {
    var sym = syms[i];
    if (sym > 255) {
      var len = sym >> 18 & 31;
      wbits16(out, p, lm[len + 257]), p += ll[len + 257];
      if (len > 7)
        wbits(out, p, sym >> 23 & 31), p += fleb[len];
      var dst = sym & 31;
      wbits16(out, p, dm[dst]), p += dl[dst];
      if (dst > 3)
        wbits16(out, p, sym >> 5 & 8191), p += fdeb[dst];
    } else {
      wbits16(out, p, lm[sym]), p += ll[sym];
    }
  }
  wbits16(out, p, lm[256]);
  return p + ll[256];
};
var deo = /* @__PURE__ */ new i32([65540, 131080, 131088, 131104, 262176, 1048704, 1048832, 2114560, 2117632]);
var et = /* @__PURE__ */ new u8(0);
var dflt = function(dat, lvl, plvl, pre, post, st) {
  var s = st.z || dat.length;
  var o = new u8(pre + s + 5 * (1 + Math.ceil(s / 7e3)) + post);
  var w = o.subarray(pre, o.length - post);
  var lst = st.l;
  var pos = (st.r || 0) & 7;
  if (lvl) {
    if (pos)
      w[0] = st.r >> 3;
    var opt = deo[lvl - 1];
    var n = opt >> 13, c = opt & 8191;
    var msk_1 = (1 << plvl) - 1;
    var prev = st.p || new u16(32768), head = st.h || new u16(msk_1 + 1);
    var bs1_1 = Math.ceil(plvl / 3), bs2_1 = 2 * bs1_1;
    var hsh = function(i2) {
      return (dat[i2] ^ dat[i2 + 1] << bs1_1 ^ dat[i2 + 2] << bs2_1) & msk_1;
    };
    var syms = new i32(25e3);
    var lf = new u16(288), df = new u16(32);
    var lc_1 = 0, eb = 0, i = st.i || 0, li = 0, wi = st.w || 0, bs = 0;
    for (; i + 2 < s; ++i) {
      var hv = hsh(i);
      var imod = i & 32767, pimod = head[hv];
      prev[imod] = pimod;
      head[hv] = imod;
      if (wi <= i) {
        var rem = s - i;
        if ((lc_1 > 7e3 || li > 24576) && (rem > 423 || !lst)) {
          pos = wblk(dat, w, 0, syms, lf, df, eb, li, bs, i - bs, pos);
          li = lc_1 = eb = 0, bs = i;
          for (var j = 0; j < 286; ++j)
            lf[j] = 0;
          for (var j = 0; j < 30; ++j)
            df[j] = 0;
        }
        var l = 2, d = 0, ch_1 = c, dif = imod - pimod & 32767;
        if (rem > 2 && hv == hsh(i - dif)) {
          var maxn = Math.min(n, rem) - 1;
          var maxd = Math.min(32767, i);
          var ml = Math.min(258, rem);
          while (dif <= maxd && --ch_1 && imod != pimod) {
            if (dat[i + l] == dat[i + l - dif]) {
              var nl = 0;
              for (; nl < ml && dat[i + nl] == dat[i + nl - dif]; ++nl)
                ;
              if (nl > l) {
                l = nl, d = dif;
                if (nl > maxn)
                  break;
                var mmd = Math.min(dif, nl - 2);
                var md = 0;
                for (var j = 0; j < mmd; ++j) {
                  var ti = i - dif + j & 32767;
                  var pti = prev[ti];
                  var cd = ti - pti & 32767;
                  if (cd > md)
                    md = cd, pimod = ti;
                }
              }
            }
            imod = pimod, pimod = prev[imod];
            dif += imod - pimod & 32767;
          }
        }
        if (d) {
          syms[li++] = 268435456 | revfl[l] << 18 | revfd[d];
          var lin = revfl[l] & 31, din = revfd[d] & 31;
          eb += fleb[lin] + fdeb[din];
          ++lf[257 + lin];
          ++df[din];
          wi = i + l;
          ++lc_1;
        } else {
          syms[li++] = dat[i];
          ++lf[dat[i]];
        }
      }
    }
    for (i = Math.max(i, wi); i < s; ++i) {
      syms[li++] = dat[i];
      ++lf[dat[i]];
    }
    pos = wblk(dat, w, lst, syms, lf, df, eb, li, bs, i - bs, pos);
    if (!lst) {
      st.r = pos & 7 | w[pos / 8 | 0] << 3;
      pos -= 7;
      st.h = head, st.p = prev, st.i = i, st.w = wi;
    }
  } else {
    for (var i = st.w || 0; i < s + lst; i += 65535) {
      var e = i + 65535;
      if (e >= s) {
        w[pos / 8 | 0] = lst;
        e = s;
      }
      pos = wfblk(w, pos + 1, dat.subarray(i, e));
    }
    st.i = s;
  }
  return slc(o, 0, pre + shft(pos) + post);
};
var dopt = function(dat, opt, pre, post, st) {
  if (!st) {
    st = { l: 1 };
    if (opt.dictionary) {
      var dict = opt.dictionary.subarray(-32768);
      var newDat = new u8(dict.length + dat.length);
      newDat.set(dict);
      newDat.set(dat, dict.length);
      dat = newDat;
      st.w = dict.length;
    }
  }
  return dflt(dat, opt.level == null ? 6 : opt.level, opt.mem == null ? st.l ? Math.ceil(Math.max(8, Math.min(13, Math.log(dat.length))) * 1.5) : 20 : 12 + opt.mem, pre, post, st);
};
function deflateSync(data, opts) {
  return dopt(data, opts || {}, 0, 0);
}
var td = typeof TextDecoder != "undefined" && /* @__PURE__ */ new TextDecoder();
var tds = 0;
try {
  td.decode(et, { stream: true });
  tds = 1;
} catch (e) {
}

// core/src/payload.ts
function buildPayload(a) {
  const p = {
    client_id: a.clientId,
    work_flow_id: a.workflowId,
    id_front_image_url: a.captures.id_front,
    id_back_image_url: a.captures.id_back,
    request_id: a.requestId
  };
  if (a.captures.selfie) p.selfie_image_url = a.captures.selfie;
  if (a.config) p.config = a.config;
  return p;
}
function compressPayload(payload) {
  return encodeBase64(deflateSync(utf8Encode(JSON.stringify(payload)), { level: 9 }));
}
function newRequestId(random = defaultRandom) {
  return Array.from(random(16), (b) => b.toString(16).padStart(2, "0")).join("");
}
function defaultRandom(n) {
  const b = new Uint8Array(n);
  const c = globalThis.crypto;
  if (c == null ? void 0 : c.getRandomValues) return c.getRandomValues(b);
  for (let i = 0; i < n; i++) b[i] = Math.floor(Math.random() * 256);
  return b;
}

// core/src/result.ts
var statusOf = { accept: "success", review: "pending", reject: "failed" };
function str(v) {
  return typeof v === "string" ? v : "";
}
function obj(v) {
  return v && typeof v === "object" && !Array.isArray(v) ? v : {};
}
function toResult(raw) {
  const decision = str(raw.verification_decision);
  if (!(decision in statusOf)) throw new Error(`the answer has no verification_decision (got ${JSON.stringify(decision)})`);
  const c = obj(raw.combined);
  const mrz = obj(raw.mrz_parsed);
  const pc = obj(raw.photo_comparison);
  const ld = obj(raw.liveness_detection);
  const images = obj(raw.images);
  const first = (...vals) => {
    var _a2;
    return (_a2 = vals.map(str).find((v) => v !== "")) != null ? _a2 : "";
  };
  const out = {
    status: statusOf[decision],
    verification_decision: decision,
    decision_reasons: Array.isArray(raw.decision_reasons) ? raw.decision_reasons.map(String) : [],
    verification_id: str(raw.idv_unique_id) || void 0,
    extracted_data: {
      full_name: first(c.full_name, c.name, [c.given_names, c.surname].filter(Boolean).join(" ")),
      id_number: first(c.national_id_number, c.id_number, c.nin, c.document_number, c.passport_number, mrz.document_number),
      date_of_birth: first(c.date_of_birth, mrz.date_of_birth),
      place_of_birth: first(c.place_of_birth),
      gender: first(c.sex, c.gender, mrz.sex)
    },
    selfie_url: str(images.selfie) || void 0,
    raw
  };
  if (typeof pc.match === "boolean") out.face_match = { match: pc.match, confidence: Number(pc.similarity) || 0 };
  if (typeof ld.liveness === "boolean") out.liveness = { is_live: ld.liveness, confidence: Number(ld.confidence) || 0 };
  return out;
}

// core/src/api.ts
var RPC_QUEUE = "idv-gateway-v2";
var TIMEOUTS = { token: 3e4, workflow: 3e4, submit: 15e4 };
var TransportError = class extends Error {
};
var ApiClient = class {
  constructor(claims, fetchFn2, events = {}, now = Date.now) {
    this.claims = claims;
    this.fetchFn = fetchFn2;
    this.events = events;
    this.now = now;
    this.accessToken = "";
    this.accessExpires = 0;
  }
  async post(body, auth, timeoutMs) {
    var _a2, _b2;
    const headers = { "Content-Type": "application/json" };
    if (auth) headers.Authorization = `Bearer ${this.accessToken}`;
    const ctl = typeof AbortController === "function" ? new AbortController() : void 0;
    const timer = setTimeout(() => ctl == null ? void 0 : ctl.abort(), timeoutMs);
    (_b2 = (_a2 = this.events).onRequest) == null ? void 0 : _b2.call(_a2, String(body.menu), String(body.method));
    let status;
    let text;
    try {
      const r = await this.fetchFn(this.claims.apiUrl, { method: "POST", headers, body: JSON.stringify({ rpcQueue: RPC_QUEUE, ...body }), signal: ctl == null ? void 0 : ctl.signal });
      status = r.status;
      text = await r.text();
    } catch (e) {
      throw new TransportError(e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
    }
    let parsed = {};
    try {
      const v = JSON.parse(text);
      if (v && typeof v === "object" && !Array.isArray(v)) parsed = v;
    } catch {
    }
    const code = typeof parsed.v_field39 === "number" ? parsed.v_field39 : void 0;
    const message = typeof parsed.v_field48 === "string" ? parsed.v_field48 : `HTTP ${status}`;
    return { status, body: parsed, code, message };
  }
  /** refreshAccessToken with the token's refresh token and organisation. */
  async refresh() {
    const body = { menu: "auth_config", method: "refreshAccessToken", refresh_token: this.claims.refresh_token, organisationId: this.claims.organisationId };
    let a;
    try {
      a = await this.post(body, false, TIMEOUTS.token);
    } catch (e) {
      if (!(e instanceof TransportError)) throw e;
      try {
        a = await this.post(body, false, TIMEOUTS.token);
      } catch (e2) {
        throw new SdkError("TOKEN_REFRESH_FAILED", `the token service could not be reached: ${e2.message}`);
      }
    }
    const tok = a.body.access_token;
    if (a.status !== 200 || typeof tok !== "string" || tok === "") {
      throw new SdkError("TOKEN_REFRESH_FAILED", a.message, { serverCode: a.code, status: a.status });
    }
    this.accessToken = tok;
    const ttl = typeof a.body.expires_in === "number" ? a.body.expires_in : 3600;
    this.accessExpires = this.now() + ttl * 1e3;
  }
  /** A call with the access token, under the refresh and retry rules. */
  async authed(body, errCode, timeoutMs) {
    if (!this.accessToken || this.now() > this.accessExpires - 3e4) await this.refresh();
    let refreshed = false;
    let retried = false;
    for (; ; ) {
      let a;
      try {
        a = await this.post(body, true, timeoutMs);
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        if (retried) throw new SdkError(errCode, `the connection failed twice: ${e.message}`);
        retried = true;
        continue;
      }
      if (a.status === 200 && a.code === void 0) return a.body;
      if (a.code === 401 || a.status === 401 && a.code === void 0) {
        if (refreshed) throw new SdkError("TOKEN_REFRESH_FAILED", `the refreshed token was refused: ${a.message}`, { serverCode: a.code, status: a.status });
        refreshed = true;
        await this.refresh();
        continue;
      }
      if (a.code === 230 && !retried) {
        retried = true;
        continue;
      }
      throw new SdkError(errCode, a.message, { serverCode: a.code, status: a.status });
    }
  }
  /** getWorkflowById for the token's workflow. */
  async getWorkflow() {
    const body = await this.authed({ menu: "flow", method: "getWorkflowById", work_flow_id: this.claims.workflowId }, "WORKFLOW_FETCH_FAILED", TIMEOUTS.workflow);
    try {
      return parseWorkflow(body);
    } catch (e) {
      throw new SdkError("WORKFLOW_FETCH_FAILED", e.message);
    }
  }
  /** createHandoff: a single-use code that opens this workflow on a phone (docs/sdk.md). */
  async createHandoff() {
    const body = await this.authed({ menu: "auth_config", method: "createHandoff", config: this.claims.config || void 0 }, "VERIFICATION_FAILED", TIMEOUTS.token);
    const { handoff_token: token, handoff_url: url, qr_code: qr, expires_in: ttl } = body;
    if (typeof token !== "string" || typeof url !== "string" || typeof qr !== "string" || !/^data:image\/png;base64,/.test(qr)) {
      throw new SdkError("VERIFICATION_FAILED", "the hand-off answer is not understood");
    }
    return { token, url, qr, expiresIn: typeof ttl === "number" ? ttl : 600 };
  }
  /** getHandoffStatus: how far the phone has got; the result once it ran. */
  async handoffStatus(token) {
    const body = await this.authed({ menu: "auth_config", method: "getHandoffStatus", handoff_token: token }, "VERIFICATION_FAILED", TIMEOUTS.token);
    const state = body.state;
    if (state !== "waiting" && state !== "opened" && state !== "running" && state !== "completed" && state !== "expired") {
      throw new SdkError("VERIFICATION_FAILED", "the hand-off status is not understood");
    }
    const result = body.result && typeof body.result === "object" ? body.result : void 0;
    return { state, result };
  }
  /** submitVerification with a compressed payload; returns the server's result. */
  async submit(payload) {
    return this.authed({ menu: "verification", method: "submitVerification", payload }, "VERIFICATION_FAILED", TIMEOUTS.submit);
  }
};

// core/src/geometry.ts
var ID_RATIO = 85.6 / 53.98;
var ID_OUTPUT = { width: 590, height: 372 };
var SELFIE_BOX = { width: 280, height: 350 };
var SELFIE_OUTPUT_WIDTH = 590;
function idFrameRect(viewW, viewH) {
  const w = Math.min(viewW * 0.88, viewH * 0.66 * ID_RATIO);
  const h = w / ID_RATIO;
  return { x: (viewW - w) / 2, y: viewH * 0.48 - h / 2, width: w, height: h };
}
function selfieRect(viewW, viewH) {
  const s = Math.min(1, viewW * 0.9 / SELFIE_BOX.width, viewH * 0.75 / SELFIE_BOX.height);
  const w = SELFIE_BOX.width * s;
  const h = SELFIE_BOX.height * s;
  return { x: (viewW - w) / 2, y: viewH * 0.48 - h / 2, width: w, height: h };
}
function selfieOutput() {
  return { width: SELFIE_OUTPUT_WIDTH, height: Math.round(SELFIE_OUTPUT_WIDTH * SELFIE_BOX.height / SELFIE_BOX.width) };
}
function viewRectToSource(r, srcW, srcH, viewW, viewH) {
  const scale = Math.max(viewW / srcW, viewH / srcH);
  const offX = (viewW - srcW * scale) / 2;
  const offY = (viewH - srcH * scale) / 2;
  let x = (r.x - offX) / scale;
  let y = (r.y - offY) / scale;
  let w = r.width / scale;
  let h = r.height / scale;
  x = Math.max(0, Math.min(x, srcW - 1));
  y = Math.max(0, Math.min(y, srcH - 1));
  w = Math.min(w, srcW - x);
  h = Math.min(h, srcH - y);
  return { x: Math.round(x), y: Math.round(y), width: Math.round(w), height: Math.round(h) };
}

// core/src/quality.ts
var EDGE_MIN = 22;
var EDGE_COVER = 0.85;
var SHARP_MIN = 70;
var GLARE_MAX = 8e-3;
var BLOCK = 6;
var BLOCK_CLIPPED = 34;
var DARK_MAX = 60;
function sideScore(l, side) {
  const { data, width: w, height: h } = l;
  const horizontal = side === "top" || side === "bottom";
  const along = horizontal ? w : h;
  const across = horizontal ? h : w;
  const band = Math.max(3, Math.floor(across * 0.22));
  const a0 = Math.floor(along * 0.2);
  const a1 = Math.ceil(along * 0.8);
  const n = a1 - a0;
  const half = EDGE_MIN / 2;
  let best = 0;
  for (let k = 2; k < band; k++) {
    const c = side === "top" || side === "left" ? k : across - 1 - k;
    let s = 0;
    let pos = 0;
    let neg = 0;
    for (let a = a0; a < a1; a++) {
      const d = horizontal ? data[(c + 2) * w + a] - data[(c - 2) * w + a] : data[a * w + c + 2] - data[a * w + c - 2];
      s += d;
      if (d >= half) pos++;
      else if (d <= -half) neg++;
    }
    const cover = (s >= 0 ? pos : neg) / n;
    if (cover >= EDGE_COVER) best = Math.max(best, Math.abs(s) / n);
  }
  return best;
}
function sampleFramePlane(plane, stride, bufW, bufH, turns, viewW, viewH, viewRect, outW, outH) {
  "worklet";
  const t = (turns % 4 + 4) % 4;
  const upW = t % 2 ? bufH : bufW;
  const upH = t % 2 ? bufW : bufH;
  const scale = Math.max(viewW / upW, viewH / upH);
  const rx = (viewRect.x - (viewW - upW * scale) / 2) / scale;
  const ry = (viewRect.y - (viewH - upH * scale) / 2) / scale;
  const cw = viewRect.width / scale / outW;
  const ch = viewRect.height / scale / outH;
  const out = new Uint8Array(outW * outH);
  for (let oy = 0; oy < outH; oy++) {
    for (let ox = 0; ox < outW; ox++) {
      let s = 0;
      for (let k = 0; k < 4; k++) {
        let u = Math.floor(rx + (ox + (k & 1 ? 0.75 : 0.25)) * cw);
        let v = Math.floor(ry + (oy + (k & 2 ? 0.75 : 0.25)) * ch);
        u = u < 0 ? 0 : u >= upW ? upW - 1 : u;
        v = v < 0 ? 0 : v >= upH ? upH - 1 : v;
        const i = t === 0 ? v * stride + u : t === 1 ? (bufH - 1 - u) * stride + v : t === 2 ? (bufH - 1 - v) * stride + bufW - 1 - u : u * stride + bufW - 1 - v;
        s += plane[i];
      }
      out[oy * outW + ox] = s + 2 >> 2;
    }
  }
  return out;
}
function frameTurns(orientation, bufW, bufH, viewW, viewH) {
  "worklet";
  if (orientation === "portrait") return 0;
  if (orientation === "landscape-left") return 1;
  if (orientation === "portrait-upside-down") return 2;
  if (orientation === "landscape-right") return 3;
  return bufW > bufH !== viewW > viewH ? 1 : 0;
}
function analyseCard(l) {
  const { data, width: w, height: h } = l;
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += data[i];
  const brightness = sum / data.length;
  let blocks = 0;
  let blown = 0;
  for (let by = 0; by + BLOCK <= h; by += BLOCK) {
    for (let bx = 0; bx + BLOCK <= w; bx += BLOCK) {
      let n = 0;
      for (let y = by; y < by + BLOCK; y++) for (let x = bx; x < bx + BLOCK; x++) if (data[y * w + x] >= 250) n++;
      blocks++;
      if (n >= BLOCK_CLIPPED) blown++;
    }
  }
  const glare = blocks ? blown / blocks : 0;
  let edges = 0;
  for (const side of ["top", "bottom", "left", "right"]) if (sideScore(l, side) >= EDGE_MIN) edges++;
  let lap = 0;
  let grad = 0;
  for (let y = Math.floor(h * 0.2); y < Math.floor(h * 0.8); y++) {
    for (let x = Math.floor(w * 0.2); x < Math.floor(w * 0.8); x++) {
      const i = y * w + x;
      lap += Math.abs(4 * data[i] - data[i - 1] - data[i + 1] - data[i - w] - data[i + w]);
      grad += Math.abs(data[i + 1] - data[i - 1]) + Math.abs(data[i + w] - data[i - w]);
    }
  }
  const sharpness = grad ? 100 * lap / grad : 0;
  const cardFound = edges === 4;
  let hint = "ready";
  if (brightness < DARK_MAX) hint = "dark";
  else if (!cardFound) hint = "no_card";
  else if (glare > GLARE_MAX) hint = "glare";
  else if (sharpness < SHARP_MIN) hint = "blurry";
  return { cardFound, edges, sharpness, glare, brightness, hint };
}
function frameDifference(a, b) {
  if (a.data.length !== b.data.length) return 255;
  let s = 0;
  for (let i = 0; i < a.data.length; i++) s += Math.abs(a.data[i] - b.data[i]);
  return s / a.data.length;
}
var STEADY_MAX = 3.5;
var AUTO_CAPTURE_FRAMES = 3;
var AutoCapture = class {
  constructor() {
    this.good = 0;
  }
  /** Feeds one frame; returns its quality, with hold_steady while waiting, and whether to shoot now. */
  push(l) {
    const q = analyseCard(l);
    const steady = this.prev ? frameDifference(this.prev, l) < STEADY_MAX : false;
    this.prev = l;
    if (q.hint !== "ready") {
      this.good = 0;
      return { quality: q, shoot: false };
    }
    this.good = steady ? this.good + 1 : 0;
    if (this.good >= AUTO_CAPTURE_FRAMES) {
      this.good = 0;
      return { quality: q, shoot: true };
    }
    return { quality: { ...q, hint: "hold_steady" }, shoot: false };
  }
  reset() {
    this.prev = void 0;
    this.good = 0;
  }
};

// core/src/session.ts
function defaultCustomization(lang) {
  const t = texts[lang];
  return {
    theme: { ...defaultTheme },
    landing: { backgroundImage: "", logoUrl: "", heroImage: "", heroMessage: t.heroMessage, tagline: t.tagline, getStartedButtonText: t.getStartedButtonText },
    messages: messagesFor(lang),
    camera: { ...defaultCamera }
  };
}
var VerificationSession = class {
  constructor(opts) {
    this.opts = opts;
    this.steps = [];
    this.captures = {};
    // One request id per set of captures: a resubmission after a dropped
    // connection replays instead of running again; a retake makes a new set.
    this.requestId = newRequestId();
    this.finished = false;
    this.customization = resolveCustomization(defaultCustomization(opts.language), opts.customization, void 0);
  }
  /** Reports an error to onError once it is an SdkError; returns it. */
  fail(e) {
    var _a2, _b2;
    const err = e instanceof SdkError ? e : new SdkError("VERIFICATION_FAILED", e instanceof Error ? e.message : String(e));
    (_b2 = (_a2 = this.opts).onError) == null ? void 0 : _b2.call(_a2, err);
    return err;
  }
  step(change) {
    var _a2, _b2;
    (_b2 = (_a2 = this.opts).onStepChange) == null ? void 0 : _b2.call(_a2, change);
  }
  /** Initialisation: decode the JWT, refresh, fetch the workflow, decide the selfie. */
  async start() {
    try {
      this.claims = decodeSdkToken(this.opts.token);
      this.api = new ApiClient(this.claims, this.opts.fetch, this.opts.events);
      await this.api.refresh();
      this.workflow = await this.api.getWorkflow();
      this.steps = captureSteps(this.workflow.steps);
      const key = this.opts.platform === "web" ? "web_sdk_configs" : "react_native_sdk_configs";
      this.customization = resolveCustomization(defaultCustomization(this.opts.language), this.opts.customization, this.workflow[key]);
    } catch (e) {
      throw this.fail(e);
    }
    this.step({ name: "landing", index: 0, total: this.steps.length });
  }
  setCapture(step, dataUrl) {
    this.captures[step] = dataUrl;
    this.requestId = newRequestId();
  }
  capture(step) {
    return this.captures[step];
  }
  /** Builds, compresses and submits; calls onSuccess or onError. */
  async submit() {
    var _a2, _b2;
    if (!this.api || !this.claims) throw this.fail(new SdkError("VERIFICATION_FAILED", "submit before start"));
    const c = this.captures;
    if (!c.id_front || !c.id_back || this.steps.includes("selfie") && !c.selfie) {
      throw this.fail(new SdkError("VERIFICATION_FAILED", "a capture is missing"));
    }
    this.step({ name: "submitting", index: 0, total: this.steps.length });
    try {
      const payload = compressPayload(
        buildPayload({ clientId: this.claims.clientId, workflowId: this.claims.workflowId, captures: c, requestId: this.requestId, config: this.claims.config })
      );
      const raw = await this.api.submit(payload);
      let result;
      try {
        result = toResult(raw);
      } catch (e) {
        throw new SdkError("VERIFICATION_FAILED", e.message);
      }
      this.finished = true;
      this.step({ name: "complete", index: 0, total: this.steps.length });
      (_b2 = (_a2 = this.opts).onSuccess) == null ? void 0 : _b2.call(_a2, result);
      return result;
    } catch (e) {
      this.step({ name: "error", index: 0, total: this.steps.length });
      throw this.fail(e);
    }
  }
  /** A hand-off code for a phone (the desktop side). */
  async createHandoff() {
    if (!this.api) throw this.fail(new SdkError("VERIFICATION_FAILED", "hand-off before start"));
    try {
      return await this.api.createHandoff();
    } catch (e) {
      throw this.fail(e);
    }
  }
  /**
   * Polls a hand-off once. When the phone's verification has run, this
   * session completes with its result: onSuccess, as if submitted here.
   * Errors are thrown, not reported to onError.
   */
  async pollHandoff(token) {
    var _a2, _b2;
    if (!this.api) throw this.fail(new SdkError("VERIFICATION_FAILED", "hand-off before start"));
    const st = await this.api.handoffStatus(token);
    if (st.state === "completed" && st.result && !this.finished) {
      let result;
      try {
        result = toResult(st.result);
      } catch (e) {
        throw this.fail(new SdkError("VERIFICATION_FAILED", e.message));
      }
      this.finished = true;
      this.step({ name: "complete", index: 0, total: this.steps.length });
      (_b2 = (_a2 = this.opts).onSuccess) == null ? void 0 : _b2.call(_a2, result);
    }
    return st.state;
  }
  /** The holder leaves before the end. */
  cancel() {
    var _a2, _b2;
    if (!this.finished) (_b2 = (_a2 = this.opts).onCancel) == null ? void 0 : _b2.call(_a2);
    this.finished = true;
  }
};

// react-native/src/ServiceVerification.tsx
import { Fragment, jsx, jsxs } from "react/jsx-runtime";
function deviceLanguage() {
  try {
    return [Intl.DateTimeFormat().resolvedOptions().locale];
  } catch {
    return [];
  }
}
var fetchFn = (url, init) => fetch(url, init);
function ServiceVerification(props) {
  const session = useMemo(
    () => new VerificationSession({
      token: props.token,
      customization: props.customization,
      language: pickLanguage(props.language ? [props.language] : deviceLanguage()),
      platform: "react_native",
      fetch: fetchFn,
      onSuccess: (r) => {
        var _a2;
        return (_a2 = props.onSuccess) == null ? void 0 : _a2.call(props, r);
      },
      onError: (e) => {
        var _a2;
        return (_a2 = props.onError) == null ? void 0 : _a2.call(props, e);
      },
      onCancel: () => {
        var _a2;
        return (_a2 = props.onCancel) == null ? void 0 : _a2.call(props);
      },
      onStepChange: (s) => {
        var _a2;
        return (_a2 = props.onStepChange) == null ? void 0 : _a2.call(props, s);
      }
    }),
    // A new token is a new session; callbacks are read through props.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [props.token]
  );
  const [screen, setScreen] = useState({ kind: "loading" });
  const [, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    session.start().then(
      () => live && (setVersion((v) => v + 1), setScreen({ kind: "landing" })),
      () => live && setScreen({ kind: "error" })
    );
    return () => {
      live = false;
    };
  }, [session]);
  const c = session.customization;
  const m = c.messages;
  const styles = useMemo(() => makeStyles(c.theme), [c]);
  const goto = useCallback(
    (index) => {
      session.step({ name: session.steps[index], index: index + 1, total: session.steps.length });
      setScreen({ kind: "capture", index });
    },
    [session]
  );
  const submit = useCallback(async () => {
    setScreen({ kind: "submitting" });
    try {
      await session.submit();
      setScreen({ kind: "done" });
    } catch {
      setScreen({ kind: "error", retry: () => void submit() });
    }
  }, [session]);
  const cancel = () => session.cancel();
  const close = /* @__PURE__ */ jsx(TouchableOpacity, { accessibilityRole: "button", accessibilityLabel: m.cancelButton, testID: "tmb-cancel", onPress: cancel, style: styles.close, children: /* @__PURE__ */ jsx(Text, { style: styles.closeText, children: "×" }) });
  switch (screen.kind) {
    case "loading":
    case "submitting":
      return /* @__PURE__ */ jsxs(View, { style: styles.screen, testID: `tmb-${screen.kind}`, children: [
        /* @__PURE__ */ jsx(ActivityIndicator, { color: c.theme.primaryColor }),
        screen.kind === "submitting" ? /* @__PURE__ */ jsx(Text, { style: styles.p, children: m.submitting }) : null
      ] });
    case "landing": {
      const l = c.landing;
      const content = /* @__PURE__ */ jsxs(Fragment, { children: [
        l.logoUrl ? /* @__PURE__ */ jsx(Image, { source: { uri: l.logoUrl }, style: styles.logo, resizeMode: "contain" }) : null,
        l.heroImage ? /* @__PURE__ */ jsx(Image, { testID: "tmb-hero", source: { uri: l.heroImage }, style: styles.hero, resizeMode: "contain" }) : null,
        /* @__PURE__ */ jsx(Text, { style: styles.h1, children: l.heroMessage }),
        /* @__PURE__ */ jsx(Text, { style: styles.p, children: l.tagline }),
        /* @__PURE__ */ jsx(Button, { style: styles, testID: "tmb-start", label: l.getStartedButtonText, onPress: () => goto(0) }),
        close
      ] });
      return l.backgroundImage ? /* @__PURE__ */ jsx(ImageBackground, { testID: "tmb-landing", source: { uri: l.backgroundImage }, resizeMode: "cover", style: styles.screen, children: content }) : /* @__PURE__ */ jsx(View, { style: styles.screen, testID: "tmb-landing", children: content });
    }
    case "capture":
      return /* @__PURE__ */ jsx(
        CaptureScreen,
        {
          step: session.steps[screen.index],
          session,
          styles,
          onCaptured: (dataUrl) => {
            session.step({ name: "review", index: screen.index + 1, total: session.steps.length });
            setScreen({ kind: "review", index: screen.index, dataUrl });
          },
          onDenied: () => {
            session.fail(new SdkError("CAMERA_PERMISSION_DENIED", "the camera permission was denied"));
            setScreen({ kind: "denied", index: screen.index });
          },
          onNoCamera: () => setScreen({ kind: "nocamera", index: screen.index }),
          close
        },
        screen.index
      );
    case "denied":
    case "nocamera":
      return /* @__PURE__ */ jsxs(View, { style: styles.screen, testID: `tmb-${screen.kind}`, children: [
        /* @__PURE__ */ jsx(Text, { style: styles.h1, children: screen.kind === "denied" ? m.cameraDeniedTitle : m.noCameraTitle }),
        /* @__PURE__ */ jsx(Text, { style: styles.p, children: screen.kind === "denied" ? m.appCameraDeniedText : m.appNoCameraText }),
        /* @__PURE__ */ jsx(Button, { style: styles, testID: "tmb-retry-camera", label: m.retryCameraButton, onPress: () => goto(screen.index) }),
        close
      ] });
    case "review": {
      const last = screen.index === session.steps.length - 1;
      const step = session.steps[screen.index];
      return /* @__PURE__ */ jsxs(View, { style: styles.screen, testID: `tmb-review-${step}`, children: [
        /* @__PURE__ */ jsx(Text, { style: styles.h1, children: m.reviewTitle }),
        /* @__PURE__ */ jsx(Image, { source: { uri: screen.dataUrl }, style: step === "selfie" ? styles.reviewSelfie : styles.reviewId, resizeMode: "contain" }),
        /* @__PURE__ */ jsxs(View, { style: styles.row, children: [
          /* @__PURE__ */ jsx(Button, { style: styles, testID: "tmb-retake", secondary: true, label: m.retakeButton, onPress: () => goto(screen.index) }),
          /* @__PURE__ */ jsx(
            Button,
            {
              style: styles,
              testID: "tmb-continue",
              label: last ? m.startVerificationButton : m.continueButton,
              onPress: () => {
                session.setCapture(step, screen.dataUrl);
                if (last) void submit();
                else goto(screen.index + 1);
              }
            }
          )
        ] }),
        close
      ] });
    }
    case "done":
      return /* @__PURE__ */ jsxs(View, { style: styles.screen, testID: "tmb-done", children: [
        /* @__PURE__ */ jsx(Text, { style: styles.h1, children: "✓" }),
        /* @__PURE__ */ jsx(Text, { style: styles.p, children: m.done })
      ] });
    case "error":
      return /* @__PURE__ */ jsxs(View, { style: styles.screen, testID: "tmb-error", children: [
        /* @__PURE__ */ jsx(Text, { style: styles.h1, children: m.errorTitle }),
        /* @__PURE__ */ jsx(Text, { style: styles.p, children: m.errorText }),
        screen.retry ? /* @__PURE__ */ jsx(Button, { style: styles, testID: "tmb-try-again", label: m.tryAgainButton, onPress: screen.retry }) : null,
        close
      ] });
  }
}
var ANALYSE_W = 200;
var ANALYSE_H = Math.round(ANALYSE_W / ID_RATIO);
var ANALYSE_FPS = 6;
var NO_CAMERA_WAIT_MS = 1500;
function hintText(m, h) {
  return { no_card: m.guideNoCard, blurry: m.guideBlurry, glare: m.guideGlare, dark: m.guideDark, hold_steady: m.guideHoldSteady, ready: m.guideReady }[h];
}
function CaptureScreen(p) {
  const selfie = p.step === "selfie";
  const device = useCameraDevice(selfie ? "front" : "back");
  const { hasPermission, requestPermission } = useCameraPermission();
  const camera = useRef(null);
  const [view, setView] = useState({ width: 0, height: 0 });
  const [busy, setBusy] = useState(false);
  const [hint, setHint] = useState(void 0);
  const busyRef = useRef(false);
  const m = p.session.customization.messages;
  const cam = p.session.customization.camera;
  useEffect(() => {
    if (!hasPermission) {
      requestPermission().then((ok) => {
        if (!ok) p.onDenied();
      });
    }
  }, [hasPermission]);
  useEffect(() => {
    if (device || !hasPermission) return;
    const t = setTimeout(() => p.onNoCamera(), NO_CAMERA_WAIT_MS);
    return () => clearTimeout(t);
  }, [device, hasPermission]);
  const frame = view.width ? selfie ? selfieRect(view.width, view.height) : idFrameRect(view.width, view.height) : void 0;
  const [title, subtitle] = p.step === "id_front" ? [m.idFrontTitle, m.idFrontSubtitle] : p.step === "id_back" ? [m.idBackTitle, m.idBackSubtitle] : [m.selfieTitle, m.selfieSubtitle];
  const shoot = async () => {
    if (!camera.current || !frame || busyRef.current) return;
    busyRef.current = true;
    setBusy(true);
    try {
      const photo = await camera.current.takePhoto({ flash: "off", qualityPrioritization: "quality" });
      let pw = photo.width;
      let ph = photo.height;
      if (view.height > view.width !== ph > pw) [pw, ph] = [ph, pw];
      const r = viewRectToSource(frame, pw, ph, view.width, view.height);
      const out = selfie ? selfieOutput() : ID_OUTPUT;
      const res = await ImageEditor.cropImage(photo.path.startsWith("file://") ? photo.path : `file://${photo.path}`, {
        offset: { x: r.x, y: r.y },
        size: { width: r.width, height: r.height },
        displaySize: { width: out.width, height: out.height },
        resizeMode: "cover",
        quality: 0.95,
        format: "jpeg",
        includeBase64: true
      });
      p.onCaptured(`data:image/jpeg;base64,${res.base64}`);
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };
  const shootRef = useRef(shoot);
  shootRef.current = shoot;
  const auto = useRef(new AutoCapture());
  const onSample = useMemo(
    () => Worklets.createRunOnJS((sample) => {
      if (busyRef.current) return;
      const { quality, shoot: now } = auto.current.push({ data: Uint8Array.from(sample), width: ANALYSE_W, height: ANALYSE_H });
      setHint(quality.hint);
      if (now) void shootRef.current();
    }),
    []
  );
  const vw = view.width;
  const vh = view.height;
  const frameProcessor = useFrameProcessor(
    (f) => {
      "worklet";
      if (selfie || !frame || f.pixelFormat !== "yuv") return;
      runAtTargetFps(ANALYSE_FPS, () => {
        "worklet";
        const plane = new Uint8Array(f.toArrayBuffer());
        const turns = frameTurns(f.orientation, f.width, f.height, vw, vh);
        const s = sampleFramePlane(plane, f.bytesPerRow, f.width, f.height, turns, vw, vh, frame, ANALYSE_W, ANALYSE_H);
        onSample(Array.from(s));
      });
    },
    [selfie, vw, vh, frame == null ? void 0 : frame.x, frame == null ? void 0 : frame.y, frame == null ? void 0 : frame.width, frame == null ? void 0 : frame.height, onSample]
  );
  return /* @__PURE__ */ jsxs(View, { style: p.styles.cam, testID: `tmb-capture-${p.step}`, onLayout: (e) => setView(e.nativeEvent.layout), children: [
    device && hasPermission ? /* @__PURE__ */ jsx(
      Camera,
      {
        ref: camera,
        style: StyleSheet.absoluteFill,
        device,
        isActive: true,
        photo: true,
        photoQualityBalance: "quality",
        pixelFormat: "yuv",
        frameProcessor: selfie ? void 0 : frameProcessor
      }
    ) : null,
    frame ? /* @__PURE__ */ jsx(
      View,
      {
        pointerEvents: "none",
        testID: "tmb-frame",
        style: {
          position: "absolute",
          left: frame.x,
          top: frame.y,
          width: frame.width,
          height: frame.height,
          borderWidth: 3,
          borderColor: !selfie && (hint === "ready" || hint === "hold_steady") ? "#2e7d32" : selfie ? cam.selfieOutlineColor : cam.idFrameColor,
          borderRadius: selfie ? frame.width / 2 : 14
        }
      }
    ) : null,
    /* @__PURE__ */ jsxs(View, { style: p.styles.top, children: [
      /* @__PURE__ */ jsx(Text, { style: p.styles.camTitle, children: title }),
      /* @__PURE__ */ jsx(Text, { style: p.styles.camText, children: subtitle })
    ] }),
    frame ? /* @__PURE__ */ jsx(View, { testID: "tmb-guide", style: [p.styles.guide, { top: selfie ? frame.y + frame.height - 44 : frame.y + 10 }], children: /* @__PURE__ */ jsx(Text, { style: p.styles.guideText, children: selfie ? m.guideSelfie : hintText(m, hint != null ? hint : "no_card") }) }) : null,
    /* @__PURE__ */ jsx(View, { style: p.styles.bottom, children: /* @__PURE__ */ jsx(
      TouchableOpacity,
      {
        accessibilityRole: "button",
        accessibilityLabel: m.captureButton,
        testID: "tmb-shutter",
        disabled: busy,
        onPress: () => void shoot(),
        style: [p.styles.shutter, { backgroundColor: cam.captureButtonColor }]
      }
    ) }),
    p.close
  ] });
}
function Button(p) {
  return /* @__PURE__ */ jsx(TouchableOpacity, { accessibilityRole: "button", testID: p.testID, onPress: p.onPress, style: p.secondary ? p.style.btn2 : p.style.btn, children: /* @__PURE__ */ jsx(Text, { style: p.secondary ? p.style.btn2Text : p.style.btnText, children: p.label }) });
}
function makeStyles(t) {
  const { backgroundColor: bg, textColor: text, primaryColor: primary, secondaryColor: secondary, buttonTextColor: buttonText } = t;
  return StyleSheet.create({
    screen: { flex: 1, backgroundColor: bg, alignItems: "center", justifyContent: "center", padding: 24 },
    cam: { flex: 1, backgroundColor: "#000" },
    h1: { color: text, fontSize: 22, fontWeight: "700", textAlign: "center", marginBottom: 8 },
    p: { color: text, fontSize: 16, textAlign: "center", marginBottom: 16, opacity: 0.85 },
    logo: { height: 48, width: 200, marginBottom: 16 },
    hero: { width: 240, height: 160, marginBottom: 16 },
    btn: { backgroundColor: primary, borderRadius: 999, paddingVertical: 13, paddingHorizontal: 28, margin: 6 },
    btnText: { color: buttonText, fontSize: 16, fontWeight: "600", textAlign: "center" },
    btn2: { backgroundColor: secondary, borderRadius: 999, paddingVertical: 13, paddingHorizontal: 28, margin: 6 },
    btn2Text: { color: text, fontSize: 16, fontWeight: "600", textAlign: "center" },
    row: { flexDirection: "row", flexWrap: "wrap", justifyContent: "center" },
    reviewId: { width: 295, height: 186, borderRadius: 10, marginBottom: 16 },
    reviewSelfie: { width: 200, height: 250, borderRadius: 10, marginBottom: 16 },
    top: { position: "absolute", top: 40, left: 56, right: 56 },
    camTitle: { color: "#fff", fontSize: 19, fontWeight: "700", textAlign: "center" },
    camText: { color: "#fff", fontSize: 15, textAlign: "center" },
    guide: { position: "absolute", left: 24, right: 24, alignItems: "center" },
    guideText: { color: "#fff", fontSize: 15, fontWeight: "600", backgroundColor: "rgba(0,0,0,0.55)", paddingVertical: 6, paddingHorizontal: 12, borderRadius: 999, overflow: "hidden" },
    bottom: { position: "absolute", bottom: 32, left: 0, right: 0, alignItems: "center" },
    shutter: { width: 68, height: 68, borderRadius: 34, borderWidth: 5, borderColor: "rgba(255,255,255,0.6)" },
    close: { position: "absolute", top: 36, right: 12, width: 36, height: 36, borderRadius: 18, backgroundColor: "rgba(0,0,0,0.35)", alignItems: "center", justifyContent: "center" },
    closeText: { color: "#fff", fontSize: 20 }
  });
}
export {
  SdkError,
  ServiceVerification
};
