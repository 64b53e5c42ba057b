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
export const SELFIE_CHECKS: readonly string[] = ['face_matching', 'liveness_detection', 'age_verification'];

/** The selfie rule: a selfie is captured when a step needs a face. */
export function needsSelfie(steps: readonly WorkflowStep[]): boolean {
  return steps.some((s) => SELFIE_CHECKS.includes(s.name));
}

export type CaptureStep = 'id_front' | 'id_back' | 'selfie';

/** The captures a workflow asks for, in order. */
export function captureSteps(steps: readonly WorkflowStep[]): CaptureStep[] {
  return needsSelfie(steps) ? ['id_front', 'id_back', 'selfie'] : ['id_front', 'id_back'];
}

/** What onStepChange receives. */
export interface StepChange {
  name: 'landing' | CaptureStep | 'review' | 'submitting' | 'complete' | 'error';
  /** Position among the capture steps (1-based), 0 outside them. */
  index: number;
  total: number;
}

/** Checks a getWorkflowById answer has the shape the SDK relies on. */
export function parseWorkflow(body: unknown): Workflow {
  const w = (body as { workflow?: unknown })?.workflow as Record<string, unknown> | undefined;
  if (!w || typeof w.id !== 'string' || !Array.isArray(w.steps)) throw new Error('the answer has no workflow with steps');
  const steps: WorkflowStep[] = [];
  for (const s of w.steps as unknown[]) {
    const st = s as Record<string, unknown>;
    if (typeof st?.name !== 'string') throw new Error('a workflow step has no name');
    steps.push({ name: st.name, order: Number(st.order) || 0, required: st.required === true });
  }
  steps.sort((a, b) => a.order - b.order);
  return { ...(w as object), id: w.id, name: String(w.name ?? ''), steps } as Workflow;
}
