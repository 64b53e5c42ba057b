import React, { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ActivityIndicator, Image, ImageBackground, StyleSheet, Text, TouchableOpacity, View, type LayoutChangeEvent } from 'react-native';
import { Camera, runAtTargetFps, useCameraDevice, useCameraPermission, useFrameProcessor, type Frame } from 'react-native-vision-camera';
import { Worklets } from 'react-native-worklets-core';
import ImageEditor from '@react-native-community/image-editor';
import {
  AutoCapture,
  ID_OUTPUT,
  ID_RATIO,
  SdkError,
  VerificationSession,
  idFrameRect,
  pickLanguage,
  frameTurns,
  sampleFramePlane,
  selfieOutput,
  selfieRect,
  viewRectToSource,
  type CaptureStep,
  type CustomizationInput,
  type Fetch,
  type Hint,
  type Messages,
  type StepChange,
  type Theme,
  type VerificationResult,
} from '../../core/src';

export interface ServiceVerificationProps {
  /** The SDK token (JWT) your backend minted for the workflow. */
  token: string;
  customization?: CustomizationInput;
  onSuccess?(result: VerificationResult): void;
  onError?(error: SdkError): void;
  onCancel?(): void;
  onStepChange?(step: StepChange): void;
  /** en, sw or fr; default: the device's language. */
  language?: string;
}

type Screen =
  | { kind: 'loading' }
  | { kind: 'landing' }
  | { kind: 'capture'; index: number }
  | { kind: 'review'; index: number; dataUrl: string }
  | { kind: 'denied'; index: number }
  | { kind: 'nocamera'; index: number }
  | { kind: 'submitting' }
  | { kind: 'done' }
  | { kind: 'error'; retry?: () => void };

function deviceLanguage(): string[] {
  try {
    return [Intl.DateTimeFormat().resolvedOptions().locale];
  } catch {
    return [];
  }
}

const fetchFn: Fetch = (url, init) => fetch(url, init) as ReturnType<Fetch>;

/**
 * The verification flow in a React Native app: landing, ID front and back,
 * selfie when the workflow needs one, review with retake, submission, and
 * the callbacks of the spec.
 */
