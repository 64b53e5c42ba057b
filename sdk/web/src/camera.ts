/** Why the camera could not be used. */
export type CameraProblem = 'denied' | 'none' | 'unsupported';

export class CameraError extends Error {
  constructor(readonly problem: CameraProblem, message: string) {
    super(message);
  }
}

/** Opens the camera facing the given way, at the highest resolution it offers up to 1080p. */
export async function openCamera(facing: 'environment' | 'user'): Promise<MediaStream> {
  const md = typeof navigator !== 'undefined' ? navigator.mediaDevices : undefined;
  if (!md || typeof md.getUserMedia !== 'function') {
    throw new CameraError('unsupported', 'this browser has no camera access (getUserMedia), or the page is not served over HTTPS');
  }
  try {
    return await md.getUserMedia({ audio: false, video: { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } } });
  } catch (e) {
    const name = (e as { name?: string })?.name ?? '';
    if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') {
      throw new CameraError('denied', 'the camera permission was denied');
    }
    throw new CameraError('none', `no usable camera (${name || 'unknown error'})`);
  }
}

export function stopCamera(s: MediaStream | undefined): void {
  s?.getTracks().forEach((t) => t.stop());
}
