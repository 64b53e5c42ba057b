// Unit tests of the shared core (sdk/core): the SDK token, the
// configuration priority, the selfie rule, texts, the result mapping, the
// /postdata client's refresh and retry rules, and the payload encoding
// (a golden file the server's decoder reads in its own test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import {
  ApiClient,
  SdkError,
  VerificationSession,
  buildPayload,
  captureSteps,
  compressPayload,
  decodeSdkToken,
  defaultCustomization,
  encodeBase64,
  decodeBase64,
  languages,
  messagesFor,
  needsSelfie,
  pickLanguage,
  resolveCustomization,
  texts,
  toResult,
  idFrameRect,
  selfieOutput,
  viewRectToSource,
  ID_RATIO,
} from '../.build/core.mjs';
import { sdkDir } from './helpers.mjs';

const b64url = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const claims = {
  workflowId: 'wf_1',
  clientId: 'cl_1',
  organisationId: 7,
  apiUrl: 'https://idv.example/postdata',
  refresh_token: 'rt.rt.rt',
  config: 'kenya_national_id',
  iat: now - 10,
  exp: now + 3600,
};
const jwt = (c, header = { alg: 'HS256', typ: 'JWT' }) => `${b64url(header)}.${b64url(c)}.c2lnbmF0dXJl`;

test('decodeSdkToken reads the spec claims', () => {
  assert.deepEqual(decodeSdkToken(jwt(claims)), claims);
  // An organisationId sent as a numeric string is accepted as its integer.
  assert.equal(decodeSdkToken(jwt({ ...claims, organisationId: '7' })).organisationId, 7);
  // config is optional.
  const { config, ...noConfig } = claims;
  assert.equal(decodeSdkToken(jwt(noConfig)).config, '');
});

test('decodeSdkToken refuses what is not a usable SDK token with INVALID_JWT', () => {
  const cases = {
    'not a string': 42,
    'two parts': `${b64url({})}.${b64url(claims)}`,
    'an empty part': `${b64url({})}..sig`,
    'not base64url': `${b64url({})}.${b64url(claims)}+/.sig`,
    'claims not JSON': `${b64url({})}.${Buffer.from('{nope').toString('base64url')}.sig`,
    'claims an array': jwt([1, 2]),
    'no workflowId': jwt({ ...claims, workflowId: undefined }),
    'empty clientId': jwt({ ...claims, clientId: '' }),
    'no refresh_token': jwt({ ...claims, refresh_token: undefined }),
    'organisationId not an integer': jwt({ ...claims, organisationId: 1.5 }),
    'organisationId zero': jwt({ ...claims, organisationId: 0 }),
    'exp missing': jwt({ ...claims, exp: undefined }),
    expired: jwt({ ...claims, exp: now - 1 }),
    'apiUrl not a URL': jwt({ ...claims, apiUrl: 'postdata' }),
    'apiUrl not http': jwt({ ...claims, apiUrl: 'javascript:alert(1)' }),
    'config not a string': jwt({ ...claims, config: 3 }),
    huge: 'a'.repeat(20000),
  };
  for (const [name, tok] of Object.entries(cases)) {
    assert.throws(() => decodeSdkToken(tok), (e) => e instanceof SdkError && e.code === 'INVALID_JWT', name);
  }
});

test('base64 round trip, standard and URL-safe', () => {
  for (let n = 0; n < 70; n++) {
    const b = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
    const s = encodeBase64(b);
    assert.equal(s, Buffer.from(b).toString('base64'));
    assert.deepEqual(decodeBase64(s), b);
    assert.deepEqual(decodeBase64(Buffer.from(b).toString('base64url')), b);
  }
  assert.throws(() => decodeBase64('ab$d'));
});

