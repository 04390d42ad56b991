import { couldBeApiKey, LONGEST_API_KEY_LENGTH } from '@animal-store/contract/rules';
import { boundedCache } from '../bounded-cache.js';
import type { Clock } from '../clock.js';
import { type ApiKeyInfo, type ApiKeyStore, hashSecret } from '../keys/api-key-store.js';
import type { DatabaseCall, RequestTrace, Tracing } from '../tracing/tracing.js';

/** Who sent a request, as far as its `Authorization` header tells. */
export type Caller =
  | { kind: 'key'; key: ApiKeyInfo }
  | { kind: 'anonymous'; credential: 'missing' | 'invalid' }
  /** The key could not be checked (the database is away): admission answers 503, counting nothing. */
  | { kind: 'unresolved'; error: unknown };

/**
 * A key is looked up at most once per this period per instance, so a revocation reaches
 * every instance within 5 seconds while the hot path stays off the database.
 */
export const KEY_RECHECK_MS = 4_000;

const BEARER = /^bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

const FIND_KEY: DatabaseCall = { operation: 'SELECT', table: 'api_keys' };

/**
 * Finds the key a token names. Only tokens shaped like our keys reach the database; what it
 * answers is remembered for KEY_RECHECK_MS, genuine keys and unknown tokens in separate caches,
 * so a flood of junk can never push a genuine key out. A remembered answer is given at once,
 * not as a promise: most requests carry a key seen a moment ago, and go on without a turn. A
 * lookup is recorded in the trace of the request that began it.
 */
function keyLookup(keys: ApiKeyStore, tracing: Tracing, periods: Clock) {
  const remembered = { ttl: KEY_RECHECK_MS, perf: periods };
  const genuine = boundedCache<string, ApiKeyInfo>(50_000, remembered);
  const unknown = boundedCache<string, true>(10_000, remembered);
  // Concurrent requests with the same token share one database lookup.
  const pending = new Map<string, Promise<ApiKeyInfo | undefined>>();

  const lookUp = (secretHash: string, askedFor: RequestTrace) => {
    let lookup = pending.get(secretHash);
    if (!lookup) {
      lookup = tracing
        .databaseCall([askedFor], FIND_KEY, () => keys.findActiveByHash(secretHash))
        .then((key) => {
          if (key) genuine.set(secretHash, key);
          else unknown.set(secretHash, true);
          return key;
        })
        .finally(() => pending.delete(secretHash));
      pending.set(secretHash, lookup);
    }
    return lookup;
  };

  return (
    secret: string,
    askedFor: RequestTrace,
  ): ApiKeyInfo | undefined | Promise<ApiKeyInfo | undefined> => {
    // Junk longer than any key is never hashed.
    if (secret.length > LONGEST_API_KEY_LENGTH) return undefined;
    const secretHash = hashSecret(secret);
    // A key remembered as genuine passed its shape and checksum when it was looked up, and only
    // the same token has its hash: most requests skip the check.
    const known = genuine.get(secretHash);
    if (known) return known;
    if (!couldBeApiKey(secret) || unknown.has(secretHash)) return undefined;
    return lookUp(secretHash, askedFor);
  };
}

const callerWith = (key: ApiKeyInfo | undefined): Caller =>
  key ? { kind: 'key', key } : { kind: 'anonymous', credential: 'invalid' };

/**
 * Who an `Authorization` header names: at once when the answer is known, else once looked up
 * for the request whose trace is `askedFor`.
 */
export type CallerResolver = (
  authorization: string | undefined,
  askedFor: RequestTrace,
) => Caller | Promise<Caller>;

/** `periods` times KEY_RECHECK_MS (src/clock.ts). */
export function createCallerResolver(
  keys: ApiKeyStore,
  tracing: Tracing,
  periods: Clock,
): CallerResolver {
  const findKey = keyLookup(keys, tracing, periods);

  return (header, askedFor) => {
    if (header === undefined || header.trim() === '')
      return { kind: 'anonymous', credential: 'missing' };
    const secret = BEARER.exec(header)?.[1];
    if (!secret) return { kind: 'anonymous', credential: 'invalid' };
    const found = findKey(secret, askedFor);
    if (!(found instanceof Promise)) return callerWith(found);
    return found.then(callerWith, (error: unknown) => ({ kind: 'unresolved', error }));
  };
}
