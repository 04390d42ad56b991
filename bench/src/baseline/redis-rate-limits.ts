import { Redis } from 'ioredis';
import {
  dayEndMs,
  dayOf,
  minuteEndMs,
  minuteOf,
  type RateLimits,
  verdictOf,
} from './rate-limits.js';

/**
 * The rule of rate-limits.ts, decided and counted atomically in Redis, one call per request.
 * KEYS: minute count, day count. ARGV: per minute, per day, minute expiry (ms), day expiry (ms).
 * Replies: 1 if allowed (0 if not), then the minute and day counts after the request.
 */
const ADMIT_SCRIPT = `
local minuteUsed = tonumber(redis.call('GET', KEYS[1]) or '0')
local dayUsed = tonumber(redis.call('GET', KEYS[2]) or '0')
if minuteUsed >= tonumber(ARGV[1]) or dayUsed >= tonumber(ARGV[2]) then
  return {0, minuteUsed, dayUsed}
end
minuteUsed = redis.call('INCR', KEYS[1])
if minuteUsed == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
dayUsed = redis.call('INCR', KEYS[2])
if dayUsed == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
return {1, minuteUsed, dayUsed}
`;

type RedisWithAdmit = Redis & {
  admit(...keysThenArgs: Array<string | number>): Promise<[number, number, number]>;
};

/**
 * Counters shared through Redis, as the server keeps them when REDIS_URL is set: one script call
 * per request (EVALSHA once ioredis has sent the script), the calls of one event-loop turn sent
 * in one write (auto-pipelining). Keys start with `keyPrefix`, by default under the server's
 * `animal-store:`, so that the bench removes them with the server's. A key outlives its window
 * by a second.
 */
export function createRedisRateLimits(url: string, keyPrefix = 'animal-store:bare:') {
  const redis = new Redis(url, {
    keyPrefix,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
  }) as RedisWithAdmit;
  redis.defineCommand('admit', { numberOfKeys: 2, lua: ADMIT_SCRIPT });

  const admit: RateLimits = async (subject, quota, nowMs) => {
    const [allowed, minuteUsed, dayUsed] = await redis.admit(
      `rl:{${subject}}:m:${minuteOf(nowMs)}`,
      `rl:{${subject}}:d:${dayOf(nowMs)}`,
      quota.perMinute,
      quota.perDay,
      minuteEndMs(nowMs) - nowMs + 1_000,
      dayEndMs(nowMs) - nowMs + 1_000,
    );
    return verdictOf(allowed === 1, minuteUsed, dayUsed, quota, nowMs);
  };
  return { admit, close: () => redis.quit() };
}
