import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { freePort } from '@animal-store/local-ports';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKeyStore } from '../../src/keys/api-key-store.js';
import { RedisRateLimitStore } from '../../src/limits/redis-store.js';
import { createLogger } from '../../src/logger.js';
import { TestClock } from '../../testing/test-clock.js';
import { dropScratchDatabases, scratchDatabaseUrl } from '../../testing/test-database.js';
import { SHARED_REDIS_URL } from '../../testing/test-services.js';
import { awayFromMinuteEnd } from '../support/minute-window.js';
import { startRedisServer } from '../support/redis-process.js';
import { killLeftoverServers, startServerProcess } from '../support/server-process.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** Redis servers of single tests' own, on free ports; killed when the file is done. */
const ownRedisServers: ChildProcess[] = [];

async function startOwnRedis(port: number): Promise<ChildProcess> {
  const redis = await startRedisServer(port);
  ownRedisServers.push(redis);
  return redis;
}

afterAll(async () => {
  killLeftoverServers();
  for (const redis of ownRedisServers) redis.kill('SIGKILL');
  await dropScratchDatabases();
});

/**
 * Two instances of one deployment, in this process: one database, one Redis (counters of this
 * test's own) and one clock, which the test moves; each with its own key cache and in-process
 * counts, as two processes have.
 */
async function twoInstances() {
  const keyPrefix = `test:${randomUUID()}:`;
  const rateLimits = async () => {
    const store = new RedisRateLimitStore(SHARED_REDIS_URL, createLogger('silent'), { keyPrefix });
    expect(await store.connected()).toBe(true);
    return store;
  };
  const first = await startTestServer({ rateLimits: await rateLimits() });
  const second = await startTestServer({
    rateLimits: await rateLimits(),
    sharedDatabaseUrl: first.databaseUrl,
    clock: first.clock,
  });
  return {
    instances: [first, second],
    clock: first.clock,
    keys: createApiKeyStore(first.db),
    // The second first: the first drops the database they share.
    close: async () => {
      await second.close();
      await first.close();
    },
  };
}

describe('Rate limits in Redis, across instances', () => {
  it('two server instances sharing one Redis and one database hold a free key to 60 requests a minute together', async () => {
    const { instances, keys, close } = await twoInstances();
    try {
      const { secret } = await keys.create({ label: 'redis free', plan: 'free' });
      const statuses: number[] = [];
      for (let i = 0; i < 70; i += 1) {
        const instance = instances[i % 2] as TestServer;
        statuses.push((await instance.request('/v1/pets', { apiKey: secret })).status);
      }
      expect(statuses.filter((status) => status === 200).length).toBe(60);
      expect(statuses.slice(60)).toEqual(Array(10).fill(429));
    } finally {
      await close();
    }
  });

  it('a revoked key is refused by every instance within 5 seconds', async () => {
    const { instances, clock, keys, close } = await twoInstances();
    try {
      const { key, secret } = await keys.create({ label: 'redis pro', plan: 'pro' });
      const statusAt = async (instance: TestServer) =>
        (await instance.request('/v1/pets', { apiKey: secret })).status;
      for (const instance of instances) expect(await statusAt(instance)).toBe(200);

      expect(await keys.revoke(key.id)).toBe(true);
      clock.advance(5_000);
      for (const instance of instances) expect(await statusAt(instance)).toBe(401);
    } finally {
      await close();
    }
  });

  it('concurrent requests are counted atomically: 100 at once on a free key allow exactly 60', async () => {
    const rateLimits = new RedisRateLimitStore(SHARED_REDIS_URL, createLogger('silent'), {
      keyPrefix: `test:${randomUUID()}:`,
    });
    expect(await rateLimits.connected()).toBe(true);
    const api = await startTestServer({
      rateLimits,
      clock: new TestClock(Date.UTC(2026, 2, 10, 12, 0, 30)),
    });
    try {
      const key = await api.createKey({ label: 'free', plan: 'free' });
      const responses = await Promise.all(
        Array.from({ length: 100 }, () => api.request('/v1/pets', { apiKey: key })),
      );
      expect(responses.filter((res) => res.status === 200).length).toBe(60);
    } finally {
      await api.close();
    }
  });
});

