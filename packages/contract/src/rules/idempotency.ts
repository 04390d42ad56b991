/**
 * docs/interface.md, "Idempotent creation": a create with an `Idempotency-Key` is remembered per
 * API key for 24 hours from the first request. Within them, the same JSON value as a body (key
 * order and white space aside) replays the first answer, another body is refused (409
 * `idempotency_key_reused`); after them the key is forgotten and a request with it creates anew.
 */

/** How long a key is remembered: it is, up to and including this long after its first request. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60_000;

/** Whether a key first used at `firstSeenAtMs` is still remembered at `nowMs`. */
export const isRemembered = (firstSeenAtMs: number, nowMs: number): boolean =>
  nowMs - firstSeenAtMs <= IDEMPOTENCY_KEY_LIFETIME_MS;

/**
 * JSON with every object's keys sorted (by UTF-16 code units) and no white space: two bodies are
 * the same JSON value exactly when their texts are equal. For a value JSON.parse made.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Loops rather than map(): each nesting level costs one stack frame, not two.
  let text = '';
  if (Array.isArray(value)) {
    for (const item of value) text += `${text === '' ? '' : ','}${canonicalJson(item)}`;
    return `[${text}]`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(record[key])}`;
  }
  return `{${text}}`;
}

/**
 * What is compared between two creates with one key: the body as sent, as its canonical JSON.
 * An implementation may keep a digest of it instead (the server stores its SHA-256).
 */
export const requestFingerprint = (body: unknown): string => canonicalJson(body);

/** The create a key was first used for, as remembered. */
export interface RememberedCreate {
  /** requestFingerprint() of its body, or the digest of it the implementation keeps. */
  fingerprint: string;
  firstSeenAtMs: number;
}

/**
 * What a create with a key gets: `create` when the key is not remembered (never used, or used
 * over 24 hours ago), `replay` for the same body, `conflict` for another.
 */
export type IdempotentAnswer = 'create' | 'replay' | 'conflict';

export function idempotentAnswer(
  earlier: RememberedCreate | undefined,
  fingerprint: string,
  nowMs: number,
): IdempotentAnswer {
  if (earlier === undefined || !isRemembered(earlier.firstSeenAtMs, nowMs)) return 'create';
  return earlier.fingerprint === fingerprint ? 'replay' : 'conflict';
}
