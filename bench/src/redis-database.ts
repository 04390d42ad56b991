import { Redis } from 'ioredis';
import { onCleanup } from './cleanup.js';

const REDIS_SERVER = 'redis://127.0.0.1:6379';

/** Marks a Redis database as taken by a bench run, so a second run picks another one. */
const CLAIM_KEY = 'animal-store-bench:claimed';

/** Every key the servers write starts with their default prefix. */
const SERVER_KEYS = 'animal-store:*';

async function numberOfDatabases(redis: Redis): Promise<number> {
  try {
    const [, count] = (await redis.config('GET', 'databases')) as [string, string];
    return Number(count) || 16;
  } catch {
    return 16;
  }
}

async function removeServerKeys(redis: Redis): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', SERVER_KEYS, 'COUNT', 1_000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.del(CLAIM_KEY);
}

/**
 * The REDIS_URL for the servers under test: a numbered Redis database that was empty, claimed
 * for this run and emptied of the servers' keys at cleanup. A database of its own matters: the
 * soak's invalid tokens get 127.0.0.1 banned for 15 minutes, which in the shared database 0 would
 * refuse every other local server and test that counts requests there. Undefined when Redis does
 * not answer: the servers then count rate limits in-process.
 */
export async function claimRedisDatabase(): Promise<string | undefined> {
  const redis = new Redis(REDIS_SERVER, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {
    // Reported by connect() below.
  });
  try {
    await redis.connect();
  } catch {
    redis.disconnect();
    return undefined;
  }
  const count = await numberOfDatabases(redis);
  for (let db = count - 1; db >= 1; db -= 1) {
    await redis.select(db);
    if ((await redis.set(CLAIM_KEY, String(process.pid), 'NX')) !== 'OK') continue;
    if ((await redis.dbsize()) === 1) {
      onCleanup(`remove the servers' keys from Redis database ${db}`, async () => {
        await removeServerKeys(redis);
        await redis.quit();
      });
      return `${REDIS_SERVER}/${db}`;
    }
    await redis.del(CLAIM_KEY);
  }
  await redis.quit();
  throw new Error(`Redis at ${REDIS_SERVER} has no empty database (1 to ${count - 1}) to use`);
}