describe('Deployments sharing one Redis', () => {
  it('REDIS_KEY_PREFIX keeps their counters apart; instances of one deployment share theirs', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const deployment = (prefix: string) => ({
      DATABASE_URL: databaseUrl,
      REDIS_URL: SHARED_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
    });
    const [shop, warehouse] = [`test:${randomUUID()}:shop:`, `test:${randomUUID()}:warehouse:`];
    const shopOne = await startServerProcess(deployment(shop));
    const shopTwo = await startServerProcess(deployment(shop));
    const warehouseOne = await startServerProcess(deployment(warehouse));
    const keyless = async (baseUrl: string) => (await fetch(`${baseUrl}/v1/pets`)).status;

    // Processes read the wall clock (only an in-process server takes a test's): stay in one minute.
    await awayFromMinuteEnd(15);
    // This address's Free quota, spent on the shop's first instance…
    for (let i = 0; i < 60; i += 1) expect(await keyless(shopOne.baseUrl)).toBe(401);
    // …is spent on its second instance too, but not on the other deployment.
    expect(await keyless(shopTwo.baseUrl)).toBe(429);
    expect(await keyless(warehouseOne.baseUrl)).toBe(401);

    const inspector = new Redis(SHARED_REDIS_URL);
    try {
      expect((await inspector.keys(`${shop}rl:*`)).length).toBeGreaterThan(0);
      expect((await inspector.keys(`${warehouse}rl:*`)).length).toBeGreaterThan(0);
    } finally {
      inspector.disconnect();
    }
    for (const instance of [shopOne, shopTwo, warehouseOne]) instance.child.kill('SIGTERM');
  });
});

describe('Redis round trips', () => {
  it('go out together: 50 subjects decided at once reach Redis in a few reads, not 50', async () => {
    // A Redis of this test's own, so that its read count is this store's traffic alone.
    const port = await freePort();
    await startOwnRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const rateLimits = new RedisRateLimitStore(url, createLogger('silent'));
    const observer = new Redis(url);
    const readsProcessed = async () =>
      Number(/total_reads_processed:(\d+)/.exec(await observer.info('stats'))?.[1]);
    try {
      expect(await rateLimits.connected()).toBe(true);
      const nowMs = Date.UTC(2026, 2, 10, 12, 0, 30);
      const quota = { perMinute: 1_000, perDay: 10_000 };
      await rateLimits.admit([{ subject: 'key:warm', quota, nowMs }]); // loads the script
      const before = await readsProcessed();

      const decisions = await rateLimits.admit(
        Array.from({ length: 50 }, (_, i) => ({ subject: `key:${i}`, quota, nowMs })),
      );

      // The observer's own INFO is one read.
      expect((await readsProcessed()) - before).toBeLessThanOrEqual(5);
      expect(decisions.every((decision) => decision.outcome === 'allowed')).toBe(true);
    } finally {
      observer.disconnect();
      await rateLimits.close();
    }
  });

  it("leave at once: a turn's calls reach Redis before this process's event loop turns again", async () => {
    // A Redis of this test's own, asked from another process while this one's event loop stands
    // still: what reaches it then was written by `admit` itself, not by a callback of a later
    // turn (ioredis's auto-pipelining writes from a setImmediate).
    const port = await freePort();
    await startOwnRedis(port);
    const rateLimits = new RedisRateLimitStore(`redis://127.0.0.1:${port}`, createLogger('silent'));
    const scriptCallsNow = () => {
      const stats = execFileSync('redis-cli', ['-p', String(port), 'INFO', 'commandstats'], {
        encoding: 'utf8',
      });
      return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    };
    try {
      expect(await rateLimits.connected()).toBe(true);
      const nowMs = Date.UTC(2026, 2, 10, 12, 0, 30);
      const quota = { perMinute: 1_000, perDay: 10_000 };
      await rateLimits.admit([{ subject: 'key:warm', quota, nowMs }]); // loads the script
      const before = scriptCallsNow();

      const decided = rateLimits.admit(
        ['key:a', 'key:b', 'key:c'].map((subject) => ({ subject, quota, nowMs })),
      );
      let reached = 0;
      for (let asked = 0; asked < 50 && reached < 3; asked += 1) {
        reached = scriptCallsNow() - before;
      }

      expect(reached).toBe(3);
      expect((await decided).map((decision) => decision.outcome)).toEqual(Array(3).fill('allowed'));
    } finally {
      await rateLimits.close();
    }
  });
});

