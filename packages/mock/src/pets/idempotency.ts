/**
 * What `Idempotency-Key` remembers (docs/interface.md, "Idempotent creation"): per API key, the
 * fingerprint of the body as sent and the pet it created. When a key is remembered, and whether a
 * body replays or conflicts, is the interface's decision (@animal-store/contract/rules), the
 * server's too; the mock's clock gives the instants.
 */
import type { Pet } from '@animal-store/contract';
import {
  type IdempotentAnswer,
  idempotentAnswer,
  isRemembered,
  type RememberedCreate,
} from '@animal-store/contract/rules';

interface IdempotencyRecord extends RememberedCreate {
  readonly pet: Pet;
}

/** What a create with a key gets, and the pet first created with it on a replay. */
export type IdempotentCreate =
  | { readonly answer: Exclude<IdempotentAnswer, 'replay'> }
  | { readonly answer: 'replay'; readonly pet: Pet };

export class IdempotencyRecords {
  readonly #records = new Map<string, IdempotencyRecord>();

  /** What a create with `key` and a body of this `fingerprint` gets, at `nowMs`. */
  answer(apiKey: string, key: string, fingerprint: string, nowMs: number): IdempotentCreate {
    const scoped = JSON.stringify([apiKey, key]);
    const record = this.#records.get(scoped);
    if (record !== undefined && !isRemembered(record.firstSeenAtMs, nowMs)) {
      this.#records.delete(scoped);
    }
    const answer = idempotentAnswer(record, fingerprint, nowMs);
    if (answer !== 'replay') return { answer };
    return { answer, pet: (record as IdempotencyRecord).pet };
  }

  remember(apiKey: string, key: string, fingerprint: string, pet: Pet, nowMs: number): void {
    this.#records.set(JSON.stringify([apiKey, key]), { fingerprint, pet, firstSeenAtMs: nowMs });
  }
}
