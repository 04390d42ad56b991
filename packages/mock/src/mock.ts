/**
 * The mock of the Animal Store API v1: the generic mock (api-mock.ts) serving the v1 contract
 * over an in-memory catalogue (animal-store-api.ts).
 */
import { animalStoreApi } from './animal-store-api.js';
import { type AnimalStoreMock, createApiMock } from './api-mock.js';
import type { MockOptions } from './mock-options.js';

/** A new mock, in its first state: the seed, the demo keys, no counts, no faults. */
export function createMock(options: MockOptions = {}): AnimalStoreMock {
  return createApiMock(animalStoreApi(options.seed), options);
}
