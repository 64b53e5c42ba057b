import { deflateSync } from 'fflate';
import { encodeBase64, utf8Encode } from './base64';

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
export function buildPayload(a: {
  clientId: string;
  workflowId: string;
  captures: Captures;
  requestId: string;
  config?: string;
}): Record<string, string> {
  const p: Record<string, string> = {
    client_id: a.clientId,
    work_flow_id: a.workflowId,
    id_front_image_url: a.captures.id_front,
    id_back_image_url: a.captures.id_back,
    request_id: a.requestId,
  };
  if (a.captures.selfie) p.selfie_image_url = a.captures.selfie;
  if (a.config) p.config = a.config;
  return p;
}

/** JSON, raw deflate at level 9, base64: the spec's SDK encoding. */
export function compressPayload(payload: object): string {
  return encodeBase64(deflateSync(utf8Encode(JSON.stringify(payload)), { level: 9 }));
}

/** A request id: 32 hex characters from the platform's random source. */
export function newRequestId(random: (n: number) => Uint8Array = defaultRandom): string {
  return Array.from(random(16), (b) => b.toString(16).padStart(2, '0')).join('');
}

function defaultRandom(n: number): Uint8Array {
  const b = new Uint8Array(n);
  const c = (globalThis as { crypto?: { getRandomValues?: (a: Uint8Array) => Uint8Array } }).crypto;
  if (c?.getRandomValues) return c.getRandomValues(b);
  // No secure source (an old engine): the id needs to be unique, not secret.
  for (let i = 0; i < n; i++) b[i] = Math.floor(Math.random() * 256);
  return b;
}
