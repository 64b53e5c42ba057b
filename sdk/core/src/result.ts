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
  face_match?: { match: boolean; confidence: number };
  liveness?: { is_live: boolean; confidence: number };
  selfie_url?: string;
  /** The server's verification result, whole. */
  raw: Record<string, unknown>;
}

const statusOf: Record<string, VerificationResult['status']> = { accept: 'success', review: 'pending', reject: 'failed' };

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Maps the server's verification result to the SDK result. */
export function toResult(raw: Record<string, unknown>): VerificationResult {
  const decision = str(raw.verification_decision);
  if (!(decision in statusOf)) throw new Error(`the answer has no verification_decision (got ${JSON.stringify(decision)})`);
  const c = obj(raw.combined);
  const mrz = obj(raw.mrz_parsed);
  const pc = obj(raw.photo_comparison);
  const ld = obj(raw.liveness_detection);
  const images = obj(raw.images);
  const first = (...vals: unknown[]) => vals.map(str).find((v) => v !== '') ?? '';
  const out: VerificationResult = {
    status: statusOf[decision],
    verification_decision: decision as VerificationResult['verification_decision'],
    decision_reasons: Array.isArray(raw.decision_reasons) ? raw.decision_reasons.map(String) : [],
    verification_id: str(raw.idv_unique_id) || undefined,
    extracted_data: {
      full_name: first(c.full_name, c.name, [c.given_names, c.surname].filter(Boolean).join(' ')),
      id_number: first(c.national_id_number, c.id_number, c.nin, c.document_number, c.passport_number, mrz.document_number),
      date_of_birth: first(c.date_of_birth, mrz.date_of_birth),
      place_of_birth: first(c.place_of_birth),
      gender: first(c.sex, c.gender, mrz.sex),
    },
    selfie_url: str(images.selfie) || undefined,
    raw,
  };
  if (typeof pc.match === 'boolean') out.face_match = { match: pc.match, confidence: Number(pc.similarity) || 0 };
  if (typeof ld.liveness === 'boolean') out.liveness = { is_live: ld.liveness, confidence: Number(ld.confidence) || 0 };
  return out;
}
