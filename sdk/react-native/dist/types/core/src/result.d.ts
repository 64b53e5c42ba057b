/** What onSuccess receives (spec, "SDK behaviour"). */
export interface VerificationResult {
    /** success (accept), pending (review) or failed (reject). */
    status: 'success' | 'failed' | 'pending';
    verification_decision: 'accept' | 'review' | 'reject';
    decision_reasons: string[];
    verification_id?: string;
    extracted_data: {
        full_name: string;
        id_number: string;
        date_of_birth: string;
        place_of_birth: string;
        gender: string;
    };
    face_match?: {
        match: boolean;
        confidence: number;
    };
    liveness?: {
        is_live: boolean;
        confidence: number;
    };
    selfie_url?: string;
    /** The server's verification result, whole. */
    raw: Record<string, unknown>;
}
/** Maps the server's verification result to the SDK result. */
export declare function toResult(raw: Record<string, unknown>): VerificationResult;
