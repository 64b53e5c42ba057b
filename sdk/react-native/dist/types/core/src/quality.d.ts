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
export declare const EDGE_MIN = 22;
export declare const EDGE_COVER = 0.85;
export declare const SHARP_MIN = 70;
export declare const GLARE_MAX = 0.008;
export declare const DARK_MAX = 60;
/** Greyscale of RGBA pixels (BT.601 weights, integer arithmetic). */
export declare function toLuma(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Luma;
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
export declare function sampleFramePlane(plane: Uint8Array | Uint8ClampedArray, stride: number, bufW: number, bufH: number, turns: number, viewW: number, viewH: number, viewRect: {
    x: number;
    y: number;
    width: number;
    height: number;
}, outW: number, outH: number): Uint8Array;
/**
 * Quarter turns clockwise that bring a VisionCamera frame upright, from
 * its orientation (VisionCamera 4.1 and later: portrait 0 degrees,
 * landscape-left 90, portrait-upside-down 180, landscape-right 270).
 * Without one (older releases), a frame whose shape differs from the
 * view's is taken as turned a quarter.
 */
export declare function frameTurns(orientation: string | undefined, bufW: number, bufH: number, viewW: number, viewH: number): number;
/** Analyses the frame region of one camera frame. */
export declare function analyseCard(l: Luma): Quality;
/** Mean absolute difference of two frames of the same size. */
export declare function frameDifference(a: Luma, b: Luma): number;
export declare const STEADY_MAX = 3.5;
export declare const AUTO_CAPTURE_FRAMES = 3;
/**
 * Decides auto-capture from a stream of analyses: the card found, sharp,
 * without glare and steady for AUTO_CAPTURE_FRAMES frames in a row.
 */
export declare class AutoCapture {
    private prev?;
    private good;
    /** Feeds one frame; returns its quality, with hold_steady while waiting, and whether to shoot now. */
    push(l: Luma): {
        quality: Quality;
        shoot: boolean;
    };
    reset(): void;
}
