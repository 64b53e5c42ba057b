/**
 * On-device capture guidance: a card in the frame, sharp, without glare,
 * not too dark, held steady. It reads a small greyscale copy of the frame
 * region (about 200 px wide) and does a few passes over it, so it runs
 * several times a second on a phone.
 *
 * The thresholds were chosen on the fake-camera scenes of synth seed 11
 * (sdk/test/quality.test.mjs makes sharp, blurred, dark, glare and
 * no-card variants of them) and checked on seed 12, which they were not
 * tuned on; the test prints both counts.
 */
export interface Luma {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
}

export type Hint = 'no_card' | 'blurry' | 'glare' | 'dark' | 'hold_steady' | 'ready';

export interface Quality {
  cardFound: boolean;
  /** Sides of the frame (of 4) with a card edge along them. */
  edges: number;
  /** Laplacian energy over gradient energy inside the frame, in percent: higher is sharper. */
  sharpness: number;
  /** Share of the frame in blocks blown out to white (see GLARE_MAX). */
  glare: number;
  /** Mean luma, 0 to 255. */
  brightness: number;
  hint: Hint;
}

// A row (or column) of the band along a frame side counts as a card edge
// when its mean absolute step across the edge is at least this, in luma
// levels: a card on a desk steps by 100 or more; the texture of a desk, a
// wall or a face by under 10.
export const EDGE_MIN = 22;
// Share of a side along which an edge must step (see sideScore). Chosen
// on seed 11's passport scene: a card's edges step at every position
// (1.00 on all four sides); rows of print that reach EDGE_MIN on average,
// with the card 1.25 to 2.3 times the frame (2.3 is a landscape webcam
// shown on an upright phone), step at 0.66 of them at most, 0.86 on one
// side at 1.25. Held out, seed 12 and the national ID: 1.00 and up to
// 0.92 on one side, never on all four. The margin below 1 is for a real
// edge a little tilted across the rows.
export const EDGE_COVER = 0.85;
// Below this Laplacian-to-gradient ratio the print is soft: the sharp
// synthetic scenes score 100 to 107, the same after a 3 px box blur at
// camera resolution (about a phone's autofocus hunting) 46 to 47.
export const SHARP_MIN = 70;
// Glare is a highlight that wipes the print out: 6 x 6 blocks of the
// 200 px wide sample with at least 34 of their 36 pixels clipped (250 or
// more). A pale page at the top of the exposure is clipped too, but its
// print and pattern break the blocks up. The frame is glaring when such
// blocks cover more than this share of it. Chosen on seed 11: a specular
// patch a seventh of the card wide blows 9 of 693 blocks (1.3%); the same
// page stretched from video to full range, as Chromium shows the fake
// camera, blows 3 (0.4%) and 1 in the browser; the plain scenes 0.
export const GLARE_MAX = 0.008;
const BLOCK = 6;
const BLOCK_CLIPPED = 34;
// Mean luma below which the camera's noise swamps the print.
export const DARK_MAX = 60;

/** Greyscale of RGBA pixels (BT.601 weights, integer arithmetic). */
export function toLuma(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Luma {
  const out = new Uint8Array(width * height);
  for (let i = 0, j = 0; j < out.length; i += 4, j++) out[j] = (rgba[i] * 77 + rgba[i + 1] * 150 + rgba[i + 2] * 29) >> 8;
  return { data: out, width, height };
}

/**
 * Best edge score along one side, in the outer 22% of the frame: for each
 * row (or column) of the band, the mean over the side's middle 60% of the
 * signed step across it (two pixels each way), taken absolute. A card's
 * edge steps the same way all along, so the mean stays large; print and
 * texture step both ways and cancel out. A row counts only when the step
 * has the mean's sign and at least EDGE_MIN / 2 at EDGE_COVER of the
 * positions: a card's edge against the desk is continuous, while a line
 * of bold print, which can reach the mean, has gaps between letters and
 * words (a card held too close fills the frame with such lines).
 */
function sideScore(l: Luma, side: 'top' | 'bottom' | 'left' | 'right'): number {
  const { data, width: w, height: h } = l;
  const horizontal = side === 'top' || side === 'bottom';
  const along = horizontal ? w : h;
  const across = horizontal ? h : w;
  const band = Math.max(3, Math.floor(across * 0.22));
  const a0 = Math.floor(along * 0.2);
  const a1 = Math.ceil(along * 0.8);
  const n = a1 - a0;
  const half = EDGE_MIN / 2;
  let best = 0;
  for (let k = 2; k < band; k++) {
    const c = side === 'top' || side === 'left' ? k : across - 1 - k;
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

/**
 * The guidance sample of a camera frame's luma plane, for platforms that
 * read the frame's pixels themselves (the React Native component's
 * VisionCamera frame processor, whose 'yuv' frames start with the Y
 * plane): the region of the frame under viewRect, a rectangle on a view of
 * viewW x viewH showing the frame upright and "cover"-scaled (as
 * idFrameRect gives it), at outW x outH. turns is how many quarter turns
 * clockwise bring the buffer upright (a landscape sensor's frame under an
 * upright phone needs one or three).
 *
 * Each output pixel is the mean of 4 points of its cell: close enough to
 * the area mean the web's canvas gives for the same hints (sdk/test/
 * quality.test.mjs compares the two on every scene and orientation), at a
 * hundred thousand reads rather than millions.
 *
 * It is a worklet (the directive below), so VisionCamera runs it on the
 * camera thread; elsewhere the directive is an unused string. It calls
 * nothing but Math.
 */
export function sampleFramePlane(
  plane: Uint8Array | Uint8ClampedArray,
  stride: number,
  bufW: number,
  bufH: number,
  turns: number,
  viewW: number,
  viewH: number,
  viewRect: { x: number; y: number; width: number; height: number },
  outW: number,
  outH: number,
): Uint8Array {
  'worklet';
  const t = ((turns % 4) + 4) % 4;
  const upW = t % 2 ? bufH : bufW;
  const upH = t % 2 ? bufW : bufH;
  // The view shows the upright frame cover-scaled and centred.
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
        // Upright (u, v) in the buffer, by the turns that make it upright.
        const i = t === 0 ? v * stride + u : t === 1 ? (bufH - 1 - u) * stride + v : t === 2 ? (bufH - 1 - v) * stride + bufW - 1 - u : u * stride + bufW - 1 - v;
        s += plane[i];
      }
      out[oy * outW + ox] = (s + 2) >> 2;
    }
  }
  return out;
}

