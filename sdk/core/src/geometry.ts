/** ID-1 card proportions (ISO/IEC 7810: 85.60 x 53.98 mm). */
export const ID_RATIO = 85.6 / 53.98;
/** Spec limits: ID crop output, selfie overlay and output width, JPEG quality. */
export const ID_OUTPUT = { width: 590, height: 372 } as const;
export const SELFIE_BOX = { width: 280, height: 350 } as const;
export const SELFIE_OUTPUT_WIDTH = 590;
export const JPEG_QUALITY = 0.95;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The ID frame on a view of the given size: as wide as 88% of the view
 * and as tall as 66% allow, in ID-1 proportions, centred a little above
 * the middle so the controls below stay clear.
 */
export function idFrameRect(viewW: number, viewH: number): Rect {
  const w = Math.min(viewW * 0.88, viewH * 0.66 * ID_RATIO);
  const h = w / ID_RATIO;
  return { x: (viewW - w) / 2, y: viewH * 0.48 - h / 2, width: w, height: h };
}

/** The selfie oval's box: 280 x 350, smaller only on a view too small for it. */
export function selfieRect(viewW: number, viewH: number): Rect {
  const s = Math.min(1, (viewW * 0.9) / SELFIE_BOX.width, (viewH * 0.75) / SELFIE_BOX.height);
  const w = SELFIE_BOX.width * s;
  const h = SELFIE_BOX.height * s;
  return { x: (viewW - w) / 2, y: viewH * 0.48 - h / 2, width: w, height: h };
}

/** Selfie output: 590 wide, keeping the overlay's aspect ratio (0.8). */
export function selfieOutput(): { width: number; height: number } {
  return { width: SELFIE_OUTPUT_WIDTH, height: Math.round((SELFIE_OUTPUT_WIDTH * SELFIE_BOX.height) / SELFIE_BOX.width) };
}

/**
 * Maps a rectangle on a view showing a photo or video with "cover"
 * scaling (centred, cropped to fill) back to the photo's own pixels, so a
 * capture is cropped from the real photo dimensions, whatever the screen.
 */
export function viewRectToSource(r: Rect, srcW: number, srcH: number, viewW: number, viewH: number): Rect {
  const scale = Math.max(viewW / srcW, viewH / srcH);
  const offX = (viewW - srcW * scale) / 2;
  const offY = (viewH - srcH * scale) / 2;
  let x = (r.x - offX) / scale;
  let y = (r.y - offY) / scale;
  let w = r.width / scale;
  let h = r.height / scale;
  // Clamp inside the source, keeping the rectangle's shape.
  x = Math.max(0, Math.min(x, srcW - 1));
  y = Math.max(0, Math.min(y, srcH - 1));
  w = Math.min(w, srcW - x);
  h = Math.min(h, srcH - y);
  return { x: Math.round(x), y: Math.round(y), width: Math.round(w), height: Math.round(h) };
}

/** The largest centred rectangle of the given aspect inside a w x h image (uploads). */
export function centredAspect(w: number, h: number, aspect: number): Rect {
  let cw = w;
  let ch = w / aspect;
  if (ch > h) {
    ch = h;
    cw = h * aspect;
  }
  return { x: Math.round((w - cw) / 2), y: Math.round((h - ch) / 2), width: Math.round(cw), height: Math.round(ch) };
}
