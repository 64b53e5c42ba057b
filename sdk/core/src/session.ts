import { ApiClient, type ApiEvents, type Fetch, type Handoff, type HandoffStatus } from './api';
import { resolveCustomization, defaultCamera, defaultTheme, type Customization, type CustomizationInput, type WorkflowSdkConfig } from './config';
import { SdkError } from './errors';
import { messagesFor, texts, type Language } from './i18n';
import { decodeSdkToken, type SdkClaims } from './jwt';
import { buildPayload, compressPayload, newRequestId, type Captures } from './payload';
import { toResult, type VerificationResult } from './result';
import { captureSteps, type CaptureStep, type StepChange, type Workflow } from './steps';

/** The SDK defaults for a language: the lowest configuration layer. */
export function defaultCustomization(lang: Language): Customization {
  const t = texts[lang];
  return {
    theme: { ...defaultTheme },
    landing: { backgroundImage: '', logoUrl: '', heroImage: '', heroMessage: t.heroMessage, tagline: t.tagline, getStartedButtonText: t.getStartedButtonText },
    messages: messagesFor(lang),
    camera: { ...defaultCamera },
  };
}

export interface Callbacks {
  onSuccess?(result: VerificationResult): void;
  onError?(error: SdkError): void;
  onCancel?(): void;
  onStepChange?(step: StepChange): void;
}

export interface SessionOptions extends Callbacks {
  token: string;
  customization?: CustomizationInput;
  language: Language;
  /** Which of the workflow's SDK configurations applies. */
  platform: 'web' | 'react_native';
  fetch: Fetch;
  events?: ApiEvents;
}

/**
 * One verification from token to verdict, shared by the web SDK and the
 * React Native component; they draw the screens and take the photos.
 */
export class VerificationSession {
  claims?: SdkClaims;
  workflow?: Workflow;
  steps: CaptureStep[] = [];
  customization: Customization;
  private api?: ApiClient;
  private captures: Partial<Captures> = {};
  // One request id per set of captures: a resubmission after a dropped
  // connection replays instead of running again; a retake makes a new set.
  private requestId = newRequestId();
  private finished = false;

  constructor(private readonly opts: SessionOptions) {
    this.customization = resolveCustomization(defaultCustomization(opts.language), opts.customization, undefined);
  }

  /** Reports an error to onError once it is an SdkError; returns it. */
  fail(e: unknown): SdkError {
    const err = e instanceof SdkError ? e : new SdkError('VERIFICATION_FAILED', e instanceof Error ? e.message : String(e));
    this.opts.onError?.(err);
    return err;
  }

  step(change: StepChange): void {
    this.opts.onStepChange?.(change);
  }

  /** Initialisation: decode the JWT, refresh, fetch the workflow, decide the selfie. */
  async start(): Promise<void> {
    try {
      this.claims = decodeSdkToken(this.opts.token);
      this.api = new ApiClient(this.claims, this.opts.fetch, this.opts.events);
      await this.api.refresh();
      this.workflow = await this.api.getWorkflow();
      this.steps = captureSteps(this.workflow.steps);
      const key = this.opts.platform === 'web' ? 'web_sdk_configs' : 'react_native_sdk_configs';
      this.customization = resolveCustomization(defaultCustomization(this.opts.language), this.opts.customization, this.workflow[key] as WorkflowSdkConfig | undefined);
    } catch (e) {
      throw this.fail(e);
    }
    this.step({ name: 'landing', index: 0, total: this.steps.length });
  }

  setCapture(step: CaptureStep, dataUrl: string): void {
    this.captures[step] = dataUrl;
    this.requestId = newRequestId();
  }

  capture(step: CaptureStep): string | undefined {
    return this.captures[step];
  }

  /** Builds, compresses and submits; calls onSuccess or onError. */
  async submit(): Promise<VerificationResult> {
    if (!this.api || !this.claims) throw this.fail(new SdkError('VERIFICATION_FAILED', 'submit before start'));
    const c = this.captures;
    if (!c.id_front || !c.id_back || (this.steps.includes('selfie') && !c.selfie)) {
      throw this.fail(new SdkError('VERIFICATION_FAILED', 'a capture is missing'));
    }
    this.step({ name: 'submitting', index: 0, total: this.steps.length });
    try {
      const payload = compressPayload(
        buildPayload({ clientId: this.claims.clientId, workflowId: this.claims.workflowId, captures: c as Captures, requestId: this.requestId, config: this.claims.config }),
      );
      const raw = await this.api.submit(payload);
      let result: VerificationResult;
      try {
        result = toResult(raw);
      } catch (e) {
        throw new SdkError('VERIFICATION_FAILED', (e as Error).message);
      }
      this.finished = true;
      this.step({ name: 'complete', index: 0, total: this.steps.length });
      this.opts.onSuccess?.(result);
      return result;
    } catch (e) {
      this.step({ name: 'error', index: 0, total: this.steps.length });
      throw this.fail(e);
    }
  }

  /** A hand-off code for a phone (the desktop side). */
  async createHandoff(): Promise<Handoff> {
    if (!this.api) throw this.fail(new SdkError('VERIFICATION_FAILED', 'hand-off before start'));
    try {
      return await this.api.createHandoff();
    } catch (e) {
      throw this.fail(e);
    }
  }

  /**
   * Polls a hand-off once. When the phone's verification has run, this
   * session completes with its result: onSuccess, as if submitted here.
   * Errors are thrown, not reported to onError.
   */
  async pollHandoff(token: string): Promise<HandoffStatus['state']> {
    if (!this.api) throw this.fail(new SdkError('VERIFICATION_FAILED', 'hand-off before start'));
    // Errors are thrown, not reported: the caller polls again and
    // decides when a run of them is one to report.
    const st: HandoffStatus = await this.api.handoffStatus(token);
    if (st.state === 'completed' && st.result && !this.finished) {
      let result: VerificationResult;
      try {
        result = toResult(st.result);
      } catch (e) {
        throw this.fail(new SdkError('VERIFICATION_FAILED', (e as Error).message));
      }
      this.finished = true;
      this.step({ name: 'complete', index: 0, total: this.steps.length });
      this.opts.onSuccess?.(result);
    }
    return st.state;
  }

  /** The holder leaves before the end. */
  cancel(): void {
    if (!this.finished) this.opts.onCancel?.();
    this.finished = true;
  }
}
