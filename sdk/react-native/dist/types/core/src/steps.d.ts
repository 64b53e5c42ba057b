/** A workflow step as getWorkflowById returns it. */
export interface WorkflowStep {
    name: string;
    order: number;
    required: boolean;
}
export interface Workflow {
    id: string;
    name: string;
    steps: WorkflowStep[];
    document_types?: string[];
    react_native_sdk_configs?: Record<string, unknown>;
    web_sdk_configs?: Record<string, unknown>;
}
/** The checks that compare or inspect a face (spec, selfie rule). */
export declare const SELFIE_CHECKS: readonly string[];
/** The selfie rule: a selfie is captured when a step needs a face. */
export declare function needsSelfie(steps: readonly WorkflowStep[]): boolean;
export type CaptureStep = 'id_front' | 'id_back' | 'selfie';
/** The captures a workflow asks for, in order. */
export declare function captureSteps(steps: readonly WorkflowStep[]): CaptureStep[];
/** What onStepChange receives. */
export interface StepChange {
    name: 'landing' | CaptureStep | 'review' | 'submitting' | 'complete' | 'error';
    /** Position among the capture steps (1-based), 0 outside them. */
    index: number;
    total: number;
}
/** Checks a getWorkflowById answer has the shape the SDK relies on. */
export declare function parseWorkflow(body: unknown): Workflow;