export function ServiceVerification(props: ServiceVerificationProps): React.JSX.Element {
  const session = useMemo(
    () =>
      new VerificationSession({
        token: props.token,
        customization: props.customization,
        language: pickLanguage(props.language ? [props.language] : deviceLanguage()),
        platform: 'react_native',
        fetch: fetchFn,
        onSuccess: (r) => props.onSuccess?.(r),
        onError: (e) => props.onError?.(e),
        onCancel: () => props.onCancel?.(),
        onStepChange: (s) => props.onStepChange?.(s),
      }),
    // A new token is a new session; callbacks are read through props.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [props.token],
  );
  const [screen, setScreen] = useState<Screen>({ kind: 'loading' });
  const [, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    session.start().then(
      () => live && (setVersion((v) => v + 1), setScreen({ kind: 'landing' })),
      () => live && setScreen({ kind: 'error' }),
    );
    return () => {
      live = false;
    };
  }, [session]);

  const c = session.customization;
  const m = c.messages;
  const styles = useMemo(() => makeStyles(c.theme), [c]);

  const goto = useCallback(
    (index: number) => {
      session.step({ name: session.steps[index], index: index + 1, total: session.steps.length });
      setScreen({ kind: 'capture', index });
    },
    [session],
  );

  const submit = useCallback(async () => {
    setScreen({ kind: 'submitting' });
    try {
      await session.submit();
      setScreen({ kind: 'done' });
    } catch {
      // onError has been called; not a verdict (spec error rule 3).
      setScreen({ kind: 'error', retry: () => void submit() });
    }
  }, [session]);

  const cancel = () => session.cancel();
  const close = (
    <TouchableOpacity accessibilityRole="button" accessibilityLabel={m.cancelButton} testID="tmb-cancel" onPress={cancel} style={styles.close}>
      <Text style={styles.closeText}>×</Text>
    </TouchableOpacity>
  );

  switch (screen.kind) {
    case 'loading':
    case 'submitting':
      return (
        <View style={styles.screen} testID={`tmb-${screen.kind}`}>
          <ActivityIndicator color={c.theme.primaryColor} />
          {screen.kind === 'submitting' ? <Text style={styles.p}>{m.submitting}</Text> : null}
        </View>
      );
    case 'landing': {
      const l = c.landing;
      const content = (
        <>
          {l.logoUrl ? <Image source={{ uri: l.logoUrl }} style={styles.logo} resizeMode="contain" /> : null}
          {l.heroImage ? <Image testID="tmb-hero" source={{ uri: l.heroImage }} style={styles.hero} resizeMode="contain" /> : null}
          <Text style={styles.h1}>{l.heroMessage}</Text>
          <Text style={styles.p}>{l.tagline}</Text>
          <Button style={styles} testID="tmb-start" label={l.getStartedButtonText} onPress={() => goto(0)} />
          {close}
        </>
      );
      // landing.backgroundImage (the workflow's background_image) covers
      // the screen behind the texts, as on the web.
      return l.backgroundImage ? (
        <ImageBackground testID="tmb-landing" source={{ uri: l.backgroundImage }} resizeMode="cover" style={styles.screen}>
          {content}
        </ImageBackground>
      ) : (
        <View style={styles.screen} testID="tmb-landing">
          {content}
        </View>
      );
    }
    case 'capture':
      return (
        <CaptureScreen
          key={screen.index}
          step={session.steps[screen.index]}
          session={session}
          styles={styles}
          onCaptured={(dataUrl) => {
            session.step({ name: 'review', index: screen.index + 1, total: session.steps.length });
            setScreen({ kind: 'review', index: screen.index, dataUrl });
          }}
          onDenied={() => {
            session.fail(new SdkError('CAMERA_PERMISSION_DENIED', 'the camera permission was denied'));
            setScreen({ kind: 'denied', index: screen.index });
          }}
          onNoCamera={() => setScreen({ kind: 'nocamera', index: screen.index })}
          close={close}
        />
      );
    case 'denied':
    case 'nocamera':
      // No file picker in the app: the holder can allow the camera and
      // try again, or leave. No camera is not an error (as on the web).
      return (
        <View style={styles.screen} testID={`tmb-${screen.kind}`}>
          <Text style={styles.h1}>{screen.kind === 'denied' ? m.cameraDeniedTitle : m.noCameraTitle}</Text>
          <Text style={styles.p}>{screen.kind === 'denied' ? m.appCameraDeniedText : m.appNoCameraText}</Text>
          <Button style={styles} testID="tmb-retry-camera" label={m.retryCameraButton} onPress={() => goto(screen.index)} />
          {close}
        </View>
      );
    case 'review': {
      const last = screen.index === session.steps.length - 1;
      const step = session.steps[screen.index];
      return (
        <View style={styles.screen} testID={`tmb-review-${step}`}>
          <Text style={styles.h1}>{m.reviewTitle}</Text>
          <Image source={{ uri: screen.dataUrl }} style={step === 'selfie' ? styles.reviewSelfie : styles.reviewId} resizeMode="contain" />
          <View style={styles.row}>
            <Button style={styles} testID="tmb-retake" secondary label={m.retakeButton} onPress={() => goto(screen.index)} />
            <Button
              style={styles}
              testID="tmb-continue"
              label={last ? m.startVerificationButton : m.continueButton}
              onPress={() => {
                session.setCapture(step, screen.dataUrl);
                if (last) void submit();
                else goto(screen.index + 1);
              }}
            />
          </View>
          {close}
        </View>
      );
    }
    case 'done':
      return (
        <View style={styles.screen} testID="tmb-done">
          <Text style={styles.h1}>✓</Text>
          <Text style={styles.p}>{m.done}</Text>
        </View>
      );
    case 'error':
      return (
        <View style={styles.screen} testID="tmb-error">
          <Text style={styles.h1}>{m.errorTitle}</Text>
          <Text style={styles.p}>{m.errorText}</Text>
          {screen.retry ? <Button style={styles} testID="tmb-try-again" label={m.tryAgainButton} onPress={screen.retry} /> : null}
          {close}
        </View>
      );
  }
}

// Live guidance: the same analysis as the web SDK (core quality.ts) on
// the same 200 x 126 sample of the ID frame, about six times a second.
export const ANALYSE_W = 200;
export const ANALYSE_H = Math.round(ANALYSE_W / ID_RATIO);
export const ANALYSE_FPS = 6;
// How long a missing camera may take to appear in the device list before
// the holder is told there is none.
export const NO_CAMERA_WAIT_MS = 1500;

export function hintText(m: Messages, h: Hint): string {
  return { no_card: m.guideNoCard, blurry: m.guideBlurry, glare: m.guideGlare, dark: m.guideDark, hold_steady: m.guideHoldSteady, ready: m.guideReady }[h];
}