/**
 * Quarter turns clockwise that bring a VisionCamera frame upright, from
 * its orientation (VisionCamera 4.1 and later: portrait 0 degrees,
 * landscape-left 90, portrait-upside-down 180, landscape-right 270).
 * Without one (older releases), a frame whose shape differs from the
 * view's is taken as turned a quarter.
 */
export function frameTurns(orientation: string | undefined, bufW: number, bufH: number, viewW: number, viewH: number): number {
  'worklet';
  if (orientation === 'portrait') return 0;
  if (orientation === 'landscape-left') return 1;
  if (orientation === 'portrait-upside-down') return 2;
  if (orientation === 'landscape-right') return 3;
  return bufW > bufH !== viewW > viewH ? 1 : 0;
}

/** Analyses the frame region of one camera frame. */
export function analyseCard(l: Luma): Quality {
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
  for (const side of ['top', 'bottom', 'left', 'right'] as const) if (sideScore(l, side) >= EDGE_MIN) edges++;
  // Sharpness over the inner 60%, where the print is.
  let lap = 0;
  let grad = 0;
  for (let y = Math.floor(h * 0.2); y < Math.floor(h * 0.8); y++) {
    for (let x = Math.floor(w * 0.2); x < Math.floor(w * 0.8); x++) {
      const i = y * w + x;
      lap += Math.abs(4 * data[i] - data[i - 1] - data[i + 1] - data[i - w] - data[i + w]);
      grad += Math.abs(data[i + 1] - data[i - 1]) + Math.abs(data[i + w] - data[i - w]);
    }
  }
  // Laplacian over gradient: a blurred edge spreads its step over more
  // pixels, which lowers the Laplacian by the square of the spread and the
  // gradient only in proportion; the ratio does not depend on contrast.
  const sharpness = grad ? (100 * lap) / grad : 0;
  const cardFound = edges === 4;
  let hint: Hint = 'ready';
  if (brightness < DARK_MAX) hint = 'dark';
  else if (!cardFound) hint = 'no_card';
  else if (glare > GLARE_MAX) hint = 'glare';
  else if (sharpness < SHARP_MIN) hint = 'blurry';
  return { cardFound, edges, sharpness, glare, brightness, hint };
}

/** Mean absolute difference of two frames of the same size. */
export function frameDifference(a: Luma, b: Luma): number {
  if (a.data.length !== b.data.length) return 255;
  let s = 0;
  for (let i = 0; i < a.data.length; i++) s += Math.abs(a.data[i] - b.data[i]);
  return s / a.data.length;
}

// Frames differing by less than this mean luma step are "steady": camera
// noise is 1 to 2 levels; a hand moving a card shifts 6 or more.
export const STEADY_MAX = 3.5;
// Consecutive good, steady frames before the shot is taken by itself:
// at about six analyses a second, half a second of holding still.
export const AUTO_CAPTURE_FRAMES = 3;

/**
 * Decides auto-capture from a stream of analyses: the card found, sharp,
 * without glare and steady for AUTO_CAPTURE_FRAMES frames in a row.
 */
export class AutoCapture {
  private prev?: Luma;
  private good = 0;

  /** Feeds one frame; returns its quality, with hold_steady while waiting, and whether to shoot now. */
  push(l: Luma): { quality: Quality; shoot: boolean } {
    const q = analyseCard(l);
    const steady = this.prev ? frameDifference(this.prev, l) < STEADY_MAX : false;
    this.prev = l;
    if (q.hint !== 'ready') {
      this.good = 0;
      return { quality: q, shoot: false };
    }
    this.good = steady ? this.good + 1 : 0;
    if (this.good >= AUTO_CAPTURE_FRAMES) {
      this.good = 0;
      return { quality: q, shoot: true };
    }
    return { quality: { ...q, hint: 'hold_steady' }, shoot: false };
  }

  reset(): void {
    this.prev = undefined;
    this.good = 0;
  }
}
