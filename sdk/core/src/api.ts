import { SdkError, type SdkErrorCode } from './errors';
import type { SdkClaims } from './jwt';
import { parseWorkflow, type Workflow } from './steps';

export const RPC_QUEUE = 'idv-gateway-v2';

/** The fetch the SDK needs: the platform's, or a test's. */
export type Fetch = (input: string, init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal }) => Promise<{
  status: number;
  text(): Promise<string>;
}>;

/** Timeouts: the spec asks clients to wait at least 120 s for a verification. */
export const TIMEOUTS = { token: 30_000, workflow: 30_000, submit: 150_000 };

/** A dropped connection or a timeout: the request may or may not have arrived. */
class TransportError extends Error {}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  /** v_field39, when the server sent an error. */
  code?: number;
  message: string;
}

export interface ApiEvents {
  /** Called for every request sent (tests and diagnostics). */
  onRequest?(menu: string, method: string): void;
}

/**
 * The /postdata client of one SDK session: token refresh, workflow fetch
 * and submission, with the spec's rules. An expired or refused access
 * token is refreshed once and the call retried once; a dropped connection
 * or timeout is retried at most once (the verification may already have
 * run: the same request_id makes the server replay it instead of running
 * it again); any other answer of the server is a result, not retried.
 */
export class ApiClient {
  private accessToken = '';
  private accessExpires = 0;

  constructor(
    readonly claims: SdkClaims,
    private readonly fetchFn: Fetch,
    private readonly events: ApiEvents = {},
    private readonly now: () => number = Date.now,
  ) {}

  private async post(body: Record<string, unknown>, auth: boolean, timeoutMs: number): Promise<Answer> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (auth) headers.Authorization = `Bearer ${this.accessToken}`;
    const ctl = typeof AbortController === 'function' ? new AbortController() : undefined;
    const timer = setTimeout(() => ctl?.abort(), timeoutMs);
    this.events.onRequest?.(String(body.menu), String(body.method));
    let status: number;
    let text: string;
    try {
      const r = await this.fetchFn(this.claims.apiUrl, { method: 'POST', headers, body: JSON.stringify({ rpcQueue: RPC_QUEUE, ...body }), signal: ctl?.signal });
      status = r.status;
      text = await r.text();
    } catch (e) {
      throw new TransportError(e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
    }
    let parsed: Record<string, unknown> = {};
    try {
      const v = JSON.parse(text);
      if (v && typeof v === 'object' && !Array.isArray(v)) parsed = v;
    } catch {
      // An answer that is not JSON (a proxy's error page) is an HTTP error.
    }
    const code = typeof parsed.v_field39 === 'number' ? parsed.v_field39 : undefined;
    const message = typeof parsed.v_field48 === 'string' ? parsed.v_field48 : `HTTP ${status}`;
    return { status, body: parsed, code, message };
  }

  /** refreshAccessToken with the token's refresh token and organisation. */
  async refresh(): Promise<void> {
    const body = { menu: 'auth_config', method: 'refreshAccessToken', refresh_token: this.claims.refresh_token, organisationId: this.claims.organisationId };
    let a: Answer;
    try {
      a = await this.post(body, false, TIMEOUTS.token);
    } catch (e) {
      if (!(e instanceof TransportError)) throw e;
      try {
        a = await this.post(body, false, TIMEOUTS.token);
      } catch (e2) {
        throw new SdkError('TOKEN_REFRESH_FAILED', `the token service could not be reached: ${(e2 as Error).message}`);
      }
    }
    const tok = a.body.access_token;
    if (a.status !== 200 || typeof tok !== 'string' || tok === '') {
      throw new SdkError('TOKEN_REFRESH_FAILED', a.message, { serverCode: a.code, status: a.status });
    }
    this.accessToken = tok;
    const ttl = typeof a.body.expires_in === 'number' ? a.body.expires_in : 3600;
    this.accessExpires = this.now() + ttl * 1000;
  }

  /** A call with the access token, under the refresh and retry rules. */
  private async authed(body: Record<string, unknown>, errCode: SdkErrorCode, timeoutMs: number): Promise<Record<string, unknown>> {
    // Refresh ahead when the token is known to have expired (30 s early).
    if (!this.accessToken || this.now() > this.accessExpires - 30_000) await this.refresh();
    let refreshed = false;
    let retried = false;
    for (;;) {
      let a: Answer;
      try {
        a = await this.post(body, true, timeoutMs);
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        if (retried) throw new SdkError(errCode, `the connection failed twice: ${e.message}`);
        retried = true;
        continue;
      }
      if (a.status === 200 && a.code === undefined) return a.body;
      if (a.code === 401 || (a.status === 401 && a.code === undefined)) {
        if (refreshed) throw new SdkError('TOKEN_REFRESH_FAILED', `the refreshed token was refused: ${a.message}`, { serverCode: a.code, status: a.status });
        refreshed = true;
        await this.refresh();
        continue;
      }
      // 230: no worker was free in time, so nothing ran; the spec calls it
      // safe to retry once (the same request_id guards against a double run).
      if (a.code === 230 && !retried) {
        retried = true;
        continue;
      }
      throw new SdkError(errCode, a.message, { serverCode: a.code, status: a.status });
    }
  }

