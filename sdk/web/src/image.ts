import { JPEG_QUALITY, type Rect } from '../../core/src';

/** Crops a region of a source (video frame or decoded photo) and encodes it at the output size as JPEG 0.95. */
export function cropToJpeg(src: CanvasImageSource, r: Rect, outW: number, outH: number): string {
  const c = document.createElement('canvas');
  c.width = outW;
  c.height = outH;
  const g = c.getContext('2d');
  if (!g) throw new Error('no 2D canvas');
  g.imageSmoothingQuality = 'high';
  g.drawImage(src, r.x, r.y, r.width, r.height, 0, 0, outW, outH);
  return c.toDataURL('image/jpeg', JPEG_QUALITY);
}

/** The RGBA of a region scaled to w x h, for the quality analysis. */
export function sample(src: CanvasImageSource, r: Rect, w: number, h: number, canvas: HTMLCanvasElement): Uint8ClampedArray {
  canvas.width = w;
  canvas.height = h;
  const g = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
  g.drawImage(src, r.x, r.y, r.width, r.height, 0, 0, w, h);
  return g.getImageData(0, 0, w, h).data;
}

/** Decodes a chosen file into something drawable, with its size, honouring EXIF orientation where the browser does. */
export async function decodeFile(f: Blob): Promise<{ img: CanvasImageSource; width: number; height: number }> {
  if (typeof createImageBitmap === 'function') {
    const b = await createImageBitmap(f, { imageOrientation: 'from-image' } as ImageBitmapOptions);
    return { img: b, width: b.width, height: b.height };
  }
  const url = URL.createObjectURL(f);
  try {
    const im = new Image();
    im.src = url;
    await im.decode();
    return { img: im, width: im.naturalWidth, height: im.naturalHeight };
  } finally {
    URL.revokeObjectURL(url);
  }
}