function CaptureScreen(p: {
  step: CaptureStep;
  session: VerificationSession;
  styles: ReturnType<typeof makeStyles>;
  onCaptured(dataUrl: string): void;
  onDenied(): void;
  onNoCamera(): void;
  close: React.ReactNode;
}): React.JSX.Element {
  const selfie = p.step === 'selfie';
  const device = useCameraDevice(selfie ? 'front' : 'back');
  const { hasPermission, requestPermission } = useCameraPermission();
  const camera = useRef<Camera>(null);
  const [view, setView] = useState({ width: 0, height: 0 });
  const [busy, setBusy] = useState(false);
  const [hint, setHint] = useState<Hint | undefined>(undefined);
  const busyRef = useRef(false);
  const m = p.session.customization.messages;
  const cam = p.session.customization.camera;

  useEffect(() => {
    if (!hasPermission) {
      requestPermission().then((ok) => {
        if (!ok) p.onDenied();
      });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [hasPermission]);

  // No camera facing the right way: said after a moment, since the
  // camera list may still be loading when the screen first draws.
  useEffect(() => {
    if (device || !hasPermission) return;
    const t = setTimeout(() => p.onNoCamera(), NO_CAMERA_WAIT_MS);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [device, hasPermission]);

  const frame = view.width ? (selfie ? selfieRect(view.width, view.height) : idFrameRect(view.width, view.height)) : undefined;
  const [title, subtitle] =
    p.step === 'id_front' ? [m.idFrontTitle, m.idFrontSubtitle] : p.step === 'id_back' ? [m.idBackTitle, m.idBackSubtitle] : [m.selfieTitle, m.selfieSubtitle];

  const shoot = async () => {
    if (!camera.current || !frame || busyRef.current) return;
    busyRef.current = true;
    setBusy(true);
    try {
      // Full quality at capture (spec): qualityPrioritization is
      // VisionCamera 3's option, photoQualityBalance (on the Camera) 4's;
      // the crop re-encodes at 0.95.
      const photo = await camera.current.takePhoto({ flash: 'off', qualityPrioritization: 'quality' });
      let pw = photo.width;
      let ph = photo.height;
      // A portrait screen with a landscape sensor image: the file is
      // rotated by its orientation tag, which the crop honours.
      if (view.height > view.width !== ph > pw) [pw, ph] = [ph, pw];
      const r = viewRectToSource(frame, pw, ph, view.width, view.height);
      const out = selfie ? selfieOutput() : ID_OUTPUT;
      const res = await ImageEditor.cropImage(photo.path.startsWith('file://') ? photo.path : `file://${photo.path}`, {
        offset: { x: r.x, y: r.y },
        size: { width: r.width, height: r.height },
        displaySize: { width: out.width, height: out.height },
        resizeMode: 'cover',
        quality: 0.95,
        format: 'jpeg',
        includeBase64: true,
      });
      p.onCaptured(`data:image/jpeg;base64,${res.base64}`);
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };
  // The frame processor's callback runs later than the render that made
  // it: it reaches the latest shoot through a ref.
  const shootRef = useRef(shoot);
  shootRef.current = shoot;

  // The JS side of the guidance: the frame processor (camera thread)
  // hands over the small sample; the shared AutoCapture judges it here,
  // exactly as the web SDK does, and fires the shutter when the card has
  // been found, sharp and steady for AUTO_CAPTURE_FRAMES samples.
  const auto = useRef(new AutoCapture());
  const onSample = useMemo(
    () =>
      Worklets.createRunOnJS((sample: number[]) => {
        if (busyRef.current) return;
        const { quality, shoot: now } = auto.current.push({ data: Uint8Array.from(sample), width: ANALYSE_W, height: ANALYSE_H });
        setHint(quality.hint);
        if (now) void shootRef.current();
      }),
    [],
  );
  const vw = view.width;
  const vh = view.height;
  const frameProcessor = useFrameProcessor(
    (f: Frame) => {
      'worklet';
      if (selfie || !frame || f.pixelFormat !== 'yuv') return;
      runAtTargetFps(ANALYSE_FPS, () => {
        'worklet';
        // A 'yuv' frame starts with its Y (luma) plane, bytesPerRow apart.
        const plane = new Uint8Array(f.toArrayBuffer());
        const turns = frameTurns(f.orientation, f.width, f.height, vw, vh);
        const s = sampleFramePlane(plane, f.bytesPerRow, f.width, f.height, turns, vw, vh, frame, ANALYSE_W, ANALYSE_H);
        onSample(Array.from(s));
      });
    },
    [selfie, vw, vh, frame?.x, frame?.y, frame?.width, frame?.height, onSample],
  );

  return (
    <View style={p.styles.cam} testID={`tmb-capture-${p.step}`} onLayout={(e: LayoutChangeEvent) => setView(e.nativeEvent.layout)}>
      {device && hasPermission ? (
        <Camera
          ref={camera}
          style={StyleSheet.absoluteFill}
          device={device}
          isActive
          photo
          photoQualityBalance="quality"
          pixelFormat="yuv"
          frameProcessor={selfie ? undefined : frameProcessor}
        />
      ) : null}
      {frame ? (
        <View
          pointerEvents="none"
          testID="tmb-frame"
          style={{
            position: 'absolute',
            left: frame.x,
            top: frame.y,
            width: frame.width,
            height: frame.height,
            borderWidth: 3,
            borderColor: !selfie && (hint === 'ready' || hint === 'hold_steady') ? '#2e7d32' : selfie ? cam.selfieOutlineColor : cam.idFrameColor,
            borderRadius: selfie ? frame.width / 2 : 14,
          }}
        />
      ) : null}
      <View style={p.styles.top}>
        <Text style={p.styles.camTitle}>{title}</Text>
        <Text style={p.styles.camText}>{subtitle}</Text>
      </View>
      {frame ? (
        <View testID="tmb-guide" style={[p.styles.guide, { top: selfie ? frame.y + frame.height - 44 : frame.y + 10 }]}>
          <Text style={p.styles.guideText}>{selfie ? m.guideSelfie : hintText(m, hint ?? 'no_card')}</Text>
        </View>
      ) : null}
      <View style={p.styles.bottom}>
        <TouchableOpacity
          accessibilityRole="button"
          accessibilityLabel={m.captureButton}
          testID="tmb-shutter"
          disabled={busy}
          onPress={() => void shoot()}
          style={[p.styles.shutter, { backgroundColor: cam.captureButtonColor }]}
        />
      </View>
      {p.close}
    </View>
  );
}

function Button(p: { label: string; onPress(): void; testID: string; secondary?: boolean; style: ReturnType<typeof makeStyles> }): React.JSX.Element {
  return (
    <TouchableOpacity accessibilityRole="button" testID={p.testID} onPress={p.onPress} style={p.secondary ? p.style.btn2 : p.style.btn}>
      <Text style={p.secondary ? p.style.btn2Text : p.style.btnText}>{p.label}</Text>
    </TouchableOpacity>
  );
}

function makeStyles(t: Theme) {
  const { backgroundColor: bg, textColor: text, primaryColor: primary, secondaryColor: secondary, buttonTextColor: buttonText } = t;
  return StyleSheet.create({
    screen: { flex: 1, backgroundColor: bg, alignItems: 'center', justifyContent: 'center', padding: 24 },
    cam: { flex: 1, backgroundColor: '#000' },
    h1: { color: text, fontSize: 22, fontWeight: '700', textAlign: 'center', marginBottom: 8 },
    p: { color: text, fontSize: 16, textAlign: 'center', marginBottom: 16, opacity: 0.85 },
    logo: { height: 48, width: 200, marginBottom: 16 },
    hero: { width: 240, height: 160, marginBottom: 16 },
    btn: { backgroundColor: primary, borderRadius: 999, paddingVertical: 13, paddingHorizontal: 28, margin: 6 },
    btnText: { color: buttonText, fontSize: 16, fontWeight: '600', textAlign: 'center' },
    btn2: { backgroundColor: secondary, borderRadius: 999, paddingVertical: 13, paddingHorizontal: 28, margin: 6 },
    btn2Text: { color: text, fontSize: 16, fontWeight: '600', textAlign: 'center' },
    row: { flexDirection: 'row', flexWrap: 'wrap', justifyContent: 'center' },
    reviewId: { width: 295, height: 186, borderRadius: 10, marginBottom: 16 },
    reviewSelfie: { width: 200, height: 250, borderRadius: 10, marginBottom: 16 },
    top: { position: 'absolute', top: 40, left: 56, right: 56 },
    camTitle: { color: '#fff', fontSize: 19, fontWeight: '700', textAlign: 'center' },
    camText: { color: '#fff', fontSize: 15, textAlign: 'center' },
    guide: { position: 'absolute', left: 24, right: 24, alignItems: 'center' },
    guideText: { color: '#fff', fontSize: 15, fontWeight: '600', backgroundColor: 'rgba(0,0,0,0.55)', paddingVertical: 6, paddingHorizontal: 12, borderRadius: 999, overflow: 'hidden' },
    bottom: { position: 'absolute', bottom: 32, left: 0, right: 0, alignItems: 'center' },
    shutter: { width: 68, height: 68, borderRadius: 34, borderWidth: 5, borderColor: 'rgba(255,255,255,0.6)' },
    close: { position: 'absolute', top: 36, right: 12, width: 36, height: 36, borderRadius: 18, backgroundColor: 'rgba(0,0,0,0.35)', alignItems: 'center', justifyContent: 'center' },
    closeText: { color: '#fff', fontSize: 20 },
  });
}