test('configuration priority: SDK defaults < props < workflow', () => {
  const defaults = defaultCustomization('en');
  const props = {
    theme: { primaryColor: '#111111', accentColor: '#abcdef', textColor: '' },
    landing: { heroMessage: 'From props', getStartedButtonText: 'Go' },
    messages: { retakeButton: 'Again', notAKey: 'x' },
    camera: { idFrameColor: '#00ff00' },
  };
  const workflow = { title: 'From the workflow', tagline: 'Workflow tagline', logo: 'https://x.example/logo.png', colors: { primary: '#222222', background: '#fafafa' } };
  const c = resolveCustomization(defaults, props, workflow);
  assert.equal(c.theme.primaryColor, '#222222', 'the workflow overrides props');
  assert.equal(c.theme.accentColor, '#abcdef', 'props override defaults');
  assert.equal(c.theme.textColor, defaults.theme.textColor, 'an empty string never blanks a default');
  assert.equal(c.theme.backgroundColor, '#fafafa');
  assert.equal(c.landing.heroMessage, 'From the workflow');
  assert.equal(c.landing.tagline, 'Workflow tagline');
  assert.equal(c.landing.logoUrl, 'https://x.example/logo.png');
  assert.equal(c.landing.getStartedButtonText, 'Go');
  assert.equal(c.messages.retakeButton, 'Again');
  assert.equal(c.messages.continueButton, defaults.messages.continueButton);
  assert.ok(!('notAKey' in c.messages), 'unknown keys are dropped');
  assert.equal(c.camera.idFrameColor, '#00ff00');
  // Without a workflow config, props win over defaults.
  assert.equal(resolveCustomization(defaults, props, null).landing.heroMessage, 'From props');
  // Every spec key exists in each group.
  const spec = {
    theme: ['primaryColor', 'secondaryColor', 'accentColor', 'backgroundColor', 'textColor', 'buttonTextColor'],
    landing: ['backgroundImage', 'logoUrl', 'heroMessage', 'tagline', 'getStartedButtonText'],
    messages: ['idFrontTitle', 'idFrontSubtitle', 'idBackTitle', 'idBackSubtitle', 'selfieTitle', 'selfieSubtitle', 'reviewTitle', 'startVerificationButton', 'retakeButton', 'continueButton'],
    camera: ['idFrameColor', 'selfieOutlineColor', 'captureButtonColor'],
  };
  for (const [g, keys] of Object.entries(spec)) for (const k of keys) assert.ok(k in c[g], `${g}.${k}`);
});

test('the selfie rule', () => {
  const s = (...names) => names.map((name, i) => ({ name, order: i + 1, required: true }));
  assert.deepEqual(captureSteps(s('ocr_extraction')), ['id_front', 'id_back']);
  assert.deepEqual(captureSteps(s('ocr_extraction', 'document_authenticity', 'aml_screening')), ['id_front', 'id_back']);
  for (const face of ['face_matching', 'liveness_detection', 'age_verification']) {
    assert.ok(needsSelfie(s('ocr_extraction', face)), face);
    assert.deepEqual(captureSteps(s(face)), ['id_front', 'id_back', 'selfie']);
  }
});

test('texts in English, Kiswahili and French, chosen from the device language', () => {
  assert.equal(pickLanguage(['sw-KE', 'en']), 'sw');
  assert.equal(pickLanguage(['fr-CA']), 'fr');
  assert.equal(pickLanguage(['de-DE', 'fr']), 'fr', 'the first supported language in the list');
  assert.equal(pickLanguage(['de-DE']), 'en');
  assert.equal(pickLanguage([]), 'en');
  assert.equal(pickLanguage(undefined), 'en');
  const keys = Object.keys(texts.en);
  for (const lang of languages) {
    assert.deepEqual(Object.keys(texts[lang]).sort(), [...keys].sort(), `${lang} has every text`);
    for (const k of keys) assert.ok(typeof texts[lang][k] === 'string' && texts[lang][k].trim() !== '', `${lang}.${k}`);
  }
  // Translated, not copied: most texts differ from English.
  for (const lang of ['sw', 'fr']) {
    const same = keys.filter((k) => texts[lang][k] === texts.en[k]);
    assert.ok(same.length <= 2, `${lang} repeats English in ${same}`);
  }
  assert.equal(messagesFor('sw').retakeButton, texts.sw.retakeButton);
});

