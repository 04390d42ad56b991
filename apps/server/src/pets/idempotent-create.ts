import type { Pet } from '@animal-store/contract';
import { IDEMPOTENCY_KEY_LIFETIME_MS, idempotentAnswer } from '@animal-store/contract/rules';
import { isUniqueViolation } from '@animal-store/db';
import type { IdempotencyClaim, PetStore, UnsavedPet } from './pet-store.js';

export type IdempotentCreateResult =
  | { outcome: 'created'; pet: Pet }
  | { outcome: 'replayed'; pet: Pet }
  | { outcome: 'conflict' };

/**
 * What an earlier create with the claim's key answered, while its record lives: the interface's
 * decision (@animal-store/contract/rules, as the mock's), over the SHA-256 of the body's
 * fingerprint that the record keeps. Records are purged lazily once the key is forgotten.
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
 * Creates the pet and records the claim's key in one transaction, unless the key was used
 * before: then the earlier answer is replayed, or, for another body, refused. When a concurrent
 * request with the same key wins the race, the unique key makes this one roll back and replay
 * the winner.
 */
export async function createPetOnce(
  store: PetStore,
  pet: UnsavedPet,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult> {
  const earlier = await replay(store, claim);
  if (earlier) return earlier;
  try {
    const created = await store.transaction(async (queries) => {
      // Expired records only (this key's included, if it expired): a live record of this key,
      // committed by a concurrent request, must stay and make the insert below fail.
      await queries.deleteIdempotencyRecordsBefore(
        new Date(Date.now() - IDEMPOTENCY_KEY_LIFETIME_MS),
      );
      const [saved] = (await queries.insertPets([pet])) as [Pet];
      await queries.insertIdempotencyRecord(claim, saved.id);
      return saved;
    });
    return { outcome: 'created', pet: created };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await replay(store, claim);
    if (winner) return winner;
    throw error;
  }
}
