import { decodeBase64, utf8Decode } from './base64';
import { SdkError } from './errors';

/** The claims of the SDK token (spec, "SDK token"). */
export interface SdkClaims {
  workflowId: string;
  clientId: string;
  organisationId: number;
  apiUrl: string;
  refresh_token: string;
  config: string;
  iat: number;
  exp: number;
}

function base64UrlDecode(s: string): string {
  return utf8Decode(decodeBase64(s));
}

/**
 * Decodes the SDK token. The signature is the server's to check (the SDK
 * has no key): this reads the claims, checks their types and that the
 * token has not expired. Anything wrong is INVALID_JWT.
 */
export function decodeSdkToken(token: string, nowSeconds = Date.now() / 1000): SdkClaims {
  if (typeof token !== 'string' || token.length > 16384) {
    throw new SdkError('INVALID_JWT', 'the token is not a string of sensible length');
  }
  const parts = token.trim().split('.');
  if (parts.length !== 3 || parts.some((p) => p === '' || !/^[A-Za-z0-9_-]+$/.test(p))) {
    throw new SdkError('INVALID_JWT', 'the token is not a JWT (three base64url parts)');
  }
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(base64UrlDecode(parts[1]));
  } catch {
    throw new SdkError('INVALID_JWT', 'the token claims are not JSON');
  }
  if (c === null || typeof c !== 'object' || Array.isArray(c)) {
    throw new SdkError('INVALID_JWT', 'the token claims are not an object');
  }
  const strings = ['workflowId', 'clientId', 'apiUrl', 'refresh_token'] as const;
  for (const k of strings) {
    if (typeof c[k] !== 'string' || c[k] === '') throw new SdkError('INVALID_JWT', `the token has no ${k}`);
  }
  if (c.config !== undefined && typeof c.config !== 'string') throw new SdkError('INVALID_JWT', 'config must be a string');
  const org = typeof c.organisationId === 'string' ? Number(c.organisationId) : c.organisationId;
  if (typeof org !== 'number' || !Number.isInteger(org) || org < 1) {
    throw new SdkError('INVALID_JWT', 'the token has no integer organisationId');
  }
  for (const k of ['iat', 'exp'] as const) {
    if (typeof c[k] !== 'number' || !Number.isFinite(c[k] as number)) throw new SdkError('INVALID_JWT', `the token has no numeric ${k}`);
  }
  if ((c.exp as number) <= nowSeconds) throw new SdkError('INVALID_JWT', 'the token has expired');
  let api: URL;
  try {
    api = new URL(c.apiUrl as string);
  } catch {
    throw new SdkError('INVALID_JWT', 'apiUrl is not a URL');
  }
  if (api.protocol !== 'https:' && api.protocol !== 'http:') throw new SdkError('INVALID_JWT', 'apiUrl must be http(s)');
  return {
    workflowId: c.workflowId as string,
    clientId: c.clientId as string,
    organisationId: org,
    apiUrl: c.apiUrl as string,
    refresh_token: c.refresh_token as string,
    config: (c.config as string) ?? '',
    iat: c.iat as number,
    exp: c.exp as number,
  };
}