test('the result: status and verdict from verification_decision, the spec fields', () => {
  const raw = {
    idv_unique_id: '0123456789abcdef0123456789abcdef',
    verification_decision: 'accept',
    decision_reasons: [],
    combined: { full_name: 'JOHN JUMA', national_id_number: '8188056', date_of_birth: '1985-05-29', place_of_birth: 'SIAYA', sex: 'M' },
    photo_comparison: { match: true, similarity: 0.91 },
    liveness_detection: { liveness: true, confidence: 0.88 },
    images: { selfie: 'https://files.example/s.jpg' },
  };
  const r = toResult(raw);
  assert.equal(r.status, 'success');
  assert.equal(r.verification_decision, 'accept');
  assert.equal(r.verification_id, raw.idv_unique_id);
  assert.deepEqual(r.extracted_data, { full_name: 'JOHN JUMA', id_number: '8188056', date_of_birth: '1985-05-29', place_of_birth: 'SIAYA', gender: 'M' });
  assert.deepEqual(r.face_match, { match: true, confidence: 0.91 });
  assert.deepEqual(r.liveness, { is_live: true, confidence: 0.88 });
  assert.equal(r.selfie_url, 'https://files.example/s.jpg');
  assert.equal(toResult({ verification_decision: 'review' }).status, 'pending');
  assert.equal(toResult({ verification_decision: 'reject' }).status, 'failed');
  assert.throws(() => toResult({ status: 'success' }), /verification_decision/);
});

test('geometry: the ID frame is ID-1, crops map to the photo, the selfie output keeps 0.8', () => {
  for (const [w, h] of [[960, 540], [390, 844], [1920, 1080], [320, 480]]) {
    const r = idFrameRect(w, h);
    assert.ok(Math.abs(r.width / r.height - ID_RATIO) < 1e-9);
    assert.ok(r.x >= 0 && r.y >= 0 && r.x + r.width <= w && r.y + r.height <= h, `${w}x${h}`);
  }
  // A 4000 x 3000 photo shown "cover" on a 400 x 800 portrait view: the
  // view shows the middle 1500 x 3000 of it, at 1 / 3.75.
  const src = viewRectToSource({ x: 20, y: 100, width: 360, height: 227 }, 4000, 3000, 400, 800);
  assert.deepEqual(src, { x: 1325, y: 375, width: 1350, height: 851 });
  assert.deepEqual(selfieOutput(), { width: 590, height: 738 });
});

/** Inflates a payload with Node's zlib, a decoder independent of fflate. */
const inflate = (wire) => JSON.parse(inflateRawSync(Buffer.from(wire, 'base64')).toString('utf8'));

const goldenPath = join(sdkDir, 'test/testdata/payload.json');

test('payload: raw deflate level 9 and base64, the golden file the server decodes', () => {
  // Capture-like data URLs: bytes that do not compress (like JPEG), and non-ASCII text.
  const bytes = (n, seed) => Buffer.from(Array.from({ length: n }, (_, i) => ((i + seed) * 2654435761) >>> 24)).toString('base64');
  const p = buildPayload({
    clientId: 'cl_1',
    workflowId: 'wf_1',
    captures: { id_front: `data:image/jpeg;base64,${bytes(3000, 1)}`, id_back: `data:image/jpeg;base64,${bytes(2000, 2)}`, selfie: `data:image/jpeg;base64,${bytes(1000, 3)}` },
    requestId: 'ab'.repeat(16),
    config: 'Carte d’identité – Ñandú 🇰🇪',
  });
  const wire = compressPayload(p);
  assert.notEqual(Buffer.from(wire, 'base64')[0], 0x78, 'raw deflate, not a zlib stream');
  assert.deepEqual(inflate(wire), p);
  assert.deepEqual(Object.keys(p).sort(), ['client_id', 'config', 'id_back_image_url', 'id_front_image_url', 'request_id', 'selfie_image_url', 'work_flow_id']);
  // server/sdkpayload_internal_test.go decodes this file with the
  // server's decoder; here the SDK must still produce its exact bytes.
  if (process.env.UPDATE) writeFileSync(goldenPath, JSON.stringify({ payload: p, wire }, null, 1) + '\n');
  const golden = JSON.parse(readFileSync(goldenPath, 'utf8'));
  assert.deepEqual(golden.payload, p);
  assert.equal(wire, golden.wire, 'the SDK compresses as when the golden file was written (UPDATE=1 rewrites it)');
  // No selfie in the payload when the workflow needs none.
  const noSelfie = buildPayload({ clientId: 'c', workflowId: 'w', captures: { id_front: 'a', id_back: 'b' }, requestId: 'r' });
  assert.ok(!('selfie_image_url' in noSelfie));
  assert.deepEqual(inflate(compressPayload(noSelfie)), noSelfie);
});

