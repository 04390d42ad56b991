import { contract } from '@animal-store/contract';
import { initServer } from '@ts-rest/express';
import { batchedPetStore } from './batching/pet-store.js';
import { defineApi } from './http/served-api.js';
import { pageCursors } from './pets/page-cursor.js';
import { createPetStore } from './pets/pet-store.js';
import { createPetsRouter, unissuedCursorReporter } from './pets/pets.router.js';

const s = initServer();

/**
 * The API this server serves: the v1 contract, and each of its resources' handlers over its
 * store. A new resource is one more entry here, beside its router in the contract.
 */
export const animalStoreApi = defineApi(({ db, tracing, metrics, publicUrl }) => {
  const cursors = pageCursors(db);
  return {
    contract,
    handlers: s.router(contract, {
      pets: createPetsRouter({
        storeFor: batchedPetStore(createPetStore(db), tracing),
        cursors,
        publicUrl,
        onIdempotentCreate: metrics.idempotentCreate,
      }),
    }),
    onRefusal: unissuedCursorReporter(cursors),
  };
});
