import {
  type ApiFetcher,
  type AppRoute,
  type AppRouter,
  type InitClientReturn,
  initClient,
} from '@ts-rest/core';
import {
  createDeprecationReporter,
  type DeprecationListener,
  warnOnConsole,
} from './deprecation.js';
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

/** The arguments this package gives `initClient`; they shape the inferred request types. */
interface ContractClientArgs {
  baseUrl: string;
  /**
   * `idempotency-key` is never given here, but naming it makes ts-rest type the header optional
   * on every route that declares it: the transport supplies one when the caller does not.
   */
  baseHeaders: { authorization: string; 'idempotency-key'?: string };
  api: ApiFetcher;
  throwOnUnknownStatus: true;
}

/**
 * The client of a ts-rest contract: each of its routers with each of its operations (typed
 * request, result discriminated by `status`), and the rate-limit state. A router of the
 * contract named `rateLimit` would be hidden by the state.
 */
export type ApiClientOf<TContract extends AppRouter> = Readonly<
  InitClientReturn<TContract, ContractClientArgs>
> & {
  /** The rate-limit headers of the last response seen, undefined before the first one. */
  readonly rateLimit: RateLimitState | undefined;
};

const VERSION_SUFFIX = /\/v1\/?$/;

function operationName(route: AppRoute): string {
  const metadata = route.metadata as { operationId?: unknown } | undefined;
  return typeof metadata?.operationId === 'string'
    ? metadata.operationId
    : `${route.method} ${route.path}`;
}

/**
 * A client of any contract built as the Animal Store's is (a ts-rest router of routers, paths
 * under `/v1`), with the same behaviour on every operation: retries, an `Idempotency-Key` for
 * each route that declares the header, deprecation notices and the rate-limit state.
 */
export function createApiClient<TContract extends AppRouter>(
  contract: TContract,
  options: CreateClientOptions,
): ApiClientOf<TContract> {
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
  return {
    ...initClient(contract, args),
    get rateLimit() {
      return rateLimit;
    },
  };
}
