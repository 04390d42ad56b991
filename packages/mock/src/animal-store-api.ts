/**
 * The API `createMock()` serves: the v1 contract, and each of its resources' operations over
 * their state in memory. A new resource is one more entry here, beside its router in the
 * contract.
 */
import { contract, type NewPet } from '@animal-store/contract';
import openApiDocument from '@animal-store/contract/openapi.json';
import { defineMockApi, type MockApiDefinition } from './mocked-api.js';
import { IdempotencyRecords } from './pets/idempotency.js';
import { PageCursors } from './pets/page-cursor.js';
import { PetStore } from './pets/pet-store.js';
import { petsOperations } from './pets/pets-operations.js';
import { seedPets } from './pets/seed.js';

/** The Animal Store API v1, starting with `seed`'s pets (checked here, once: a bad seed throws). */
export function animalStoreApi(seed: false | readonly NewPet[] | undefined): MockApiDefinition {
  const pets = seedPets(seed);
  return defineMockApi(() => ({
    contract,
    operations: {
      pets: petsOperations({
        store: new PetStore(pets),
        cursors: new PageCursors(),
        idempotency: new IdempotencyRecords(),
      }),
    },
    document: openApiDocument,
  }));
}
