import type { Logger } from '../logger.js';
import { MemoryRateLimitStore } from './memory-store.js';
import type { RateLimitStore } from './rate-limit-store.js';
import { RedisRateLimitStore } from './redis-store.js';

/** Counters shared through Redis when it is configured, else kept in this process. */
export function createRateLimitStore(redisUrl: string | undefined, logger: Logger): RateLimitStore {
  return redisUrl ? new RedisRateLimitStore(redisUrl, logger) : new MemoryRateLimitStore();
}
