import {
  MOST_CLAIMS_PER_INSERT,
  MOST_IDS_PER_LOOKUP,
  MOST_PETS_PER_INSERT,
  PET_QUERY_SUMMARIES,
  type PetStore,
} from '../pets/pet-store.js';
import type { Tracing } from '../tracing/tracing.js';
import { batchedStore, mergeItems, type SharingPlan, shareEqualCalls } from './batched-store.js';

/**
 * What the requests of one turn share of the pet store:
 * - the pets a turn's gets look up are read with one statement, their ids bound as one array
 *   (Prisma batches the `findUnique` calls of a tick too, but builds and unpacks a whole query
 *   per call on the way);
 * - a page asked for more than once in a turn (the first page, polled by many clients) is read
 *   once, and different pages side by side, each failing on its own;
 * - a turn's creates are inserted with one statement, so they cost one commit, and each is
 *   answered once that statement is committed, as it would be alone; a statement that fails
 *   fails every create in it (a fault would fail them all anyway);
 * - a turn's idempotent creates claim their keys together: one statement on PostgreSQL, and on
 *   SQLite a transaction each, which commit in their turn's group; the keys a turn's replays
 *   look up are read together.
 * Every other query is made alone, for the request that asked.
 */
export const PET_STORE_SHARING = {
  findPets: mergeItems(MOST_IDS_PER_LOOKUP),
  listPage: shareEqualCalls,
  insertPets: mergeItems(MOST_PETS_PER_INSERT),
  insertPetsUnderKeys: mergeItems(MOST_CLAIMS_PER_INSERT),
  findIdempotencyRecords: mergeItems(),
} as const satisfies SharingPlan<PetStore>;

/** The pet store as each request calls it, sharing what `PET_STORE_SHARING` says. */
export function batchedPetStore(store: PetStore, tracing: Tracing) {
  return batchedStore({
    name: 'pets',
    store,
    tracing,
    queries: PET_QUERY_SUMMARIES,
    sharing: PET_STORE_SHARING,
  });
}
