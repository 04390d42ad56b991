import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import { type ApiKeyInfo, type ApiKeyStore, hashSecret } from '../keys/api-key-store.js';

/** Who sent a request, as far as its `Authorization` header tells. */
export type Caller =
  | { kind: 'key'; key: ApiKeyInfo }
  | { kind: 'anonymous'; credential: 'missing' | 'invalid' }
  /** The key could not be checked (the database is away); the request fails at authentication. */
  | { kind: 'unresolved'; error: unknown };

/**
 * A key is looked up at most once per this period per instance, so a revocation reaches
 * every instance within 5 seconds while the hot path stays off the database.
 */
export const KEY_RECHECK_MS = 4_000;

const BEARER = /^bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

interface CachedLookup {
  key: ApiKeyInfo | null;
}

export type CallerResolver = (req: Request) => Promise<Caller>;

export function createCallerResolver(keys: ApiKeyStore): CallerResolver {
  const lookups = new LRUCache<string, CachedLookup>({
    max: 50_000,
    ttl: KEY_RECHECK_MS,
    // Concurrent requests with the same key share one database lookup.
    fetchMethod: async (secretHash) => ({ key: (await keys.findActiveByHash(secretHash)) ?? null }),
  });

  return async (req) => {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === '')
      return { kind: 'anonymous', credential: 'missing' };
    const secret = BEARER.exec(header)?.[1];
    if (!secret) return { kind: 'anonymous', credential: 'invalid' };
    try {
      const lookup = await lookups.fetch(hashSecret(secret));
      return lookup?.key
        ? { kind: 'key', key: lookup.key }
        : { kind: 'anonymous', credential: 'invalid' };
    } catch (error) {
      return { kind: 'unresolved', error };
    }
  };
}

/** What admission learned about the caller, for authentication and idempotency to read. */
export function setCaller(locals: Record<string, unknown>, caller: Caller): void {
  locals.caller = caller;
}

export function callerOf(locals: Record<string, unknown>): Caller {
  return (locals.caller as Caller | undefined) ?? { kind: 'anonymous', credential: 'missing' };
}
