import { type ApiEvents, type Fetch, type Handoff, type HandoffStatus } from './api';
import { type Customization, type CustomizationInput } from './config';
import { SdkError } from './errors';
import { type Language } from './i18n';
import { type SdkClaims } from './jwt';
import { type VerificationResult } from './result';
import { type CaptureStep, type StepChange, type Workflow } from './steps';
/** The SDK defaults for a language: the lowest configuration layer. */
export declare function defaultCustomization(lang: Language): Customization;
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
export declare class VerificationSession {
    private readonly opts;
    claims?: SdkClaims;
    workflow?: Workflow;
    steps: CaptureStep[];
    customization: Customization;
    private api?;
    private captures;
    private requestId;
    private finished;
    constructor(opts: SessionOptions);
    /** Reports an error to onError once it is an SdkError; returns it. */
    fail(e: unknown): SdkError;
    step(change: StepChange): void;
    /** Initialisation: decode the JWT, refresh, fetch the workflow, decide the selfie. */
    start(): Promise<void>;
    setCapture(step: CaptureStep, dataUrl: string): void;
    capture(step: CaptureStep): string | undefined;
    /** Builds, compresses and submits; calls onSuccess or onError. */
    submit(): Promise<VerificationResult>;
    /** A hand-off code for a phone (the desktop side). */
    createHandoff(): Promise<Handoff>;
    /**
     * Polls a hand-off once. When the phone's verification has run, this
     * session completes with its result: onSuccess, as if submitted here.
     * Errors are thrown, not reported to onError.
     */
    pollHandoff(token: string): Promise<HandoffStatus['state']>;
    /** The holder leaves before the end. */
    cancel(): void;
}