describe('Decisions for one subject in one batch', () => {
  it('take one script call for all of them', async () => {
    // A Redis of this test's own, so that its command count is this store's traffic alone.
    const port = await freePort();
    await startOwnRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const rateLimits = new RedisRateLimitStore(url, createLogger('silent'));
    const observer = new Redis(url);
    const scriptCalls = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await observer.info('commandstats'))?.[1] ?? 0);
    try {
      expect(await rateLimits.connected()).toBe(true);
      const nowMs = Date.UTC(2026, 2, 10, 12, 0, 30);
      // Five a minute; more than ten rejections in a minute earn a ban.
      const request = { subject: 'key:burst', quota: { perMinute: 5, perDay: 100 }, nowMs };
      await rateLimits.admit([{ ...request, subject: 'key:warm' }]); // loads the script
      const before = await scriptCalls();

      const decisions = await rateLimits.admit(Array.from({ length: 20 }, () => request));

      expect((await scriptCalls()) - before).toBe(1);
      // The one call decided all twenty: the quota, then rejections, then a ban. What each
      // request gets, in one turn or one turn each, is the decision table's
      // (rate-limit-decisions.test.ts), which both stores are held to.
      expect(decisions.map((decision) => decision.outcome)).toEqual([
        ...Array(5).fill('allowed'),
        ...Array(11).fill('limited'),
        ...Array(4).fill('banned'),
      ]);
    } finally {
      observer.disconnect();
      await rateLimits.close();
    }
  });
});

describe('Redis going away', () => {
  it('keeps answering while Redis restarts, counts in-process meanwhile, logs the fault once, and returns to Redis', async () => {
    const port = await freePort();
    const redis = await startOwnRedis(port);
    const logs = new PassThrough();
    const lines: string[] = [];
    logs.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const logger = createLogger('info', logs);
    const rateLimits = new RedisRateLimitStore(`redis://127.0.0.1:${port}`, logger);
    expect(await rateLimits.connected()).toBe(true);
    const api = await startTestServer({
      rateLimits,
      logger,
      clock: new TestClock(Date.UTC(2026, 2, 10, 12, 0, 30)),
    });
    const inspector = new Redis(port, '127.0.0.1', { retryStrategy: () => 100 });
    inspector.on('error', () => {});
    try {
      const key = await api.createKey({ label: 'free', plan: 'free' });
      const remaining = async () =>
        Number(
          (await api.request('/v1/pets', { apiKey: key })).headers.get('x-ratelimit-remaining'),
        );
      expect(await remaining()).toBe(59);
      expect(await remaining()).toBe(58);
      expect((await inspector.keys('animal-store:rl:*')).length).toBeGreaterThan(0);

      redis.kill('SIGKILL');
      await once(redis, 'exit');
      const during = [];
      for (let i = 0; i < 5; i += 1) during.push(await api.request('/v1/pets', { apiKey: key }));
      expect(during.map((res) => res.status)).toEqual(Array(5).fill(200));
      // In-process counting goes on from the counts Redis last gave this instance: kept, just
      // not shared.
      expect(during.map((res) => Number(res.headers.get('x-ratelimit-remaining')))).toEqual([
        57, 56, 55, 54, 53,
      ]);
      const faults = () => lines.filter((line) => line.includes('Redis is unreachable')).length;
      expect(faults()).toBe(1);

      await startOwnRedis(port);
      let backInRedis = false;
      for (let attempt = 0; attempt < 100 && !backInRedis; attempt += 1) {
        await api.request('/v1/pets', { apiKey: key });
        backInRedis = (await inspector.keys('animal-store:rl:*').catch(() => [])).length > 0;
        if (!backInRedis) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(backInRedis).toBe(true);
      expect(lines.some((line) => line.includes('Redis is back'))).toBe(true);
      expect(faults()).toBe(1);
    } finally {
      inspector.disconnect();
      await api.close();
    }
  });
});
