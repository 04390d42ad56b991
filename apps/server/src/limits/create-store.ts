import type { Logger } from '../logger.js';
import { MemoryRateLimitStore } from './memory-store.js';
import type { RateLimitStore } from './rate-limit-store.js';
import { RedisRateLimitStore, type RedisStoreOptions } from './redis-store.js';

/**
 * Counters shared through Redis when it is configured, else kept in this process. A Redis that
 * does not answer at start is logged and waited for in the background; the server starts anyway.
 */
export async function createRateLimitStore(
  redisUrl: string | undefined,
  logger: Logger,
  options: RedisStoreOptions = {},
): Promise<RateLimitStore> {
  if (!redisUrl) return new MemoryRateLimitStore(options);
  const store = new RedisRateLimitStore(redisUrl, logger, options);
  if (!(await store.connected())) {
    logger.warn('Redis does not answer yet: counting rate limits in this process until it does');
  }
  return store;
}
