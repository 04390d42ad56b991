import { createHash } from 'node:crypto';

/**
 * What the operations need from a database, answered synchronously by SQLite (libsql) and
 * after a round trip by PostgreSQL. Pets travel as their JSON bodies: the PostgreSQL store has
 * the database write them, the SQLite store writes them with JSON.stringify.
 */
export type PetStatus = 'available' | 'pending' | 'sold';

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

export type NewPet = Omit<Pet, 'id'>;

export interface KeyRow {
  id: string;
  perMinute: number;
  perDay: number;
}

export interface IdempotencyClaim {
  scope: string;
  key: string;
  requestHash: string;
}

/** A pet as stored: its id (for `Location`) and its JSON body. */
export interface StoredPet {
  id: number | string;
  json: string;
}

/** Up to `limit` pets as a JSON array, and the id the next page starts after, if there is one. */
export interface PetPage {
  json: string;
  nextAfterId: number | undefined;
}

export type CreateOnceResult =
  | { outcome: 'created' | 'replayed'; pet: StoredPet }
  | { outcome: 'conflict' }
  | { outcome: 'missing' };

/** How keys are stored: the SHA-256 of the secret, never the secret. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export type MaybePromise<T> = T | Promise<T>;

export interface PetStore {
  ping(): MaybePromise<unknown>;
  findKey(secretHash: string): MaybePromise<KeyRow | undefined>;
  findPet(id: number): MaybePromise<StoredPet | undefined>;
  listPets(filter: {
    status: PetStatus | undefined;
    afterId: number;
    limit: number;
  }): MaybePromise<PetPage>;
  createPet(pet: NewPet): MaybePromise<StoredPet>;
  /** Creates the pet unless the claim's key was used in the last day; then replays or refuses. */
  createPetOnce(pet: NewPet, claim: IdempotencyClaim): MaybePromise<CreateOnceResult>;
}

/**
 * `next(value)`, at once for a value and once settled for a promise: the synchronous store's
 * requests are answered within the turn that read them, with no promise between.
 */
export function whenReady<T, R>(value: MaybePromise<T>, next: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
