// The React Native component (sdk/react-native) under react-test-renderer,
// with react-native and its native modules replaced by test doubles
// (test/mocks: the camera's photos are the synthetic captures' files),
// and its network flow against a real tambua serve: SDK token from the
// client's backend (generateSdkToken), refresh, workflow, submission,
// verdict.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import React from 'react';
import TestRenderer, { act } from 'react-test-renderer';
import { ServiceVerification } from '../.build/react-native.mjs';
import { startServer, makeCaptures, e2eWorkflow, backendSdkToken, readPGM, lumaPlane } from './helpers.mjs';

globalThis.IS_REACT_ACT_ENVIRONMENT = true;

/** Width and height from a JPEG's start-of-frame marker. */
function jpegSize(path) {
  const b = readFileSync(path);
  for (let i = 2; i < b.length; ) {
    const marker = b[i + 1];
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    i += 2 + len;
  }
  throw new Error(`no SOF in ${path}`);
}

let server;
let cam;
let cameraDir;
let wf;

before(async () => {
  cam = makeCaptures(11, 'kenya_national_id');
  cameraDir = cam;
  server = await startServer();
  wf = e2eWorkflow(server, 'E2E react native');
});

after(async () => {
  await server?.stop();
});

/** The camera double's state: permission, and the photos it hands out in turn. */
function camera(permission, files) {
  const photos = files.map((f) => ({ path: join(cam, f), ...jpegSize(join(cam, f)) }));
  globalThis.__tmbCamera = {
    permission,
    requests: 0,
    crops: [],
    photoOptions: [],
    taken: 0,
    next() {
      return photos[this.taken++ % photos.length];
    },
  };
  return globalThis.__tmbCamera;
}

/** Renders the component; returns the renderer and the callbacks' log. */
async function mount(props) {
  const events = [];
  let r;
  await act(async () => {
    r = TestRenderer.create(
      React.createElement(ServiceVerification, {
        onSuccess: (x) => events.push(['success', x]),
        onError: (e) => events.push(['error', e]),
        onCancel: () => events.push(['cancel']),
        onStepChange: (s) => events.push(['step', s.name]),
        ...props,
      }),
    );
  });
  return { r, events };
}

const byId = (r, id) => r.root.findAll((n) => n.props.testID === id && typeof n.type === 'string');
const text = (node) =>
  node
    .findAll((n) => n.type === 'Text')
    .map((n) => n.props.children)
    .flat()
    .join(' ');

/** Waits (in act) until a testID is rendered. */
async function waitFor(r, id, ms = 60_000) {
  const until = Date.now() + ms;
  while (byId(r, id).length === 0) {
    if (Date.now() > until) throw new Error(`${id} never rendered; tree: ${JSON.stringify(r.toJSON()).slice(0, 400)}`);
    await act(() => new Promise((res) => setTimeout(res, 50)));
  }
  return byId(r, id)[0];
}

async function press(r, id) {
  const n = await waitFor(r, id, 10_000);
  await act(async () => n.props.onPress());
}

// A phone held upright: 390 x 844 points.
const phone = { x: 0, y: 0, width: 390, height: 844 };

async function shoot(r, step) {
  const view = await waitFor(r, `tmb-capture-${step}`);
  await act(async () => view.props.onLayout({ nativeEvent: { layout: phone } }));
  await press(r, 'tmb-shutter');
  return waitFor(r, `tmb-review-${step}`);
}

