/** ID-1 card proportions (ISO/IEC 7810: 85.60 x 53.98 mm). */
export declare const ID_RATIO: number;
/** Spec limits: ID crop output, selfie overlay and output width, JPEG quality. */
export declare const ID_OUTPUT: {
    readonly width: 590;
    readonly height: 372;
};
export declare const SELFIE_BOX: {
    readonly width: 280;
    readonly height: 350;
};
export declare const SELFIE_OUTPUT_WIDTH = 590;
export declare const JPEG_QUALITY = 0.95;
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
export declare function idFrameRect(viewW: number, viewH: number): Rect;
/** The selfie oval's box: 280 x 350, smaller only on a view too small for it. */
export declare function selfieRect(viewW: number, viewH: number): Rect;
/** Selfie output: 590 wide, keeping the overlay's aspect ratio (0.8). */
export declare function selfieOutput(): {
    width: number;
    height: number;
};
/**
 * Maps a rectangle on a view showing a photo or video with "cover"
 * scaling (centred, cropped to fill) back to the photo's own pixels, so a
 * capture is cropped from the real photo dimensions, whatever the screen.
 */
export declare function viewRectToSource(r: Rect, srcW: number, srcH: number, viewW: number, viewH: number): Rect;
/** The largest centred rectangle of the given aspect inside a w x h image (uploads). */
export declare function centredAspect(w: number, h: number, aspect: number): Rect;
