import React from 'react';
import { SdkError, type CustomizationInput, type Hint, type Messages, type StepChange, type VerificationResult } from '../../core/src';
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
/**
 * The verification flow in a React Native app: landing, ID front and back,
 * selfie when the workflow needs one, review with retake, submission, and
 * the callbacks of the spec.
 */
export declare function ServiceVerification(props: ServiceVerificationProps): React.JSX.Element;
export declare const ANALYSE_W = 200;
export declare const ANALYSE_H: number;
export declare const ANALYSE_FPS = 6;
export declare const NO_CAMERA_WAIT_MS = 1500;
export declare function hintText(m: Messages, h: Hint): string;
