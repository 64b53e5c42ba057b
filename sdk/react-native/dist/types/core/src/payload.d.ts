/** The captures, as base64 data URLs of JPEGs. */
export interface Captures {
    id_front: string;
    id_back: string;
    selfie?: string;
}
/**
 * The submitVerification payload before compression: the fields of a
 * direct verification (docs/server.md). request_id makes a retry after a
 * dropped connection replay the stored result instead of running (and
 * billing) again.
 */
export declare function buildPayload(a: {
    clientId: string;
    workflowId: string;
    captures: Captures;
    requestId: string;
    config?: string;
}): Record<string, string>;
/** JSON, raw deflate at level 9, base64: the spec's SDK encoding. */
export declare function compressPayload(payload: object): string;
/** A request id: 32 hex characters from the platform's random source. */
export declare function newRequestId(random?: (n: number) => Uint8Array): string;
