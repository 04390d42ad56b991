/**
 * What `Idempotency-Key` remembers (docs/interface.md, "Idempotent creation"): per API key, the
 * body as sent and the pet it created, for 24 hours of the mock's clock.
 */
import type { Pet } from '@animal-store/contract';
import { IDEMPOTENCY_KEY_LIFETIME_MS } from '../limits.js';

interface IdempotencyRecord {
  /** The body as sent, in a form where key order and white space do not matter. */
  readonly body: string;
  readonly pet: Pet;
  readonly expiresAtMs: number;
}

/** JSON with every object's keys sorted: the same JSON value gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export class IdempotencyRecords {
  readonly #records = new Map<string, IdempotencyRecord>();

  /** The pet first created under this key, while it is remembered. */
  find(apiKey: string, key: string, nowMs: number): IdempotencyRecord | undefined {
    const scoped = JSON.stringify([apiKey, key]);
    const record = this.#records.get(scoped);
    if (record === undefined || record.expiresAtMs > nowMs) return record;
    this.#records.delete(scoped);
    return undefined;
  }

  remember(apiKey: string, key: string, body: string, pet: Pet, nowMs: number): void {
    this.#records.set(JSON.stringify([apiKey, key]), {
      body,
      pet,
      expiresAtMs: nowMs + IDEMPOTENCY_KEY_LIFETIME_MS,
    });
  }
}