test('a complete verification: token from the backend, the workflow, three captures, onSuccess with the verdict', async () => {
  const cam = camera('granted', ['front.jpg', 'back.jpg', 'selfie.jpg']);
  const token = await backendSdkToken(server, wf.work_flow_id);
  const customization = {
    landing: { tagline: 'From props', backgroundImage: 'https://shop.example/bg.jpg', heroImage: 'https://shop.example/hero.png' },
    theme: { secondaryColor: '#123456' },
    messages: { continueButton: 'Next' },
  };
  const { r, events } = await mount({ token, language: 'en', customization });
  const landing = await waitFor(r, 'tmb-landing');
  assert.match(text(landing), /Verify in the app/, 'react_native_sdk_configs title over the default');
  assert.match(text(landing), /From props/, 'props where the workflow says nothing');
  assert.equal(landing.type, 'ImageBackground', 'landing.backgroundImage behind the landing page');
  assert.equal(landing.props.source.uri, 'https://shop.example/bg.jpg');
  assert.equal(byId(r, 'tmb-hero')[0]?.props.source.uri, 'https://shop.example/hero.png');
  await press(r, 'tmb-start');
  // The spec's capture quality: the camera asked for its best photo.
  assert.equal(r.root.find((n) => n.type === 'Camera').props.photoQualityBalance, 'quality');
  for (const step of ['id_front', 'id_back', 'selfie']) {
    const review = await shoot(r, step);
    if (step !== 'selfie') assert.match(text(review), /Next/, 'messages from props');
    assert.equal(byId(r, 'tmb-retake')[0].props.style.backgroundColor, '#123456', 'theme.secondaryColor on the secondary button');
    await press(r, 'tmb-continue');
  }
  assert.deepEqual(cam.photoOptions.map((o) => o.qualityPrioritization), ['quality', 'quality', 'quality']);
  await waitFor(r, 'tmb-done', 150_000);
  const ok = events.find((e) => e[0] === 'success');
  assert.ok(ok, JSON.stringify(events.filter((e) => e[0] === 'error').map((e) => e[1].message)));
  const result = ok[1];
  console.log(`react native: verdict ${result.verification_decision} (${result.status}) ${JSON.stringify(result.decision_reasons)}`);
  assert.ok(['success', 'pending', 'failed'].includes(result.status));
  assert.match(result.verification_id, /^[0-9a-f]{32}$/);
  // The same person in the photo and the selfie.
  assert.equal(result.face_match?.match, true);
  assert.deepEqual(
    events.filter((e) => e[0] === 'step').map((e) => e[1]),
    ['landing', 'id_front', 'review', 'id_back', 'review', 'selfie', 'review', 'submitting', 'complete'],
  );
  // Crops from the real photo dimensions, at the spec's output sizes and quality.
  assert.equal(cam.crops.length, 3);
  for (const [i, c] of cam.crops.entries()) {
    const want = i < 2 ? { width: 590, height: 372 } : { width: 590, height: 738 };
    assert.deepEqual(c.displaySize, want);
    assert.equal(c.quality, 0.95);
    assert.ok(c.offset.x >= 0 && c.offset.y >= 0 && c.size.width > 0 && c.size.height > 0);
    const photo = jpegSize(c.uri.replace('file://', ''));
    const [pw, ph] = phone.height > phone.width === photo.height > photo.width ? [photo.width, photo.height] : [photo.height, photo.width];
    assert.ok(c.offset.x + c.size.width <= pw && c.offset.y + c.size.height <= ph, 'inside the photo');
    if (i < 2) assert.ok(Math.abs(c.size.width / c.size.height - 85.6 / 53.98) < 0.02, 'ID-1 proportions');
    else assert.ok(Math.abs(c.size.width / c.size.height - 0.8) < 0.02, 'the oval box, 0.8');
  }
  await act(async () => r.unmount());
});

test('a denied camera permission: CAMERA_PERMISSION_DENIED and a clear screen, not a verdict', async () => {
  const cam = camera('denied', ['front.jpg']);
  const token = await backendSdkToken(server, wf.work_flow_id);
  const { r, events } = await mount({ token, language: 'sw' });
  await press(r, 'tmb-start');
  const denied = await waitFor(r, 'tmb-denied');
  assert.equal(cam.requests, 1);
  assert.deepEqual(events.filter((e) => e[0] === 'error').map((e) => e[1].code), ['CAMERA_PERMISSION_DENIED']);
  assert.match(text(denied), /Ruhusa ya kamera/, 'Kiswahili');
  assert.match(text(denied), /mipangilio ya simu/, "the app's text: the phone's settings");
  assert.doesNotMatch(text(denied), /kivinjari|chagua picha/, 'no browser, no photo to choose in the app');
  assert.ok(!events.some((e) => e[0] === 'success'));
  await press(r, 'tmb-cancel');
  assert.ok(events.some((e) => e[0] === 'cancel'));
  await act(async () => r.unmount());
});

test('a device without a camera: a clear screen after a moment, not an error; the holder can leave', async () => {
  const cam = camera('granted', ['front.jpg']);
  cam.devices = [];
  const token = await backendSdkToken(server, wf.work_flow_id);
  const { r, events } = await mount({ token, language: 'en' });
  await press(r, 'tmb-start');
  await waitFor(r, 'tmb-capture-id_front');
  const screen = await waitFor(r, 'tmb-nocamera', 5_000);
  assert.match(text(screen), /No camera found/);
  assert.match(text(screen), /no camera the app can use/);
  assert.ok(!events.some((e) => e[0] === 'error'), 'no camera is not an error');
  await press(r, 'tmb-cancel');
  assert.ok(events.some((e) => e[0] === 'cancel'));
  await act(async () => r.unmount());
});

