export { type ApiClientOf, type CreateClientOptions, createApiClient } from './api-client.js';
export {
  type AnimalStoreClient,
  type CreatePetOperation,
  type CreatePetResult,
  createClient,
  type GetPetOperation,
  type GetPetResult,
  type ListPetsOperation,
  type PetsClient,
} from './create-client.js';
export type { DeprecationListener, DeprecationNotice } from './deprecation.js';
export {
  ListPetsError,
  type ListPetsFailure,
  type ListPetsPage,
  type ListPetsPageResult,
  type ListPetsQuery,
  type ListPetsResult,
  nextPageCursor,
  type PetsFilter,
} from './paging.js';
export type { RateLimitState } from './rate-limit.js';
export type { RetryOptions } from './retry.js';
export type { FetchFunction } from './transport.js';
