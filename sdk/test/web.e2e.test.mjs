// The web SDK end to end: headless Chromium with a fake camera fed the
// synthetic captures, against a real tambua serve.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, makeCaptures, e2eWorkflow, sdkDir, freePort, postdata, signJwt, jwtClaims, sdke2e } from './helpers.mjs';

const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const shots = process.env.TAMBUA_SDK_SCREENSHOTS || join(sdkDir, '.build', 'screenshots');
const baseFlags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let server;
let cam;
let wf;
let browser;
// Two customer sites on other origins, both allowed by the server's CORS
// setting; only the shop is in the workflow's allowed_origins.
const sites = {};

/** A customer's page: loads the SDK from the server and starts it with the public ids. */
function customerSite() {
  const s = createServer((req, res) => {
    const q = new URL(req.url, 'http://x').searchParams;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><meta charset="utf-8"><title>shop</title>
<script src="${q.get('sdk')}/sdk/web.js"></script>
<script>
window.events = [];
TambuaVerification.init({
  clientId: ${JSON.stringify(q.get('client'))}, workflowId: ${JSON.stringify(q.get('wf'))},
  onStepChange: (s) => events.push(['step', s.name]),
  onFailure: (e) => events.push(['error', e.code, e.message]),
});
</script>`);
  });
  return s;
}

before(async () => {
  if (!existsSync(chromiumPath)) {
    if (process.env.CI) throw new Error(`no Chromium at ${chromiumPath}`);
    return;
  }
  mkdirSync(shots, { recursive: true });
  cam = makeCaptures(11, 'kenya_national_id');
  for (const name of ['shop', 'other']) {
    const port = await freePort();
    sites[name] = { http: customerSite(), url: `http://127.0.0.1:${port}` };
    await new Promise((r) => sites[name].http.listen(port, '127.0.0.1', r));
  }
  server = await startServer(['--cors-origins', `${sites.shop.url},${sites.other.url}`]);
  wf = e2eWorkflow(server, 'E2E web', [server.url, sites.shop.url]);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [...baseFlags, '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${join(cam, 'camera.y4m')}`],
  });
});

after(async () => {
  for (const s of Object.values(sites)) s.http.close();
  await browser?.close();
  await server?.stop();
});

// The marker patches the Go helper draws (internal/testkit/sdke2e).
const markers = { id_front: [230, 20, 20], id_back: [20, 200, 20], selfie: [20, 40, 230] };
const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) < 60);

async function reviewPixel(page, x, y) {
  return page.evaluate(
    async ([x, y]) => {
      const img = document.querySelector('.tmb-review-img');
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return { px: Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3)), w: c.width, h: c.height };
    },
    [x, y],
  );
}

async function livePixel(page, x, y) {
  return page.evaluate(
    ([x, y]) => {
      const v = document.querySelector('.tmb-video');
      if (!v || !v.videoWidth) return [0, 0, 0];
      const c = document.createElement('canvas');
      c.width = v.videoWidth;
      c.height = v.videoHeight;
      const g = c.getContext('2d');
      g.drawImage(v, 0, 0);
      return Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
    },
    [x, y],
  );
}