test('a bad token: INVALID_JWT, no request, the neutral error screen', async () => {
  camera('granted', ['front.jpg']);
  const { r, events } = await mount({ token: 'not-a-jwt', language: 'fr' });
  const screen = await waitFor(r, 'tmb-error');
  assert.deepEqual(events.map((e) => (e[0] === 'error' ? e[1].code : e[0])), ['INVALID_JWT']);
  assert.doesNotMatch(text(screen), /échou|rejet/i, 'an error is not shown as a failed verification');
  await act(async () => r.unmount());
});

test('a refresh token the server refuses: TOKEN_REFRESH_FAILED from the real server', async () => {
  camera('granted', ['front.jpg']);
  const good = await backendSdkToken(server, wf.work_flow_id);
  const [h, c, s] = good.split('.');
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
  claims.refresh_token = claims.refresh_token.slice(0, -4) + 'AAAA';
  const forged = [h, Buffer.from(JSON.stringify(claims)).toString('base64url'), s].join('.');
  const { r, events } = await mount({ token: forged, language: 'en' });
  await waitFor(r, 'tmb-error');
  const err = events.find((e) => e[0] === 'error')?.[1];
  assert.equal(err?.code, 'TOKEN_REFRESH_FAILED');
  assert.equal(err?.serverCode, 401);
  await act(async () => r.unmount());
});

/**
 * A VisionCamera 'yuv' frame of a scene as a landscape sensor delivers it
 * under an upright screen: its Y plane turned a quarter (orientation
 * landscape-left), then chroma.
 */
function cameraFrame(img) {
  const p = lumaPlane(img, 1);
  const buf = new Uint8Array(p.data.length + p.data.length / 2).fill(128);
  buf.set(p.data);
  return { isValid: true, width: p.width, height: p.height, bytesPerRow: p.stride, pixelFormat: 'yuv', orientation: 'landscape-left', toArrayBuffer: () => buf.buffer };
}

const blur = (img, r) => {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let dy = -r; dy <= r; dy++)
        for (let dx = -r; dx <= r; dx++)
          if (x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h) (s += data[(y + dy) * w + x + dx]), n++;
      out[y * w + x] = Math.round(s / n);
    }
  return { width: w, height: h, data: out };
};

test('live guidance from the frame processor: a blurred card is told so and not shot; a sharp, steady card is shot by itself', async () => {
  const cam = camera('granted', ['front.jpg', 'back.jpg', 'selfie.jpg']);
  const token = await backendSdkToken(server, wf.work_flow_id);
  const scenes = cameraDir;
  const { r } = await mount({ token, language: 'en' });
  await press(r, 'tmb-start');
  const view = await waitFor(r, 'tmb-capture-id_front');
  // A tablet held landscape, the scene's own shape: the ID frame sits on
  // the card as the fake camera's scenes are drawn.
  const scene = readPGM(join(scenes, 'scene-front.pgm'));
  await act(async () => view.props.onLayout({ nativeEvent: { layout: { x: 0, y: 0, width: scene.width, height: scene.height } } }));
  const cameraEl = () => r.root.find((n) => n.type === 'Camera');
  assert.equal(cameraEl().props.pixelFormat, 'yuv');
  const send = async (img) => act(async () => cameraEl().props.frameProcessor.frameProcessor(cameraFrame(img)));
  const guide = () => text(byId(r, 'tmb-guide')[0]);
  const blurred = blur(scene, 4);
  for (let i = 0; i < 5; i++) await send(blurred);
  assert.equal(guide(), 'Hold still: the picture is blurry');
  assert.equal(cam.taken, 0, 'a blurred card is not shot');
  await send(scene);
  const hints = [];
  for (let i = 0; i < 4 && byId(r, 'tmb-review-id_front').length === 0; i++) {
    hints.push(guide());
    await send(scene);
  }
  await waitFor(r, 'tmb-review-id_front', 10_000);
  assert.equal(cam.taken, 1, 'one shot, taken by itself');
  assert.ok(hints.some((h) => /steady/i.test(h)), `hold steady shown before the shot: ${JSON.stringify(hints)}`);
  assert.deepEqual(cam.crops[0].displaySize, { width: 590, height: 372 });
  // The shutter is still there for a retake by hand.
  await press(r, 'tmb-retake');
  await waitFor(r, 'tmb-capture-id_front');
  assert.equal(byId(r, 'tmb-shutter').length, 1);
  await act(async () => r.unmount());
});

test('frame turns from VisionCamera orientations, and from the shape without one', async () => {
  const { frameTurns } = await import('../.build/core.mjs');
  assert.deepEqual(['portrait', 'landscape-left', 'portrait-upside-down', 'landscape-right'].map((o) => frameTurns(o, 1920, 1080, 390, 844)), [0, 1, 2, 3]);
  assert.equal(frameTurns(undefined, 1920, 1080, 390, 844), 1);
  assert.equal(frameTurns(undefined, 1920, 1080, 844, 390), 0);
});
