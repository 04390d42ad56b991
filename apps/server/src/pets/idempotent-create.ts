import type { Pet } from '@animal-store/contract';
import { IDEMPOTENCY_KEY_LIFETIME_MS, idempotentAnswer } from '@animal-store/contract/rules';
import type { IdempotencyClaim, PetStore, UnsavedPet } from './pet-store.js';

export type IdempotentCreateResult =
  | { outcome: 'created'; pet: Pet }
  | { outcome: 'replayed'; pet: Pet }
  | { outcome: 'conflict' };

/**
 * What an earlier create with the claim's key answered, while its record lives: the interface's
 * decision (@animal-store/contract/rules, as the mock's), over the SHA-256 of the body's
 * fingerprint that the record keeps. Expired records are purged by the store's claims.
 */
async function replay(
  store: PetStore,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult | undefined> {
  const [record] = await store.findIdempotencyRecords([claim]);
  const earlier = record && {
    fingerprint: record.requestHash,
    firstSeenAtMs: record.createdAt.getTime(),
  };
  const answer = idempotentAnswer(earlier, claim.requestHash, Date.now());
  if (answer === 'create' || !record) return undefined;
  if (answer === 'conflict') return { outcome: 'conflict' };
  const [pet] = await store.findPets([record.petId]);
  return pet && { outcome: 'replayed', pet };
}

/**
 * Creates the pet under the claim's key, unless the key was used before: then the earlier answer
 * is replayed, or, for another body, refused. The key is claimed first, so a new key (nearly
 * every create) costs the store one call; a replay, the claim that failed and the look-up. The
 * claim fails for a key still remembered, and one a concurrent create claimed first: the
 * look-up then finds the winner. Looked up when it had just expired, the key is claimed again.
 */
export async function createPetOnce(
  store: PetStore,
  pet: UnsavedPet,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult> {
  for (let attempt = 1; ; attempt++) {
    const forgottenBefore = new Date(Date.now() - IDEMPOTENCY_KEY_LIFETIME_MS);
    const [created] = await store.insertPetsUnderKeys([{ pet, claim, forgottenBefore }]);
    if (created) return { outcome: 'created', pet: created };
    const earlier = await replay(store, claim);
    if (earlier) return earlier;
    if (attempt === 2) throw new Error('An Idempotency-Key was neither claimed nor replayed.');
  }
}
