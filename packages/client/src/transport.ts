import type { ApiFetcher, AppRoute } from '@ts-rest/core';
import { withIdempotencyKey } from './idempotency-key.js';
import {
  type AttemptOutcome,
  createRetryBudget,
  nextRetryDelay,
  parseRetryAfter,
  type RetryPolicy,
} from './retry.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  readonly fetch: FetchFunction;
  readonly retry: RetryPolicy;
  /** Sees the headers of every response, retried ones included. */
  readonly observe: (route: AppRoute, headers: Headers) => void;
}

/** Statuses that carry no body (RFC 9110): their result's body is undefined, as typed. */
const BODILESS_STATUSES = new Set([204, 205, 304]);

/** Reads a body the way ts-rest's own fetcher does, so results look the same. */
async function readBody(response: Response): Promise<unknown> {
  if (BODILESS_STATUSES.has(response.status)) return undefined;
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.includes('application/') && contentType.includes('json')) {
    return response.json();
  }
  if (contentType.includes('text/')) return response.text();
  return response.blob();
}

/**
 * The `api` function given to ts-rest's `initClient`: it sends the request with `fetch` and
 * repeats it, the very same request (same body, same `Idempotency-Key`), while the retry policy
 * says so. A route that declares an `Idempotency-Key` header gets one when the caller gave none.
 */
export function createTransport(options: TransportOptions): ApiFetcher {
  const { retry, observe } = options;
  const budget = createRetryBudget(retry.retryBudget);
  /** How long to wait before the next attempt, or undefined to make none: the budget's say too. */
  const nextDelay = (attempt: number, elapsedMs: number, outcome: AttemptOutcome) => {
    budget.record(outcome);
    const delay = nextRetryDelay(retry, attempt, elapsedMs, outcome);
    return delay !== undefined && budget.allowsRetry() ? delay : undefined;
  };
  return async ({ route, path, method, headers: given, body, fetchOptions }) => {
    const headers = withIdempotencyKey(route, given);
    const signal = fetchOptions?.signal ?? undefined;
    const startedAt = retry.now();
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await options.fetch(path, { ...fetchOptions, method, headers, body });
      } catch (error) {
        // A caller who aborted wants no retry; anything else fetch throws is the network.
        if (signal?.aborted) throw error;
        const delay = nextDelay(attempt, retry.now() - startedAt, { kind: 'network-error' });
        if (delay === undefined) throw error;
        await retry.sleep(delay, signal);
        continue;
      }
      observe(route, response.headers);
      const delay = nextDelay(attempt, retry.now() - startedAt, {
        kind: 'response',
        status: response.status,
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), Date.now()),
      });
      if (delay === undefined) {
        return {
          status: response.status,
          body: await readBody(response),
          headers: response.headers,
        };
      }
      // Release the connection of the answer we drop before waiting.
      await response.body?.cancel();
      await retry.sleep(delay, signal);
    }
  };
}
