/** The SDK error codes of the spec; anything else is unknown and `message` is read. */
export type SdkErrorCode =
  | 'INVALID_JWT'
  | 'TOKEN_REFRESH_FAILED'
  | 'WORKFLOW_FETCH_FAILED'
  | 'CAMERA_PERMISSION_DENIED'
  | 'VERIFICATION_FAILED';

/**
 * An error given to onError. It means the check did not run: it is not
 * evidence about the holder and is never shown to them as a failed
 * verification (spec, error rule 3).
 */
export class SdkError extends Error {
  readonly code: SdkErrorCode;
  /** The server's v_field39 code, when the server answered. */
  readonly serverCode?: number;
  /** HTTP status, when the server answered. */
  readonly status?: number;

  constructor(code: SdkErrorCode, message: string, opts: { serverCode?: number; status?: number } = {}) {
    super(message);
    this.name = 'SdkError';
    this.code = code;
    this.serverCode = opts.serverCode;
    this.status = opts.status;
  }
}
