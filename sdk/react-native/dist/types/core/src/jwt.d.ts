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
/**
 * Decodes the SDK token. The signature is the server's to check (the SDK
 * has no key): this reads the claims, checks their types and that the
 * token has not expired. Anything wrong is INVALID_JWT.
 */
export declare function decodeSdkToken(token: string, nowSeconds?: number): SdkClaims;
