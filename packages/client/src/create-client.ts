import { type Contract, contract, type Pet } from '@animal-store/contract';
import type { ClientInferResponses } from '@ts-rest/core';
import { type ApiClientOf, type CreateClientOptions, createApiClient } from './api-client.js';
import {
  fetchPetsPage,
  iteratePets,
  type ListPetsPageResult,
  type ListPetsQuery,
  type PetsFilter,
} from './paging.js';

/** The operations of the contract's `pets` router, as the client derives them. */
type PetsOperations = ApiClientOf<Contract>['pets'];

export type ListPetsOperation = PetsOperations['listPets'];
export type CreatePetOperation = PetsOperations['createPet'];
export type GetPetOperation = PetsOperations['getPet'];

export type CreatePetResult = ClientInferResponses<Contract['pets']['createPet']>;
export type GetPetResult = ClientInferResponses<Contract['pets']['getPet']>;

/** Every operation of the contract's `pets` router, and the paging helpers over `listPets`. */
export interface PetsClient extends PetsOperations {
  // Adds only the notice: the mapped type would carry a doc comment of the contract's route, but
  // the contract's published declarations spell its routes out without their comments.
  /**
   * `GET /v1/pets/{petId}`: one animal by id.
   *
   * @deprecated Deprecated since 2025-01-01 and removed on 2030-12-05. Use `listPets` (or
   * `listAllPets`) with the `status` filter instead.
   */
  getPet: GetPetOperation;
  /** One page of listPets, with the `cursor` of the next page taken from `Link: rel="next"`. */
  listPetsPage(query?: ListPetsQuery): Promise<ListPetsPageResult>;
  /**
   * Every animal matching `filter`, each exactly once, fetching page after page as it is
   * iterated. Throws `ListPetsError` if a page is answered with an error.
   */
  listAllPets(filter?: PetsFilter): AsyncGenerator<Pet, void, undefined>;
}

/** The client of the Animal Store API v1: every router of its contract, `pets` with paging. */
export interface AnimalStoreClient extends ApiClientOf<Contract> {
  readonly pets: PetsClient;
}

function withPagingHelpers(pets: PetsOperations): PetsClient {
  return {
    ...pets,
    listPetsPage: (query) => fetchPetsPage(pets.listPets, query),
    listAllPets: (filter) => iteratePets(pets.listPets, filter),
  };
}

/** A typed client of the Animal Store API v1, built on its contract. */
export function createClient(options: CreateClientOptions): AnimalStoreClient {
  const client = createApiClient(contract, options);
  // Only `pets` is replaced: the rest, the getter of `rateLimit` included, stays as it is.
  return Object.assign(client, { pets: withPagingHelpers(client.pets) });
}
