// The parts of react-native, react-native-vision-camera,
// react-native-worklets-core and @react-native-community/image-editor this package uses, declared for
// type-checking in this repository (which does not install the native
// packages; the app does). They follow the libraries' own typings.
declare module 'react-native' {
  import type * as React from 'react';
  export type LayoutChangeEvent = { nativeEvent: { layout: { x: number; y: number; width: number; height: number } } };
  type Style = Record<string, unknown> | Style[] | undefined | null | false;
  export const View: React.ComponentType<{ style?: Style; testID?: string; pointerEvents?: string; onLayout?(e: LayoutChangeEvent): void; children?: React.ReactNode }>;
  export const Text: React.ComponentType<{ style?: Style; children?: React.ReactNode }>;
  export const Image: React.ComponentType<{ source: { uri: string }; style?: Style; resizeMode?: string; testID?: string }>;
  export const ImageBackground: React.ComponentType<{ source: { uri: string }; style?: Style; resizeMode?: string; testID?: string; children?: React.ReactNode }>;
  export const ActivityIndicator: React.ComponentType<{ color?: string }>;
  export const TouchableOpacity: React.ComponentType<{
    style?: Style;
    testID?: string;
    disabled?: boolean;
    accessibilityRole?: string;
    accessibilityLabel?: string;
    onPress?(): void;
    children?: React.ReactNode;
  }>;
  export const StyleSheet: { create<T extends Record<string, Record<string, unknown>>>(s: T): T; absoluteFill: Record<string, unknown> };
}

declare module 'react-native-vision-camera' {
  import type * as React from 'react';
  export interface CameraDevice {
    id: string;
  }
  export interface PhotoFile {
    path: string;
    width: number;
    height: number;
  }
  export type PixelFormat = 'yuv' | 'rgb' | 'unknown';
  export interface Frame {
    readonly isValid: boolean;
    readonly width: number;
    readonly height: number;
    readonly bytesPerRow: number;
    readonly pixelFormat: PixelFormat;
    /** VisionCamera 4.1 and later. */
    readonly orientation?: 'portrait' | 'portrait-upside-down' | 'landscape-left' | 'landscape-right';
    toArrayBuffer(): ArrayBuffer;
  }
  export interface ReadonlyFrameProcessor {
    frameProcessor: (frame: Frame) => void;
    type: 'readonly';
  }
  export class Camera extends React.Component<{
    style?: unknown;
    device: CameraDevice;
    isActive: boolean;
    photo?: boolean;
    pixelFormat?: PixelFormat;
    /** VisionCamera 4. */
    photoQualityBalance?: 'speed' | 'balanced' | 'quality';
    frameProcessor?: ReadonlyFrameProcessor;
  }> {
    /** qualityPrioritization: VisionCamera 3 (4 ignores it). */
    takePhoto(options?: { flash?: 'on' | 'off' | 'auto'; qualityPrioritization?: 'speed' | 'balanced' | 'quality' }): Promise<PhotoFile>;
  }
  export function useFrameProcessor(frameProcessor: (frame: Frame) => void, dependencies: ReadonlyArray<unknown>): ReadonlyFrameProcessor;
  export function runAtTargetFps<T>(fps: number, func: () => T): T | undefined;
  export function useCameraDevice(position: 'front' | 'back'): CameraDevice | undefined;
  export function useCameraPermission(): { hasPermission: boolean; requestPermission(): Promise<boolean> };
}

declare module 'react-native-worklets-core' {
  export const Worklets: {
    /** A function a worklet (another thread) may call; it runs on the React JS thread. */
    createRunOnJS<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => Promise<R>;
  };
}

declare module '@react-native-community/image-editor' {
  export interface ImageCropData {
    offset: { x: number; y: number };
    size: { width: number; height: number };
    displaySize?: { width: number; height: number };
    resizeMode?: 'contain' | 'cover' | 'stretch' | 'center';
    quality?: number;
    format?: 'jpeg' | 'png' | 'webp';
    includeBase64?: boolean;
  }
  const ImageEditor: { cropImage(uri: string, data: ImageCropData): Promise<{ uri: string; width: number; height: number; base64?: string }> };
  export default ImageEditor;
}
