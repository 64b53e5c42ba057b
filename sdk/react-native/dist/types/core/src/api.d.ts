import type { SdkClaims } from './jwt';
import { type Workflow } from './steps';
export declare const RPC_QUEUE = "idv-gateway-v2";
/** The fetch the SDK needs: the platform's, or a test's. */
export type Fetch = (input: string, init: {
    method: string;
    headers: Record<string, string>;
    body: string;
    signal?: AbortSignal;
}) => Promise<{
    status: number;
    text(): Promise<string>;
}>;
/** Timeouts: the spec asks clients to wait at least 120 s for a verification. */
export declare const TIMEOUTS: {
    token: number;
    workflow: number;
    submit: number;
};
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
export declare class ApiClient {
    readonly claims: SdkClaims;
    private readonly fetchFn;
    private readonly events;
    private readonly now;
    private accessToken;
    private accessExpires;
    constructor(claims: SdkClaims, fetchFn: Fetch, events?: ApiEvents, now?: () => number);
    private post;
    /** refreshAccessToken with the token's refresh token and organisation. */
    refresh(): Promise<void>;
    /** A call with the access token, under the refresh and retry rules. */
    private authed;
    /** getWorkflowById for the token's workflow. */
    getWorkflow(): Promise<Workflow>;
    /** createHandoff: a single-use code that opens this workflow on a phone (docs/sdk.md). */
    createHandoff(): Promise<Handoff>;
    /** getHandoffStatus: how far the phone has got; the result once it ran. */
    handoffStatus(token: string): Promise<HandoffStatus>;
    /** submitVerification with a compressed payload; returns the server's result. */
    submit(payload: string): Promise<Record<string, unknown>>;
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
export declare function issueSdkToken(fetchFn: Fetch, apiUrl: string, clientId: string, workflowId: string): Promise<string>;
/**
 * redeemHandoff: the phone's page exchanges a hand-off code, once, for
 * the SDK token of a session of its own.
 */
export declare function redeemHandoff(fetchFn: Fetch, apiUrl: string, handoffToken: string): Promise<string>;
