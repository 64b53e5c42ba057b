// The capture guidance (core quality.ts) on the fake camera's scenes and
// on degraded copies of them: sharp cards are found and ready; blurred,
// dark, glaring and card-less frames are told apart. Seed 11 (passport)
// is what the thresholds were chosen on; seeds 12 (passport) and 12
// (Kenyan ID) are held out.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyseCard, AutoCapture, ID_RATIO, idFrameRect, sampleFramePlane } from '../.build/core.mjs';

const ANALYSE_W = 200;
const ANALYSE_H = Math.round(ANALYSE_W / ID_RATIO);
import { makeCaptures, readPGM, lumaPlane as plane } from './helpers.mjs';

// What the web SDK does: the frame region, area-averaged to 200 px wide.
// shift moves the frame sideways (a share of its width); zoom > 1 brings
// the card closer (the frame sees the middle 1/zoom of it).
function frameSample(img, shift = 0, zoom = 1) {
  shift ??= 0;
  zoom ??= 1;
  const f = idFrameRect(img.width, img.height);
  const r = { x: f.x + (f.width * (1 - 1 / zoom)) / 2, y: f.y + (f.height * (1 - 1 / zoom)) / 2, width: f.width / zoom, height: f.height / zoom };
  const W = 200;
  const H = Math.round(W / ID_RATIO);
  const out = new Uint8Array(W * H);
  const x0 = r.x + shift * r.width;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let s = 0;
      let n = 0;
      for (let yy = Math.floor(r.y + (y * r.height) / H); yy < Math.floor(r.y + ((y + 1) * r.height) / H); yy++) {
        for (let xx = Math.floor(x0 + (x * r.width) / W); xx < Math.floor(x0 + ((x + 1) * r.width) / W); xx++) {
          if (xx >= 0 && xx < img.width) {
            s += img.data[yy * img.width + xx];
            n++;
          }
        }
      }
      out[y * W + x] = n ? Math.round(s / n) : 0;
    }
  }
  return { width: W, height: H, data: out };
}

function boxBlur(img, r) {
  const { width: w, height: h, data } = img;
  const tmp = new Float32Array(w * h);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let k = -r; k <= r; k++) if (x + k >= 0 && x + k < w) (s += data[y * w + x + k]), n++;
      tmp[y * w + x] = s / n;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let k = -r; k <= r; k++) if (y + k >= 0 && y + k < h) (s += tmp[(y + k) * w + x]), n++;
      out[y * w + x] = Math.round(s / n);
    }
  return { width: w, height: h, data: out };
}

const stretch = (img) => ({ ...img, data: img.data.map((v) => Math.max(0, Math.min(255, Math.round(((v - 16) * 255) / 219)))) });
const scale = (img, f) => ({ ...img, data: img.data.map((v) => Math.min(255, Math.round(v * f))) });

