/** Standard base64 with padding. */
export declare function encodeBase64(bytes: Uint8Array): string;
/** Decodes standard or URL-safe base64, padded or not; throws on other characters. */
export declare function decodeBase64(s: string): Uint8Array;
/** UTF-8 of a string, without TextEncoder (absent from older engines). */
export declare function utf8Encode(s: string): Uint8Array;
/** A string from UTF-8; invalid sequences become U+FFFD. */
export declare function utf8Decode(b: Uint8Array): string;
