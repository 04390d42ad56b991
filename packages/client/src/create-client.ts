import type { Pet } from '@animal-store/contract';
import { type Contract, contract } from '@animal-store/contract';
import {
  type ApiFetcher,
  type AppRoute,
  type AppRouteFunction,
  type ClientInferResponses,
  initClient,
} from '@ts-rest/core';
import {
  createDeprecationReporter,
  type DeprecationListener,
  warnOnConsole,
} from './deprecation.js';
import {
  fetchPetsPage,
  iteratePets,
  type ListPetsPageResult,
  type ListPetsQuery,
  type PetsFilter,
} from './paging.js';
import { type RateLimitState, readRateLimit } from './rate-limit.js';
import { type RetryOptions, resolveRetryPolicy } from './retry.js';
import { createTransport, type FetchFunction } from './transport.js';

export interface CreateClientOptions {
  /**
   * Where the API is, e.g. `https://api.animal-store.example`. A trailing `/v1` (the form the
   * interface description gives) is accepted too: the contract's paths carry `/v1` themselves.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` with every request. */
  apiKey: string;
  /** The fetch to use. Default: the global `fetch` of Node 20+ or the browser. */
  fetch?: FetchFunction;
  /** Retry settings, or `false` for exactly one attempt per call. */
  retry?: RetryOptions | false;
  /**
   * Told once per operation when the server marks it deprecated (`Deprecation` or `Sunset`
   * header). Default: one `console.warn`.
   */
  onDeprecation?: DeprecationListener;
}

type PetsRoutes = Contract['pets'];

/** The arguments this package gives `initClient`; they shape the inferred request types. */
interface ContractClientArgs {
  baseUrl: string;
  baseHeaders: { authorization: string };
  api: ApiFetcher;
  throwOnUnknownStatus: true;
}

/** A ts-rest operation of the contract: typed request, result discriminated by `status`. */
type Operation<Route extends AppRoute> = AppRouteFunction<Route, ContractClientArgs>;

export type ListPetsOperation = Operation<PetsRoutes['listPets']>;
export type CreatePetOperation = Operation<PetsRoutes['createPet']>;
export type GetPetOperation = Operation<PetsRoutes['getPet']>;

export type CreatePetResult = ClientInferResponses<PetsRoutes['createPet']>;
export type GetPetResult = ClientInferResponses<PetsRoutes['getPet']>;

export interface PetsClient {
  /** `GET /v1/pets`: one page of animals in ascending `id` order (`limit`, `status`, `cursor`). */
  listPets: ListPetsOperation;
  /**
   * `POST /v1/pets`: adds an animal. Sends an `Idempotency-Key` (the caller's, else a new
   * UUID) and reuses it on every retry of this call, so a retry never adds a second animal.
   */
  createPet: CreatePetOperation;
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

export interface AnimalStoreClient {
  readonly pets: PetsClient;
  /** The rate-limit headers of the last response seen, undefined before the first one. */
  readonly rateLimit: RateLimitState | undefined;
}

const VERSION_SUFFIX = /\/v1\/?$/;

function operationName(route: AppRoute): string {
  const metadata = route.metadata as { operationId?: unknown } | undefined;
  return typeof metadata?.operationId === 'string'
    ? metadata.operationId
    : `${route.method} ${route.path}`;
}

/** A typed client of the Animal Store API v1, built on its contract. */
export function createClient(options: CreateClientOptions): AnimalStoreClient {
  let rateLimit: RateLimitState | undefined;
  const reportDeprecation = createDeprecationReporter(options.onDeprecation ?? warnOnConsole);
  const api = createTransport({
    // Called through a function so a browser's fetch keeps `window` as its `this`.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    retry: resolveRetryPolicy(options.retry),
    observe: (route, headers) => {
      rateLimit = readRateLimit(headers) ?? rateLimit;
      reportDeprecation(
        { operation: operationName(route), method: route.method, path: route.path },
        headers,
      );
    },
  });
  const args: ContractClientArgs = {
    baseUrl: options.baseUrl.replace(VERSION_SUFFIX, '').replace(/\/$/, ''),
    baseHeaders: { authorization: `Bearer ${options.apiKey}` },
    api,
    throwOnUnknownStatus: true,
  };
  const { pets } = initClient(contract, args);

  const createPet: CreatePetOperation = (request) =>
    pets.createPet({
      ...request,
      headers: {
        ...request.headers,
        'idempotency-key': request.headers?.['idempotency-key'] ?? crypto.randomUUID(),
      },
    });

  return {
    pets: {
      listPets: pets.listPets,
      createPet,
      getPet: pets.getPet,
      listPetsPage: (query) => fetchPetsPage(pets.listPets, query),
      listAllPets: (filter) => iteratePets(pets.listPets, filter),
    },
    get rateLimit() {
      return rateLimit;
    },
  };
}