/** Captures one step, retaking until the shot shows the step's scene; returns how many shots it took. */
async function captureStep(page, step) {
  const deadline = Date.now() + 90_000;
  for (let shot = 1; Date.now() < deadline; shot++) {
    if (step === 'selfie') {
      // No auto-capture for a face: wait for the selfie scene, press the shutter.
      const deadline = Date.now() + 60_000;
      while (!near(await livePixel(page, 350, 94), markers.selfie)) {
        assert.ok(Date.now() < deadline, 'the selfie scene never showed');
        await page.waitForTimeout(150);
      }
      if (shot === 1) await page.screenshot({ path: join(shots, 'web-selfie-capture.png') });
      await page.click('.tmb-shutter');
    } else if (shot === 1 && step === 'id_front') {
      // The guidance, or the review when auto-capture was quicker.
      await page.waitForSelector('.tmb-guide[data-hint], .tmb-review', { timeout: 20_000 }).catch(async (e) => {
        await page.screenshot({ path: join(shots, 'failed-id-capture.png') });
        throw e;
      });
      if (await page.$('.tmb-guide[data-hint]')) await page.screenshot({ path: join(shots, 'web-id-capture.png') });
    }
    await page.waitForSelector(`.tmb-review[data-step="${step}"]`, { timeout: 30_000 });
    const at = step === 'selfie' ? [20, 20] : [10, 10];
    const { px, w, h } = await reviewPixel(page, ...at);
    assert.deepEqual([w, h], step === 'selfie' ? [590, 738] : [590, 372], 'output size');
    if (near(px, markers[step])) {
      if (step === 'id_front') await page.screenshot({ path: join(shots, 'web-review.png') });
      return shot;
    }
    if (process.env.TMB_DEBUG) console.log(step, 'shot', shot, 'marker', px, new Date().toISOString());
    await page.click('.tmb-retake');
    // Give the camera time to show the step's scene before the next shot
    // (auto-capture may still fire first; then this loop goes round again).
    const want = markers[step];
    const until = Date.now() + 8_000;
    while (Date.now() < until && (await page.$('.tmb-video')) === null) await page.waitForTimeout(50);
    while (Date.now() < until && (await page.$('.tmb-video')) !== null && !near(await livePixel(page, 203, 87), want)) await page.waitForTimeout(100);
    if (process.env.TMB_DEBUG) {
      console.log(step, 'live', await livePixel(page, 203, 87), new Date().toISOString(), await page.evaluate(() => { const v = document.querySelector('.tmb-video'); return v ? [v.videoWidth, v.readyState, v.currentTime, v.paused] : null; }));
      if (shot === 4) await page.screenshot({ path: join(shots, 'debug-retake.png') });
    }
  }
  assert.fail(`no shot of the ${step} scene in 90 s`);
}

