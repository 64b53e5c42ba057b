// Test double of react-native-vision-camera: a camera whose photos are
// files the test chooses (globalThis.__tmbCamera.next()), with the
// permission the test sets. Frame processors are kept as the real hook
// returns them; the test calls one with frames it builds (react-native
// .test.mjs, cameraFrame), and runAtTargetFps runs its function on every
// frame (the test chooses the rate by how often it sends one).
import React from 'react';

const state = () => globalThis.__tmbCamera;

export class Camera extends React.Component {
  async takePhoto(options) {
    state().photoOptions?.push(options);
    return state().next();
  }
  render() {
    return React.createElement('Camera', this.props);
  }
}

// A device without cameras: the test sets devices to [].
export function useCameraDevice(position) {
  const d = state().devices ?? ['front', 'back'];
  return d.includes(position) ? { id: position } : undefined;
}

export function useCameraPermission() {
  const s = state();
  const [has, setHas] = React.useState(s.permission === 'granted');
  return {
    hasPermission: has,
    requestPermission: async () => {
      s.requests++;
      const ok = s.permission === 'granted';
      setHas(ok);
      return ok;
    },
  };
}

export function useFrameProcessor(fn, deps) {
  // eslint-disable-next-line react-hooks/exhaustive-deps
  return React.useMemo(() => ({ frameProcessor: fn, type: 'readonly' }), deps);
}

export function runAtTargetFps(_fps, fn) {
  return fn();
}