// A scripted transport: each answer is [status, body] or 'drop' (the
// connection fails). It records what was sent. The rules under test are
// the client's, so the server's side is played here; the end-to-end tests
// run the same client against a real server.
function scripted(answers) {
  const calls = [];
  const fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    calls.push({ method: body.method, auth: init.headers.Authorization, body });
    const a = answers.shift();
    if (a === undefined) throw new Error(`unexpected call ${body.method}`);
    if (a === 'drop') throw new TypeError('Failed to fetch');
    return { status: a[0], text: async () => (typeof a[1] === 'string' ? a[1] : JSON.stringify(a[1])) };
  };
  return { fetch, calls };
}
const tokenOK = (t) => [200, { access_token: t, token_type: 'Bearer', expires_in: 3600 }];
const expired = [401, { v_field39: 401, v_field48: 'invalid or expired token' }];
const workflowOK = [200, { workflow: { id: 'wf_1', name: 'W', steps: [{ name: 'ocr_extraction', order: 1, required: true }, { name: 'face_matching', order: 2, required: true }] } }];
const decoded = decodeSdkToken(jwt(claims));

test('an expired access token is refreshed once and the call retried once', async () => {
  const { fetch, calls } = scripted([tokenOK('a1'), expired, tokenOK('a2'), workflowOK]);
  const api = new ApiClient(decoded, fetch);
  await api.refresh();
  const w = await api.getWorkflow();
  assert.deepEqual(w.steps.map((s) => s.name), ['ocr_extraction', 'face_matching']);
  assert.deepEqual(calls.map((c) => c.method), ['refreshAccessToken', 'getWorkflowById', 'refreshAccessToken', 'getWorkflowById']);
  assert.deepEqual(calls.map((c) => c.auth), [undefined, 'Bearer a1', undefined, 'Bearer a2']);
  assert.equal(calls[0].body.refresh_token, claims.refresh_token);
  assert.equal(calls[0].body.organisationId, 7);
  assert.equal(calls[0].body.rpcQueue, 'idv-gateway-v2');
  assert.equal(calls[0].body.menu, 'auth_config');
  assert.equal(calls[1].body.menu, 'flow');
  assert.equal(calls[1].body.work_flow_id, 'wf_1');
});

test('a token refused again after the refresh is TOKEN_REFRESH_FAILED, with no second refresh', async () => {
  const { fetch, calls } = scripted([tokenOK('a1'), expired, tokenOK('a2'), expired]);
  const api = new ApiClient(decoded, fetch);
  await api.refresh();
  await assert.rejects(api.getWorkflow(), (e) => e.code === 'TOKEN_REFRESH_FAILED' && e.serverCode === 401);
  assert.equal(calls.filter((c) => c.method === 'refreshAccessToken').length, 2);
});