async function openDemo(context, language = 'en') {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${server.url}/demo?client_id=${server.demo.clientId}&work_flow_id=${wf.work_flow_id}&language=${language}`);
  await page.click('#go');
  return page;
}

test('a complete verification with the fake camera ends in onSuccess with the verdict', { skip: !existsSync(chromiumPath) }, async () => {
  const context = await browser.newContext({ viewport: { width: 960, height: 540 }, permissions: ['camera'] });
  const page = await openDemo(context);
  await page.waitForSelector('.tmb-start', { timeout: 30_000 });
  assert.equal(await page.textContent('.tmb-h1'), 'Verify with Shop', "the workflow's web_sdk_configs title wins over the default");
  await page.screenshot({ path: join(shots, 'web-landing.png') });
  await page.click('.tmb-start');
  const shotsTaken = {};
  for (const step of ['id_front', 'id_back', 'selfie']) {
    shotsTaken[step] = await captureStep(page, step);
    await page.click('.tmb-continue');
  }
  await page.waitForFunction(() => window.demoEvents.some((e) => e.kind === 'success' || e.kind === 'error'), null, { timeout: 150_000 });
  const events = await page.evaluate(() => window.demoEvents);
  const done = events.find((e) => e.kind === 'success');
  assert.ok(done, `onSuccess was not called: ${JSON.stringify(events)}`);
  await page.screenshot({ path: join(shots, 'web-done.png') });
  const steps = events.filter((e) => e.kind === 'step').map((e) => e.data.name);
  for (const s of ['landing', 'id_front', 'review', 'id_back', 'selfie', 'submitting', 'complete']) assert.ok(steps.includes(s), `onStepChange ${s}`);
  console.log(`web e2e: verdict ${done.data.verification_decision} (${done.data.status}) ${JSON.stringify(done.data.decision_reasons)}, shots per step ${JSON.stringify(shotsTaken)}`);
  // The same person on the card and in the selfie, a clean card: accept.
  assert.equal(done.data.verification_decision, 'accept');
  assert.equal(done.data.status, 'success');
  assert.match(done.data.verification_id, /^[0-9a-f]{32}$/);
  await context.close();
});

test('a denied camera permission gives CAMERA_PERMISSION_DENIED and the file upload', { skip: !existsSync(chromiumPath) }, async () => {
  const context = await browser.newContext({ viewport: { width: 960, height: 540 }, permissions: [] });
  const page = await openDemo(context, 'sw');
  await page.waitForSelector('.tmb-start', { timeout: 30_000 });
  await page.click('.tmb-start');
  await page.waitForSelector('.tmb-fallback[data-problem="denied"]', { timeout: 20_000 });
  await page.screenshot({ path: join(shots, 'web-denied-sw.png') });
  const events = await page.evaluate(() => window.demoEvents);
  const err = events.find((e) => e.kind === 'error');
  assert.equal(err?.data.code, 'CAMERA_PERMISSION_DENIED');
  assert.equal(await page.textContent('.tmb-fallback .tmb-h1'), 'Ruhusa ya kamera imezimwa', 'Kiswahili from the language');
  assert.equal(await page.getAttribute('.tmb-close', 'aria-label'), 'Ghairi', 'the close button is named, in the language');
  await page.setInputFiles('.tmb-fallback input[type=file]', join(cam, 'front.jpg'));
  await page.waitForSelector('.tmb-review[data-step="id_front"]');
  const { w, h } = await reviewPixel(page, 1, 1);
  assert.deepEqual([w, h], [590, 372], 'an uploaded photo is cropped to the ID output too');
  await context.close();
});

test('an expired access token is refreshed once and the call retried', { skip: !existsSync(chromiumPath) }, async () => {
  const context = await browser.newContext({ viewport: { width: 960, height: 540 }, permissions: ['camera'] });
  const calls = [];
  let expired;
  let control;
  await context.route(`${server.url}/postdata`, async (route) => {
    const body = JSON.parse(route.request().postData() || '{}');
    const real = await route.fetch();
    calls.push(`${body.method} ${real.status()}`);
    if (body.method === 'refreshAccessToken' && calls.filter((m) => m.startsWith('refreshAccessToken')).length === 1) {
      // The first refresh hands the SDK a truly expired access token: the
      // server's own claims, signed with the server's key, whose lifetime
      // ended an hour ago (as when a laptop wakes from sleep), while
      // expires_in still says an hour, so the SDK cannot know before the
      // server refuses it.
      const json = await real.json();
      const claims = jwtClaims(json.access_token);
      const now = Math.floor(Date.now() / 1000);
      expired = signJwt(server.tokenKey, { ...claims, jti: `${claims.jti}x`, iat: now - 7200, exp: now - 3600 });
      control = signJwt(server.tokenKey, { ...claims, jti: `${claims.jti}y`, iat: now - 60, exp: now + 600 });
      json.access_token = expired;
      return route.fulfill({ response: real, json });
    }
    return route.fulfill({ response: real });
  });
  const page = await openDemo(context);
  await page.waitForSelector('.tmb-start', { timeout: 30_000 });
  assert.deepEqual(calls, ['issueSdkToken 200', 'refreshAccessToken 200', 'getWorkflowById 401', 'refreshAccessToken 200', 'getWorkflowById 200']);
  const events = await page.evaluate(() => window.demoEvents);
  assert.ok(!events.some((e) => e.kind === 'error'), JSON.stringify(events));
  // The server refused the token for its age alone: the same claims and
  // key with a lifetime still running are accepted.
  const ask = (tok) => postdata(server.url, { menu: 'flow', method: 'getWorkflowById', work_flow_id: wf.work_flow_id }, tok);
  const [old, fresh] = [await ask(expired), await ask(control)];
  assert.equal(old.status, 401);
  assert.equal(old.body.v_field48, 'invalid or expired token');
  assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
  await context.close();
});

test('the pages at phone width: frame, guidance and controls on screen, upload from the capture page', { skip: !existsSync(chromiumPath) }, async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, permissions: ['camera'], hasTouch: true, isMobile: true });
  const page = await openDemo(context, 'fr');
  await page.waitForSelector('.tmb-start', { timeout: 30_000 });
  await page.screenshot({ path: join(shots, 'web-phone-landing.png') });
  await page.click('.tmb-start');
  await page.waitForSelector('.tmb-guide[data-hint]', { timeout: 20_000 });
  await page.screenshot({ path: join(shots, 'web-phone-id-capture.png') });
  const box = async (sel) => page.locator(sel).first().boundingBox();
  const frame = await box('.tmb-frame');
  const shutter = await box('.tmb-shutter');
  const title = await box('.tmb-top');
  const inside = (b) => b.x >= 0 && b.y >= 0 && b.x + b.width <= 390 && b.y + b.height <= 844;
  for (const [name, b] of Object.entries({ frame, shutter, title })) assert.ok(b && inside(b), `${name} on screen: ${JSON.stringify(b)}`);
  assert.ok(Math.abs(frame.width / frame.height - 85.6 / 53.98) < 0.03, 'ID-1 frame');
  assert.ok(shutter.y > frame.y + frame.height, 'the shutter below the frame');
  assert.ok(title.y + title.height <= frame.y, 'the title above the frame');
  assert.equal(await page.textContent('.tmb-top .tmb-h1'), 'Recto de votre pièce', 'French from the language');
  // The holder may pick a photo instead of shooting one.
  await page.setInputFiles('.tmb-cam input[type=file]', join(cam, 'front.jpg'));
  await page.waitForSelector('.tmb-review[data-step="id_front"]');
  await page.screenshot({ path: join(shots, 'web-phone-review.png') });
  for (const sel of ['.tmb-review-img', '.tmb-retake', '.tmb-continue']) assert.ok(inside(await box(sel)), `${sel} on screen`);
  // On to the selfie (the back from a file too, unless auto-capture took
  // it first): its tip, longer in French than a phone's width, wraps on
  // screen and stays at the oval's foot.
  await page.click('.tmb-continue');
  await page.waitForSelector('.tmb-cam input[type=file], .tmb-review[data-step="id_back"]', { state: 'attached' });
  if (!(await page.$('.tmb-review[data-step="id_back"]'))) await page.setInputFiles('.tmb-cam input[type=file]', join(cam, 'back.jpg'));
  await page.waitForSelector('.tmb-review[data-step="id_back"]');
  await page.click('.tmb-continue');
  await page.waitForSelector('.tmb-cam .tmb-oval');
  await page.screenshot({ path: join(shots, 'web-phone-selfie.png') });
  const [tip, oval] = [await box('.tmb-guide'), await box('.tmb-oval')];
  assert.equal(await page.textContent('.tmb-guide'), 'Bonne lumière, visage de face, sans lunettes ni chapeau');
  assert.ok(inside(tip), `the selfie tip on screen: ${JSON.stringify(tip)}`);
  assert.ok(tip.y + tip.height <= oval.y + oval.height && tip.y > oval.y + oval.height / 2, `the tip at the oval's foot: ${JSON.stringify({ tip, oval })}`);
  await context.close();
  // A phone whose camera is refused gets the file picker, and is not
  // offered to "continue on your phone".
  const denied = await browser.newContext({ viewport: { width: 390, height: 844 }, permissions: [], hasTouch: true, isMobile: true });
  const p2 = await openDemo(denied, 'fr');
  await p2.waitForSelector('.tmb-start', { timeout: 30_000 });
  await p2.click('.tmb-start');
  await p2.waitForSelector('.tmb-fallback[data-problem="denied"]', { timeout: 20_000 });
  await p2.screenshot({ path: join(shots, 'web-phone-denied.png') });
  assert.equal(await p2.$('.tmb-handoff'), null, 'no hand-off on a phone');
  assert.ok(await p2.$('.tmb-fallback .tmb-upload'));
  await denied.close();
});

