import {
  SdkError,
  VerificationSession,
  issueSdkToken,
  pickLanguage,
  redeemHandoff,
  type Callbacks,
  type CustomizationInput,
  type Fetch,
  type Language,
  type SdkErrorCode,
  type StepChange,
  type VerificationResult,
} from '../../core/src';
import { Widget } from './widget';

export const version = '0.1.0';
export type { VerificationResult, StepChange, SdkErrorCode, CustomizationInput };
export { SdkError };

/** Options of init, as the spec names them: clientId, workflowId, onSuccess, onFailure. */
export interface InitOptions extends Callbacks {
  /** With workflowId: the page obtains a session itself (its origin must be allowed by the workflow). */
  clientId?: string;
  workflowId?: string;
  /** Or an SDK token your backend minted (generateSdkToken). */
  token?: string;
  /** Or a hand-off code (the /handoff page a phone opens reads it from its URL). */
  handoffToken?: string;
  /** Offer "Continue on your phone" (default true; never on a phone opened by a hand-off). */
  handoff?: boolean;
  /** The /postdata address; default: beside this script. */
  apiUrl?: string;
  /** Where to draw; default document.body (full screen either way). */
  container?: HTMLElement | string;
  customization?: CustomizationInput;
  /** en, sw or fr; default: the browser's languages. */
  language?: string;
  /** The spec's name for onError. */
  onFailure?(error: SdkError): void;
}

export interface Handle {
  close(): void;
}

// Where this script came from, for the default apiUrl: the classic
// script's src, or the module's URL.
const scriptUrl: string = (() => {
  try {
    const cs = typeof document !== 'undefined' ? document.currentScript : null;
    if (cs && 'src' in cs && (cs as HTMLScriptElement).src) return (cs as HTMLScriptElement).src;
    return (import.meta as { url?: string }).url ?? '';
  } catch {
    return '';
  }
})();

function defaultApiUrl(): string {
  const base = scriptUrl && /^https?:/.test(scriptUrl) ? scriptUrl : location.href;
  return new URL('/postdata', base).toString();
}

/** Starts a verification in the page; returns a handle to close it. */
export function init(opts: InitOptions): Handle {
  const onError = (e: SdkError) => {
    opts.onError?.(e);
    if (opts.onFailure && opts.onFailure !== opts.onError) opts.onFailure(e);
  };
  const language: Language = pickLanguage(opts.language ? [opts.language] : typeof navigator !== 'undefined' ? navigator.languages : []);
  const host = typeof opts.container === 'string' ? document.querySelector<HTMLElement>(opts.container) : opts.container;
  const fetchFn: Fetch = (url, init) => fetch(url, init);
  let widget: Widget | undefined;
  let closed = false;
  const sessionFor = (token: string) =>
    new VerificationSession({
      token,
      customization: opts.customization,
      language,
      platform: 'web',
      fetch: fetchFn,
      onSuccess: opts.onSuccess,
      onError,
      onCancel: opts.onCancel,
      onStepChange: opts.onStepChange,
    });
  const start = async () => {
    let token = opts.token ?? '';
    if (!token && opts.handoffToken) {
      token = await redeemHandoff(fetchFn, opts.apiUrl ?? defaultApiUrl(), opts.handoffToken);
    } else if (!token) {
      if (!opts.clientId || !opts.workflowId) {
        throw new SdkError('INVALID_JWT', 'give a token, or clientId and workflowId');
      }
      token = await issueSdkToken(fetchFn, opts.apiUrl ?? defaultApiUrl(), opts.clientId, opts.workflowId);
    }
    const session = sessionFor(token);
    if (closed) return;
    const phone = !!opts.handoffToken;
    widget = new Widget(session, host ?? document.body, { handoff: !phone && opts.handoff !== false, phone });
    try {
      await session.start();
    } catch {
      widget.errorScreen();
      return;
    }
    widget.landing();
  };
  start().catch((e) => {
    // Errors before the session exists (no token could be had): the
    // holder sees the same neutral screen (the check did not run).
    onError(e instanceof SdkError ? e : new SdkError('TOKEN_REFRESH_FAILED', String(e)));
    if (closed || widget) return;
    widget = new Widget(sessionFor(''), host ?? document.body);
    widget.errorScreen();
  });
  return {
    close() {
      closed = true;
      widget?.close();
    },
  };
}