test('a refused refresh token is TOKEN_REFRESH_FAILED; a missing workflow WORKFLOW_FETCH_FAILED', async () => {
  let s = scripted([expired]);
  await assert.rejects(new ApiClient(decoded, s.fetch).refresh(), (e) => e.code === 'TOKEN_REFRESH_FAILED');
  s = scripted([tokenOK('a1'), [404, { v_field39: 404, v_field48: 'workflow not found' }]]);
  const api = new ApiClient(decoded, s.fetch);
  await api.refresh();
  await assert.rejects(api.getWorkflow(), (e) => e.code === 'WORKFLOW_FETCH_FAILED' && e.message === 'workflow not found');
  s = scripted([tokenOK('a1'), [200, { workflow: { id: 'wf_1' } }]]);
  const api2 = new ApiClient(decoded, s.fetch);
  await api2.refresh();
  await assert.rejects(api2.getWorkflow(), (e) => e.code === 'WORKFLOW_FETCH_FAILED', 'an answer without steps');
});

test('a dropped connection on submit is retried once with the same payload, never twice', async () => {
  const verdict = [200, { idv_unique_id: 'x'.repeat(32), verification_decision: 'accept' }];
  let s = scripted([tokenOK('a1'), 'drop', verdict]);
  let api = new ApiClient(decoded, s.fetch);
  await api.refresh();
  assert.equal((await api.submit('PAYLOAD')).verification_decision, 'accept');
  const submits = s.calls.filter((c) => c.method === 'submitVerification');
  assert.equal(submits.length, 2);
  assert.equal(submits[1].body.payload, submits[0].body.payload, 'the same payload, so the same request_id');
  s = scripted([tokenOK('a1'), 'drop', 'drop']);
  api = new ApiClient(decoded, s.fetch);
  await api.refresh();
  await assert.rejects(api.submit('PAYLOAD'), (e) => e.code === 'VERIFICATION_FAILED');
  assert.equal(s.calls.filter((c) => c.method === 'submitVerification').length, 2);
});

test('an HTTP error is a result, not retried; 230 (nothing ran) is retried once', async () => {
  let s = scripted([tokenOK('a1'), [500, { v_field39: 500, v_field48: 'internal error' }]]);
  let api = new ApiClient(decoded, s.fetch);
  await api.refresh();
  await assert.rejects(api.submit('P'), (e) => e.code === 'VERIFICATION_FAILED' && e.serverCode === 500 && e.status === 500);
  assert.equal(s.calls.length, 2);
  s = scripted([tokenOK('a1'), [502, '<html>bad gateway</html>']]);
  api = new ApiClient(decoded, s.fetch);
  await api.refresh();
  await assert.rejects(api.submit('P'), (e) => e.code === 'VERIFICATION_FAILED' && e.message === 'HTTP 502');
  const busy = [503, { v_field39: 230, v_field48: 'no worker free' }];
  s = scripted([tokenOK('a1'), busy, busy]);
  api = new ApiClient(decoded, s.fetch);
  await api.refresh();
  await assert.rejects(api.submit('P'), (e) => e.serverCode === 230);
  assert.equal(s.calls.filter((c) => c.method === 'submitVerification').length, 2);
});