test('the demo page fits a laptop and a phone: every field inside its form, nothing wider than the screen', { skip: !existsSync(chromiumPath) }, async () => {
  for (const viewport of [{ width: 960, height: 540 }, { width: 390, height: 844 }]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${server.url}/demo?client_id=${server.demo.clientId}&work_flow_id=${wf.work_flow_id}`);
    const form = await page.locator('#start').boundingBox();
    for (const sel of ['#client', '#workflow', '#lang', '#go']) {
      const b = await page.locator(sel).boundingBox();
      assert.ok(b.x >= form.x && b.x + b.width <= form.x + form.width + 0.5, `${viewport.width} px: ${sel} ${JSON.stringify(b)} inside the form ${JSON.stringify(form)}`);
    }
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width, `${viewport.width} px: no sideways scrolling`);
    await context.close();
  }
});

test('a customer page on another origin: a session for an allowed origin, TOKEN_REFRESH_FAILED for another', { skip: !existsSync(chromiumPath) }, async () => {
  const context = await browser.newContext({ viewport: { width: 960, height: 540 }, permissions: ['camera'] });
  const open = async (site) => {
    const page = await context.newPage();
    await page.goto(`${site.url}/?sdk=${encodeURIComponent(server.url)}&client=${server.demo.clientId}&wf=${wf.work_flow_id}`);
    await page.waitForFunction(() => window.events.length > 0, null, { timeout: 30_000 });
    return page;
  };
  const shop = await open(sites.shop);
  await shop.waitForSelector('.tmb-start');
  assert.deepEqual(await shop.evaluate(() => window.events), [['step', 'landing']]);
  const other = await open(sites.other);
  const [ev] = await other.evaluate(() => window.events);
  assert.equal(ev[0], 'error');
  assert.equal(ev[1], 'TOKEN_REFRESH_FAILED');
  assert.match(ev[2], /allowed_origins/, 'the server says why');
  assert.equal(await other.$('.tmb-start'), null);
  await other.waitForSelector('.tmb-error', { timeout: 5_000 });
  await context.close();
});

test('no camera, or an old browser without getUserMedia: the file upload, no permission error', { skip: !existsSync(chromiumPath) }, async () => {
  for (const [problem, script] of [
    ['none', () => { navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('no device', 'NotFoundError')); }],
    ['unsupported', () => { Object.defineProperty(Navigator.prototype, 'mediaDevices', { get: () => undefined }); }],
  ]) {
    const context = await browser.newContext({ viewport: { width: 960, height: 540 } });
    await context.addInitScript(script);
    const page = await openDemo(context);
    await page.waitForSelector('.tmb-start', { timeout: 30_000 });
    await page.click('.tmb-start');
    await page.waitForSelector(`.tmb-fallback[data-problem="${problem}"]`, { timeout: 20_000 });
    assert.equal(await page.textContent('.tmb-fallback .tmb-h1'), 'No camera found', problem);
    assert.equal(await page.$('.tmb-retry-camera') !== null, problem === 'none', 'retrying the camera only where there may be one');
    const events = await page.evaluate(() => window.demoEvents);
    assert.ok(!events.some((e) => e.kind === 'error'), `${problem}: not an error: ${JSON.stringify(events)}`);
    await page.setInputFiles('.tmb-fallback input[type=file]', join(cam, 'front.jpg'));
    await page.waitForSelector('.tmb-review[data-step="id_front"]');
    await context.close();
  }
});

test('the hand-off screen goes back to this computer, and stops following the code', { skip: !existsSync(chromiumPath) }, async () => {
  const desk = await browser.newContext({ viewport: { width: 960, height: 540 } });
  await desk.addInitScript(() => {
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('no device', 'NotFoundError'));
  });
  const polls = [];
  desk.on('request', (r) => {
    if (r.url().endsWith('/postdata') && (r.postData() || '').includes('getHandoffStatus')) polls.push(Date.now());
  });
  const page = await openDemo(desk);
  await page.waitForSelector('.tmb-start', { timeout: 30_000 });
  await page.click('.tmb-start');
  await page.waitForSelector('.tmb-fallback[data-problem="none"] .tmb-handoff', { timeout: 20_000 });
  await page.click('.tmb-handoff');
  await page.waitForSelector('.tmb-qr', { timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector('.tmb-handoff-state')?.dataset.state === 'waiting');
  while (polls.length === 0) await page.waitForTimeout(100);
  await page.click('.tmb-handoff-back');
  await page.waitForSelector('.tmb-fallback[data-problem="none"]', { timeout: 10_000 });
  const n = polls.length;
  await page.waitForTimeout(4500);
  assert.equal(polls.length, n, 'no polling after going back');
  const events = await page.evaluate(() => window.demoEvents);
  assert.ok(!events.some((e) => e.kind === 'error' || e.kind === 'cancel'), JSON.stringify(events));
  await desk.close();
});

test('a computer without a camera hands off to a phone by QR code; the computer gets the verdict', { skip: !existsSync(chromiumPath) }, async () => {
  // The computer: no camera at all.
  const desk = await browser.newContext({ viewport: { width: 960, height: 640 } });
  await desk.addInitScript(() => {
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('no device', 'NotFoundError'));
  });
  const page = await openDemo(desk);
  await page.waitForSelector('.tmb-start', { timeout: 30_000 });
  await page.click('.tmb-start');
  await page.waitForSelector('.tmb-fallback[data-problem="none"] .tmb-handoff', { timeout: 20_000 });
  await page.click('.tmb-handoff');
  const qr = page.locator('.tmb-qr');
  await qr.waitFor({ timeout: 20_000 });
  await page.evaluate(() => document.querySelector('.tmb-qr').decode());
  assert.equal(await page.getAttribute('.tmb-handoff-state', 'data-state'), 'waiting');
  await page.screenshot({ path: join(shots, 'web-handoff-qr.png') });
  // What a phone's camera reads off the screen: the QR code as drawn.
  const qrShot = join(shots, 'handoff-qr-element.png');
  await qr.screenshot({ path: qrShot });
  const link = sdke2e('qr', qrShot);
  assert.match(link, new RegExp(`^${server.url.replace(/[.]/g, '\\.')}/handoff#[\\w-]+\\.[\\w-]+\\.[\\w-]+$`), 'the hand-off URL, its token in the fragment');

  // The phone: a camera, a phone-sized screen.
  const phone = await browser.newContext({ viewport: { width: 960, height: 540 }, permissions: ['camera'] });
  const ph = await phone.newPage();
  ph.on('pageerror', (e) => console.error('phone page error:', e.message));
  const sent = [];
  ph.on('request', (r) => sent.push(r.url()));
  await ph.goto(link);
  await ph.waitForSelector('.tmb-start', { timeout: 30_000 });
  assert.equal(new URL(ph.url()).hash, '', 'the token is taken out of the address bar');
  assert.ok(!sent.some((u) => u.includes('#') || u.includes(link.split('#')[1])), 'the token is never in a request URL');
  await page.waitForSelector('.tmb-handoff-state[data-state="opened"]', { timeout: 10_000 });
  await ph.click('.tmb-start');
  for (const step of ['id_front', 'id_back', 'selfie']) {
    await captureStep(ph, step);
    await ph.click('.tmb-continue');
  }
  await ph.waitForSelector('.tmb-done', { timeout: 150_000 });
  assert.match(await ph.textContent('.tmb-done'), /go back to your computer/);
  await ph.screenshot({ path: join(shots, 'web-handoff-phone-done.png') });

  // The computer learns the result and calls onSuccess with the verdict.
  await page.waitForFunction(() => window.demoEvents.some((e) => e.kind === 'success' || e.kind === 'error'), null, { timeout: 30_000 });
  const events = await page.evaluate(() => window.demoEvents);
  const done = events.find((e) => e.kind === 'success');
  assert.ok(done, `onSuccess was not called on the computer: ${JSON.stringify(events)}`);
  const phoneEvents = await ph.evaluate(() => window.handoffEvents);
  const phoneDone = phoneEvents.find((e) => e.kind === 'success');
  assert.equal(done.data.verification_id, phoneDone?.data.verification_id, 'the phone’s verification');
  assert.equal(done.data.verification_decision, 'accept');
  await page.waitForSelector('.tmb-done', { timeout: 10_000 });
  console.log(`web hand-off: verdict ${done.data.verification_decision} (${done.data.status}) on the computer`);

  // The code opens one phone only.
  const again = await phone.newPage();
  await again.goto(link);
  await again.waitForSelector('.tmb-error', { timeout: 20_000 });
  const err = (await again.evaluate(() => window.handoffEvents)).find((e) => e.kind === 'error');
  assert.equal(err?.data.code, 'TOKEN_REFRESH_FAILED');
  assert.match(err?.data.message, /has been used/);
  await phone.close();
  await desk.close();
});