  /** getWorkflowById for the token's workflow. */
  async getWorkflow(): Promise<Workflow> {
    const body = await this.authed({ menu: 'flow', method: 'getWorkflowById', work_flow_id: this.claims.workflowId }, 'WORKFLOW_FETCH_FAILED', TIMEOUTS.workflow);
    try {
      return parseWorkflow(body);
    } catch (e) {
      throw new SdkError('WORKFLOW_FETCH_FAILED', (e as Error).message);
    }
  }

  /** createHandoff: a single-use code that opens this workflow on a phone (docs/sdk.md). */
  async createHandoff(): Promise<Handoff> {
    const body = await this.authed({ menu: 'auth_config', method: 'createHandoff', config: this.claims.config || undefined }, 'VERIFICATION_FAILED', TIMEOUTS.token);
    const { handoff_token: token, handoff_url: url, qr_code: qr, expires_in: ttl } = body;
    if (typeof token !== 'string' || typeof url !== 'string' || typeof qr !== 'string' || !/^data:image\/png;base64,/.test(qr)) {
      throw new SdkError('VERIFICATION_FAILED', 'the hand-off answer is not understood');
    }
    return { token, url, qr, expiresIn: typeof ttl === 'number' ? ttl : 600 };
  }

  /** getHandoffStatus: how far the phone has got; the result once it ran. */
  async handoffStatus(token: string): Promise<HandoffStatus> {
    const body = await this.authed({ menu: 'auth_config', method: 'getHandoffStatus', handoff_token: token }, 'VERIFICATION_FAILED', TIMEOUTS.token);
    const state = body.state;
    if (state !== 'waiting' && state !== 'opened' && state !== 'running' && state !== 'completed' && state !== 'expired') {
      throw new SdkError('VERIFICATION_FAILED', 'the hand-off status is not understood');
    }
    const result = body.result && typeof body.result === 'object' ? (body.result as Record<string, unknown>) : undefined;
    return { state, result };
  }

  /** submitVerification with a compressed payload; returns the server's result. */
  async submit(payload: string): Promise<Record<string, unknown>> {
    return this.authed({ menu: 'verification', method: 'submitVerification', payload }, 'VERIFICATION_FAILED', TIMEOUTS.submit);
  }
}

/** A hand-off code: its token, the URL a phone opens, that URL as a QR code (PNG data URL). */
export interface Handoff {
  token: string;
  url: string;
  qr: string;
  expiresIn: number;
}

export interface HandoffStatus {
  state: 'waiting' | 'opened' | 'running' | 'completed' | 'expired';
  result?: Record<string, unknown>;
}

/**
 * issueSdkToken: a page on an allowed origin obtains a session's SDK token
 * with the public client and workflow ids (docs/sdk.md).
 */
export async function issueSdkToken(fetchFn: Fetch, apiUrl: string, clientId: string, workflowId: string): Promise<string> {
  return sessionToken(fetchFn, apiUrl, { method: 'issueSdkToken', client_id: clientId, work_flow_id: workflowId });
}

/**
 * redeemHandoff: the phone's page exchanges a hand-off code, once, for
 * the SDK token of a session of its own.
 */
export async function redeemHandoff(fetchFn: Fetch, apiUrl: string, handoffToken: string): Promise<string> {
  return sessionToken(fetchFn, apiUrl, { method: 'redeemHandoff', handoff_token: handoffToken });
}

async function sessionToken(fetchFn: Fetch, apiUrl: string, fields: Record<string, string>): Promise<string> {
  const body = JSON.stringify({ rpcQueue: RPC_QUEUE, menu: 'auth_config', ...fields });
  const send = () => fetchFn(apiUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  let r;
  try {
    r = await send();
  } catch {
    try {
      r = await send();
    } catch (e) {
      throw new SdkError('TOKEN_REFRESH_FAILED', `the token service could not be reached: ${(e as Error).message}`);
    }
  }
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(await r.text());
  } catch {
    // handled below
  }
  if (r.status !== 200 || typeof parsed.sdk_token !== 'string') {
    const msg = typeof parsed.v_field48 === 'string' ? parsed.v_field48 : `HTTP ${r.status}`;
    throw new SdkError('TOKEN_REFRESH_FAILED', `no SDK session: ${msg}`, { serverCode: parsed.v_field39 as number | undefined, status: r.status });
  }
  return parsed.sdk_token;
}