test('the session: callbacks, step changes, the selfie rule and errors', async () => {
  const events = [];
  const cb = {
    onSuccess: (r) => events.push(['success', r.status]),
    onError: (e) => events.push(['error', e.code]),
    onCancel: () => events.push(['cancel']),
    onStepChange: (s) => events.push(['step', s.name]),
  };
  // A bad token: INVALID_JWT through onError, no request sent.
  let s = scripted([]);
  let session = new VerificationSession({ token: 'nope', language: 'en', platform: 'web', fetch: s.fetch, ...cb });
  await assert.rejects(session.start());
  assert.deepEqual(events, [['error', 'INVALID_JWT']]);
  assert.equal(s.calls.length, 0);

  events.length = 0;
  const wf = structuredClone(workflowOK);
  wf[1].workflow.web_sdk_configs = { title: 'Branded' };
  wf[1].workflow.react_native_sdk_configs = { title: 'App' };
  s = scripted([tokenOK('a1'), wf, [200, { idv_unique_id: 'y'.repeat(32), verification_decision: 'review' }]]);
  session = new VerificationSession({ token: jwt(claims), language: 'fr', platform: 'web', fetch: s.fetch, customization: { landing: { heroMessage: 'Props' } }, ...cb });
  await session.start();
  assert.deepEqual(session.steps, ['id_front', 'id_back', 'selfie']);
  assert.equal(session.customization.landing.heroMessage, 'Branded', 'web_sdk_configs for the web');
  assert.equal(session.customization.messages.retakeButton, texts.fr.retakeButton);
  session.setCapture('id_front', 'data:image/jpeg;base64,AA==');
  session.setCapture('id_back', 'data:image/jpeg;base64,AQ==');
  await assert.rejects(session.submit(), (e) => e.code === 'VERIFICATION_FAILED', 'the selfie is missing');
  session.setCapture('selfie', 'data:image/jpeg;base64,Ag==');
  const r = await session.submit();
  assert.equal(r.status, 'pending');
  const sent = inflate(s.calls.at(-1).body.payload);
  assert.equal(sent.selfie_image_url, 'data:image/jpeg;base64,Ag==');
  assert.equal(sent.work_flow_id, 'wf_1');
  assert.equal(sent.config, 'kenya_national_id');
  session.cancel();
  assert.deepEqual(events, [['step', 'landing'], ['error', 'VERIFICATION_FAILED'], ['step', 'submitting'], ['step', 'complete'], ['success', 'pending']], 'no onCancel after the end');
});

test("hand-off: the desktop session polls; the phone's result completes it once, errors are thrown not reported", async () => {
  const events = [];
  const cb = { onSuccess: (r) => events.push(['success', r.verification_id, r.status]), onError: (e) => events.push(['error', e.code]), onStepChange: (s) => events.push(['step', s.name]) };
  const qr = 'data:image/png;base64,iVBORw0KGgo=';
  const result = { idv_unique_id: 'h'.repeat(32), verification_decision: 'accept' };
  const s = scripted([
    tokenOK('a1'),
    workflowOK,
    [200, { handoff_token: 'h.t.k', handoff_url: 'https://idv.example/handoff#h.t.k', qr_code: qr, expires_in: 600 }],
    [200, { state: 'waiting', expires_in: 590 }],
    'drop',
    [200, { state: 'opened', expires_in: 500 }],
    [200, { state: 'completed', expires_in: 400, result }],
    [200, { state: 'completed', expires_in: 398, result }],
  ]);
  const session = new VerificationSession({ token: jwt(claims), language: 'en', platform: 'web', fetch: s.fetch, ...cb });
  await session.start();
  const h = await session.createHandoff();
  assert.deepEqual(h, { token: 'h.t.k', url: 'https://idv.example/handoff#h.t.k', qr, expiresIn: 600 });
  assert.equal(s.calls[2].body.config, 'kenya_national_id', "the desktop's document type goes to the phone");
  assert.equal(s.calls[2].auth, 'Bearer a1');
  assert.equal(await session.pollHandoff(h.token), 'waiting');
  // A dropped poll is retried once by the client's rule, then answers.
  assert.equal(await session.pollHandoff(h.token), 'opened');
  assert.equal(await session.pollHandoff(h.token), 'completed');
  assert.equal(await session.pollHandoff(h.token), 'completed');
  assert.deepEqual(s.calls.slice(3).map((c) => [c.method, c.body.handoff_token]), Array(5).fill(['getHandoffStatus', 'h.t.k']));
  assert.deepEqual(events, [['step', 'landing'], ['step', 'complete'], ['success', 'h'.repeat(32), 'success']], 'onSuccess once, with the phone’s verdict');

  // A status the client does not understand is thrown, not sent to onError.
  const bad = scripted([tokenOK('a1'), workflowOK, [200, { state: 'sideways' }]]);
  events.length = 0;
  const s2 = new VerificationSession({ token: jwt(claims), language: 'en', platform: 'web', fetch: bad.fetch, ...cb });
  await s2.start();
  await assert.rejects(s2.pollHandoff('x'), (e) => e.code === 'VERIFICATION_FAILED');
  assert.deepEqual(events, [['step', 'landing']]);
});