// A specular patch: an ellipse of clipped white over a fifth of the card's width.
function glare(img) {
  const data = Uint8Array.from(img.data);
  const cx = img.width * 0.58;
  const cy = img.height * 0.45;
  const rx = img.width * 0.07;
  const ry = img.height * 0.1;
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) if (((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1) data[y * img.width + x] = 255;
  return { ...img, data };
}

const sets = {};
before(() => {
  sets.tuning = [makeCaptures(11, 'ke_passport')];
  sets.heldout = [makeCaptures(12, 'ke_passport'), makeCaptures(12, 'kenya_national_id')];
});

function variants(dir) {
  const front = readPGM(join(dir, 'scene-front.pgm'));
  const selfie = readPGM(join(dir, 'scene-selfie.pgm'));
  // full: the camera frame; shift and zoom move the card in the ID
  // frame; post alters the sample (a highlight).
  const list = [
    { name: 'sharp card', full: front, want: 'ready' },
    { name: 'defocused card', full: boxBlur(front, 3), want: 'blurry' },
    { name: 'dark room', full: scale(front, 0.22), want: 'dark' },
    { name: 'glare', full: front, post: glare, want: 'glare' },
    // What Chromium shows of the fake camera: video range stretched to full
    // range, the pale page clipped with its print intact.
    { name: 'pale page at full exposure', full: stretch(front), want: 'ready' },
    { name: 'card a third out of the frame', full: front, shift: 0.35, want: 'no_card' },
    // A landscape camera shown full screen on an upright phone: the card is
    // 1.6 times the frame, its edges outside it.
    { name: 'card too close (1.6x)', full: front, zoom: 1.6, want: 'no_card' },
    { name: 'card too close (1.25x)', full: front, zoom: 1.25, want: 'no_card' },
    { name: 'card too close (2.3x)', full: front, zoom: 2.3, want: 'no_card' },
    { name: 'a face, no card', full: selfie, notReady: true },
  ];
  for (const v of list) {
    v.img = frameSample(v.full, v.shift, v.zoom);
    if (v.post) v.img = v.post(v.img);
  }
  return list;
}

for (const setName of ['tuning', 'heldout']) {
  test(`capture guidance on the ${setName} scenes`, () => {
    let right = 0;
    let total = 0;
    const wrong = [];
    for (const dir of sets[setName]) {
      for (const v of variants(dir)) {
        const q = analyseCard(v.img);
        total++;
        if (v.notReady ? q.hint !== 'ready' : q.hint === v.want) right++;
        else wrong.push(`${v.name}: ${q.hint} (edges ${q.edges}, sharpness ${q.sharpness.toFixed(1)}, glare ${q.glare.toFixed(3)}, brightness ${q.brightness.toFixed(0)})`);
        if (process.env.TMB_DEBUG) console.log(setName, v.name, q);
      }
    }
    console.log(`guidance ${setName}: ${right}/${total} frames given the right hint`);
    assert.deepEqual(wrong, []);
  });
}

// The React Native component samples the frame's luma plane itself
// (sampleFramePlane, in its frame processor) where the web draws the video
// on a canvas; both then run the same analyseCard. The same hint on every
// scene, from every orientation of the buffer, is what makes both
// platforms decide identically.
for (const setName of ['tuning', 'heldout']) {
  test(`the React Native frame sampler gives the web's hints on the ${setName} scenes`, () => {
    let same = 0;
    let total = 0;
    const differ = [];
    for (const dir of sets[setName]) {
      for (const v of variants(dir)) {
        const want = analyseCard(v.img).hint;
        const { width: w, height: h } = v.full;
        const f = idFrameRect(w, h);
        const z = v.zoom ?? 1;
        const r = { x: f.x + (f.width * (1 - 1 / z)) / 2 + (v.shift ?? 0) * (f.width / z), y: f.y + (f.height * (1 - 1 / z)) / 2, width: f.width / z, height: f.height / z };
        for (const turns of [0, 1, 2, 3]) {
          const p = plane(v.full, turns);
          let sample = { width: ANALYSE_W, height: ANALYSE_H, data: sampleFramePlane(p.data, p.stride, p.width, p.height, turns, w, h, r, ANALYSE_W, ANALYSE_H) };
          if (v.post) sample = v.post(sample);
          const got = analyseCard(sample).hint;
          total++;
          if (got === want) same++;
          else differ.push(`${v.name} (${turns} quarter turns): ${got}, the web's ${want}`);
        }
      }
    }
    console.log(`react native sampler ${setName}: ${same}/${total} frames given the web's hint`);
    assert.deepEqual(differ, []);
  });
}

test('auto-capture waits for steady frames and fires once', () => {
  const img = frameSample(readPGM(join(sets.tuning[0], 'scene-front.pgm')));
  const ac = new AutoCapture();
  const shots = [];
  for (let i = 0; i < 5; i++) shots.push(ac.push(img).shoot);
  assert.deepEqual(shots, [false, false, false, true, false], 'the fourth identical frame (three steady) fires');
  ac.reset();
  const moving = [img, scale(img, 0.9), img, scale(img, 0.9), img].map((f) => ac.push(f).shoot);
  assert.ok(!moving.includes(true), 'a card that moves is not shot');
});
