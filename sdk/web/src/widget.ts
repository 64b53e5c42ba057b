import {
  AutoCapture,
  ID_OUTPUT,
  ID_RATIO,
  SdkError,
  SELFIE_BOX,
  VerificationSession,
  centredAspect,
  idFrameRect,
  selfieOutput,
  selfieRect,
  toLuma,
  viewRectToSource,
  type CaptureStep,
  type Hint,
  type Messages,
  type Rect,
} from '../../core/src';
import { CameraError, openCamera, stopCamera } from './camera';
import { cropToJpeg, decodeFile, sample } from './image';
import { css } from './styles';

type Node = HTMLElement;

function el(tag: string, cls = '', text = ''): Node {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text) n.textContent = text;
  return n;
}

function button(cls: string, text: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', cls, text) as HTMLButtonElement;
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

// Quality analysis: a 200 x 126 copy of the ID frame (ID-1 proportions),
// about six times a second.
const ANALYSE_W = 200;
const ANALYSE_H = Math.round(ANALYSE_W / ID_RATIO);
const ANALYSE_MS = 160;
// The desktop asks for the phone's progress every 2 s: the holder sees
// the phone's step within a moment, at one cheap request each time.
const HANDOFF_POLL_MS = 2000;

/** The web SDK's screens over a VerificationSession. */
export class Widget {
  readonly root: Node;
  private style: HTMLStyleElement;
  private stream?: MediaStream;
  private facing = '';
  private timer?: ReturnType<typeof setInterval>;
  private index = 0;
  private closed = false;
  private cameraBroken: 'denied' | 'none' | 'unsupported' | '' = '';
  // Undoes what the screen on show added outside its own nodes (the
  // camera screen's resize listener); run when the next screen replaces it.
  private leave?: () => void;

  /**
   * handoff: offer "Continue on your phone" (a desktop session); phone:
   * this widget runs on a phone opened by a hand-off.
   */
  constructor(
    private readonly session: VerificationSession,
    host: HTMLElement,
    private readonly mode: { handoff: boolean; phone: boolean } = { handoff: true, phone: false },
  ) {
    this.root = el('div', 'tmb-root');
    this.root.setAttribute('role', 'dialog');
    this.root.setAttribute('aria-modal', 'true');
    this.style = document.createElement('style');
    this.root.appendChild(this.style);
    host.appendChild(this.root);
    this.applyStyle();
    this.loading('');
  }

  private get m(): Messages {
    return this.session.customization.messages;
  }

  private applyStyle(): void {
    this.style.textContent = css(this.session.customization);
  }

  private show(screen: Node, closable = true): void {
    this.stopLoop();
    this.leave?.();
    this.leave = undefined;
    for (const c of Array.from(this.root.children)) if (c !== this.style) c.remove();
    this.root.appendChild(screen);
    if (closable) {
      // Named for screen readers, which would read "×" as "multiplication".
      const x = button('tmb-close', '×', () => this.cancel());
      x.setAttribute('aria-label', this.m.cancelButton);
      this.root.appendChild(x);
    }
    const focus = screen.querySelector('button');
    (focus as HTMLButtonElement | null)?.focus?.();
  }

  loading(text: string): void {
    const s = el('div', 'tmb-screen');
    s.append(el('div', 'tmb-spin'));
    if (text) s.append(el('p', 'tmb-p', text));
    this.show(s, false);
  }

  landing(): void {
    this.applyStyle();
    const l = this.session.customization.landing;
    const s = el('div', 'tmb-screen tmb-landing');
    if (l.backgroundImage) s.style.backgroundImage = `url("${encodeURI(l.backgroundImage)}")`;
    if (l.logoUrl) {
      const img = el('img', 'tmb-logo') as HTMLImageElement;
      img.src = l.logoUrl;
      img.alt = '';
      s.append(img);
    }
    if (l.heroImage) {
      const img = el('img', 'tmb-hero') as HTMLImageElement;
      img.src = l.heroImage;
      img.alt = '';
      s.append(img);
    }
    s.append(el('h1', 'tmb-h1', l.heroMessage), el('p', 'tmb-p', l.tagline));
    s.append(button('tmb-btn tmb-start', l.getStartedButtonText, () => this.goto(0)));
    this.show(s);
  }

  private goto(i: number): void {
    this.index = i;
    const step = this.session.steps[i];
    this.session.step({ name: step, index: i + 1, total: this.session.steps.length });
    if (this.cameraBroken) this.fallback(step, this.cameraBroken);
    else void this.capture(step);
  }

  private titles(step: CaptureStep): [string, string] {
    const m = this.m;
    if (step === 'id_front') return [m.idFrontTitle, m.idFrontSubtitle];
    if (step === 'id_back') return [m.idBackTitle, m.idBackSubtitle];
    return [m.selfieTitle, m.selfieSubtitle];
  }

  private hintText(h: Hint): string {
    const m = this.m;
    return { no_card: m.guideNoCard, blurry: m.guideBlurry, glare: m.guideGlare, dark: m.guideDark, hold_steady: m.guideHoldSteady, ready: m.guideReady }[h];
  }

  private async capture(step: CaptureStep): Promise<void> {
    const selfie = step === 'selfie';
    this.loading('');
    const facing = selfie ? 'user' : 'environment';
    try {
      // The back of the card reuses the stream of the front: no second
      // start-up, and the holder keeps the card in view for a retake.
      const live = this.stream?.getVideoTracks().some((t) => t.readyState === 'live');
      if (!live || this.facing !== facing) {
        stopCamera(this.stream);
        this.stream = await openCamera(facing);
        this.facing = facing;
      }
    } catch (e) {
      const problem = e instanceof CameraError ? e.problem : 'none';
      this.cameraBroken = problem;
      if (problem === 'denied') this.session.fail(new SdkError('CAMERA_PERMISSION_DENIED', (e as Error).message));
      this.fallback(step, problem);
      return;
    }
    if (this.closed) return stopCamera(this.stream);
    const s = el('div', 'tmb-screen tmb-cam');
    const video = el('video', 'tmb-video') as HTMLVideoElement;
    video.muted = true;
    video.playsInline = true;
    video.autoplay = true;
    video.setAttribute('playsinline', '');
    video.srcObject = this.stream ?? null;
    if (selfie) video.style.transform = 'scaleX(-1)'; // a mirror, as people expect of a front camera
    const frame = el('div', selfie ? 'tmb-frame tmb-oval' : 'tmb-frame');
    const [title, subtitle] = this.titles(step);
    const top = el('div', 'tmb-top');
    top.append(el('h1', 'tmb-h1', title), el('p', 'tmb-p', subtitle));
    const guide = el('div', 'tmb-guide', selfie ? this.m.guideSelfie : this.m.guideNoCard);
    guide.setAttribute('aria-live', 'polite');
    const bottom = el('div', 'tmb-bottom');
    const shoot = () => {
      const r = this.sourceRect(video, selfie);
      if (!r) return;
      const out = selfie ? selfieOutput() : ID_OUTPUT;
      const url = cropToJpeg(video, r, out.width, out.height);
      this.review(step, url);
    };
    const shutter = button('tmb-shutter', '', shoot);
    shutter.setAttribute('aria-label', this.m.captureButton);
    bottom.append(shutter, this.uploadLink(step));
    s.append(video, frame, top, guide, bottom);
    this.show(s);
    const layout = () => {
      const w = this.root.clientWidth;
      const h = this.root.clientHeight;
      const r = selfie ? selfieRect(w, h) : idFrameRect(w, h);
      Object.assign(frame.style, { left: `${r.x}px`, top: `${r.y}px`, width: `${r.width}px`, height: `${r.height}px` });
      // Inside the frame: below it the controls need the room on short
      // screens. A hint too long for one line (French or Kiswahili on a
      // phone) wraps within the card frame, or the screen for the oval;
      // the selfie's grows upwards from the oval's foot.
      guide.style.maxWidth = `${Math.max(120, (selfie ? w : r.width) - 24)}px`;
      if (selfie) guide.style.bottom = `${h - (r.y + r.height) + 12}px`;
      else guide.style.top = `${r.y + 10}px`;
    };
    layout();
    window.addEventListener('resize', layout);
    this.leave = () => window.removeEventListener('resize', layout);
    try {
      await video.play();
    } catch {
      // autoplay may wait for the first frame; the loop checks readiness
    }
    const auto = new AutoCapture();
    const canvas = document.createElement('canvas');
    this.timer = setInterval(() => {
      if (!s.isConnected) return this.stopLoop();
      if (selfie) return;
      const r = this.sourceRect(video, false);
      if (!r) return;
      const { quality, shoot: now } = auto.push(toLuma(sample(video, r, ANALYSE_W, ANALYSE_H, canvas), ANALYSE_W, ANALYSE_H));
      guide.textContent = this.hintText(quality.hint);
      const ok = quality.hint === 'ready' || quality.hint === 'hold_steady';
      guide.classList.toggle('tmb-ok', ok);
      frame.classList.toggle('tmb-ok', ok);
      guide.dataset.hint = quality.hint;
      if (now) shoot();
    }, ANALYSE_MS);
  }

  /** The on-screen frame in the video's own pixels; undefined before the first frame. */
  private sourceRect(video: HTMLVideoElement, selfie: boolean): Rect | undefined {
    const vw = video.videoWidth;
    const vh = video.videoHeight;
    if (!vw || !vh) return undefined;
    const w = this.root.clientWidth;
    const h = this.root.clientHeight;
    const r = selfie ? selfieRect(w, h) : idFrameRect(w, h);
    const src = viewRectToSource(r, vw, vh, w, h);
    if (selfie) src.x = vw - src.x - src.width; // the view is mirrored; the photo is not
    return src;
  }

  private uploadLink(step: CaptureStep): Node {
    const wrap = el('div', 'tmb-alt');
    const input = el('input', 'tmb-file') as HTMLInputElement;
    input.type = 'file';
    input.accept = 'image/jpeg,image/png,image/*';
    input.addEventListener('change', () => {
      const f = input.files?.[0];
      if (f) void this.fromFile(step, f);
    });
    wrap.append(input, button('tmb-link tmb-upload', this.m.uploadButton, () => input.click()));
    // On a computer the camera may be a poor webcam: the phone is offered too.
    if (this.offerHandoff()) {
      wrap.append(el('br'), button('tmb-link tmb-handoff', this.m.handoffButton, () => void this.handoff()));
    }
    return wrap;
  }

  private async fromFile(step: CaptureStep, f: File): Promise<void> {
    try {
      const { img, width, height } = await decodeFile(f);
      const selfie = step === 'selfie';
      const out = selfie ? selfieOutput() : ID_OUTPUT;
      const r = centredAspect(width, height, selfie ? SELFIE_BOX.width / SELFIE_BOX.height : ID_RATIO);
      this.review(step, cropToJpeg(img, r, out.width, out.height));
    } catch {
      // An unreadable file: stay where we are, the holder can pick another.
    }
  }

  /** "Continue on your phone" is for a computer: a mouse, not a finger, points. */
  private offerHandoff(): boolean {
    return this.mode.handoff && typeof matchMedia === 'function' && matchMedia('(pointer: fine)').matches;
  }

  /** Permission denied, no camera or an old browser: say so and offer a file. */
  private fallback(step: CaptureStep, problem: 'denied' | 'none' | 'unsupported'): void {
    this.releaseCamera();
    const m = this.m;
    const s = el('div', 'tmb-screen tmb-fallback');
    s.dataset.problem = problem;
    const [title] = this.titles(step);
    s.append(el('h1', 'tmb-h1', problem === 'denied' ? m.cameraDeniedTitle : m.noCameraTitle));
    s.append(el('p', 'tmb-p', problem === 'denied' ? m.cameraDeniedText : m.noCameraText));
    s.append(el('p', 'tmb-p', title));
    const input = el('input', 'tmb-file') as HTMLInputElement;
    input.type = 'file';
    input.accept = 'image/jpeg,image/png,image/*';
    input.setAttribute('capture', step === 'selfie' ? 'user' : 'environment');
    input.addEventListener('change', () => {
      const f = input.files?.[0];
      if (f) void this.fromFile(step, f);
    });
    s.append(input, button('tmb-btn tmb-upload', m.uploadButton, () => input.click()));
    // A computer without a camera: the phone in the holder's pocket has
    // one. A phone whose camera is off is not sent to a phone.
    if (this.offerHandoff()) s.append(button('tmb-btn tmb-btn2 tmb-handoff', m.handoffButton, () => void this.handoff()));
    if (problem !== 'unsupported') {
      s.append(
        button('tmb-link tmb-retry-camera', m.retryCameraButton, () => {
          this.cameraBroken = '';
          this.goto(this.index);
        }),
      );
    }
    this.show(s);
  }

  private review(step: CaptureStep, dataUrl: string): void {
    // The camera stays on for a retake, except after the last capture.
    if (this.index === this.session.steps.length - 1) this.releaseCamera();
    this.session.step({ name: 'review', index: this.index + 1, total: this.session.steps.length });
    const m = this.m;
    const s = el('div', 'tmb-screen tmb-review');
    s.dataset.step = step;
    const img = el('img', 'tmb-review-img') as HTMLImageElement;
    img.src = dataUrl;
    img.alt = this.titles(step)[0];
    const last = this.index === this.session.steps.length - 1;
    const row = el('div', 'tmb-row');
    row.append(
      button('tmb-btn tmb-btn2 tmb-retake', m.retakeButton, () => this.goto(this.index)),
      button('tmb-btn tmb-continue', last ? m.startVerificationButton : m.continueButton, () => {
        this.session.setCapture(step, dataUrl);
        if (last) void this.submit();
        else this.goto(this.index + 1);
      }),
    );
    s.append(el('h1', 'tmb-h1', m.reviewTitle), img, row);
    this.show(s);
  }

  private releaseCamera(): void {
    stopCamera(this.stream);
    this.stream = undefined;
  }

  private async submit(): Promise<void> {
    this.releaseCamera();
    this.loading(this.m.submitting);
    try {
      await this.session.submit();
    } catch {
      // onError has been called; an error is not a verdict (spec error
      // rule 3): offer to try again.
      this.errorScreen(() => void this.submit());
      return;
    }
    this.done(this.mode.phone ? this.m.handoffDone : this.m.done);
  }

  private done(text: string): void {
    const s = el('div', 'tmb-screen tmb-done');
    s.append(el('div', 'tmb-tick', '✓'), el('p', 'tmb-p', text));
    this.show(s);
  }

  /**
   * Continue on a phone: a QR code of a single-use hand-off URL, then the
   * phone's progress, polled every HANDOFF_POLL_MS, until its result
   * completes this session (onSuccess here, with the phone's verdict).
   */
  private async handoff(): Promise<void> {
    this.releaseCamera();
    this.loading('');
    let h;
    try {
      h = await this.session.createHandoff();
    } catch {
      // onError has been called; the holder may still upload a photo.
      this.errorScreen(() => this.goto(this.index));
      return;
    }
    if (this.closed) return;
    const m = this.m;
    const s = el('div', 'tmb-screen tmb-handoff-screen');
    const img = el('img', 'tmb-qr') as HTMLImageElement;
    // One pixel per module: drawn at the largest whole multiple that fits
    // 300 px (and the screen), so modules stay square and sharp.
    img.onload = () => {
      const n = img.naturalWidth || 1;
      img.style.width = `${Math.max(1, Math.floor(Math.min(300, this.root.clientWidth * 0.8) / n)) * n}px`;
    };
    img.src = h.qr;
    // Not the URL: a screen reader would read the token out.
    img.alt = m.handoffTitle;
    const state = el('p', 'tmb-p tmb-handoff-state', m.handoffWaiting);
    state.setAttribute('aria-live', 'polite');
    state.dataset.state = 'waiting';
    // Back to this computer's camera or file picker (the code stays
    // valid until it expires; this page stops following it).
    const back = button('tmb-link tmb-handoff-back', m.handoffBack, () => this.goto(this.index));
    s.append(el('h1', 'tmb-h1', m.handoffTitle), el('p', 'tmb-p', m.handoffText), img, state, back);
    this.show(s);
    let failures = 0;
    let polling = false;
    this.timer = setInterval(async () => {
      if (polling || !s.isConnected) return;
      polling = true;
      try {
        const st = await this.session.pollHandoff(h.token);
        failures = 0;
        if (!s.isConnected) return;
        state.dataset.state = st;
        if (st === 'completed') return this.done(m.done);
        state.textContent = { waiting: m.handoffWaiting, opened: m.handoffOpened, running: m.handoffRunning, expired: m.handoffExpired }[st];
        if (st === 'expired') {
          this.stopLoop();
          img.remove();
          s.insertBefore(button('tmb-btn tmb-handoff-new', m.handoffNewCode, () => void this.handoff()), back);
        }
      } catch (e) {
        // A network blip is polled through; three in a row end it.
        if (++failures >= 3 && s.isConnected) {
          this.session.fail(e);
          this.errorScreen(() => void this.handoff());
        }
      } finally {
        polling = false;
      }
    }, HANDOFF_POLL_MS);
  }

  /** A neutral error screen: the check did not run, nothing about the holder. */
  errorScreen(retry?: () => void): void {
    const m = this.m;
    const s = el('div', 'tmb-screen tmb-error');
    s.append(el('h1', 'tmb-h1', m.errorTitle), el('p', 'tmb-p', m.errorText));
    if (retry) s.append(button('tmb-btn tmb-try-again', m.tryAgainButton, retry));
    this.show(s);
  }

  private stopLoop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  cancel(): void {
    this.session.cancel();
    this.close();
  }

  close(): void {
    this.closed = true;
    this.stopLoop();
    stopCamera(this.stream);
    this.root.remove();
  }
}
