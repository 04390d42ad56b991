import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisRateLimitStore } from '../src/limits/redis-store.js';
import { dayWindow, minuteWindow } from '../src/limits/windows.js';
import { createLogger } from '../src/logger.js';
import { awayFromMinuteEnd } from './support/minute-window.js';
import { startRedisServer } from './support/redis-process.js';
import {
  freePort,
  killLeftoverServers,
  runKeys,
  startServerProcess,
} from './support/server-process.js';
import { dropScratchDatabases, scratchDatabaseUrl } from './support/test-database.js';
import { startTestServer } from './support/test-server.js';

/** The Redis CI provides; every test here namespaces its keys, so runs never collide. */
const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

afterAll(async () => {
  killLeftoverServers();
  await dropScratchDatabases();
});

async function createKey(databaseUrl: string, plan: string): Promise<{ id: string; key: string }> {
  const result = await runKeys(databaseUrl, [
    'create',
    '--label',
    `redis ${plan}`,
    '--plan',
    plan,
    '--json',
  ]);
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('Rate limits in Redis, across instances', () => {
  it('two server instances sharing one Redis and one database hold a free key to 60 requests a minute together', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: SHARED_REDIS_URL };
    // The first instance migrates the fresh database; the second finds it ready.
    const first = await startServerProcess(env);
    const second = await startServerProcess(env);
    const { key } = await createKey(databaseUrl, 'free');
    await awayFromMinuteEnd(15);
    const statuses: number[] = [];
    for (let i = 0; i < 70; i += 1) {
      const instance = i % 2 === 0 ? first : second;
      const res = await fetch(`${instance.baseUrl}/v1/pets`, {
        headers: { authorization: `Bearer ${key}` },
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((status) => status === 200).length).toBe(60);
    expect(statuses.slice(60)).toEqual(Array(10).fill(429));
    for (const instance of [first, second]) instance.child.kill('SIGTERM');
  });

  it('a revoked key is refused by every instance within 5 seconds', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: SHARED_REDIS_URL };
    const instances = [await startServerProcess(env), await startServerProcess(env)];
    const { id, key } = await createKey(databaseUrl, 'pro');
    const statusAt = (baseUrl: string) =>
      fetch(`${baseUrl}/v1/pets`, { headers: { authorization: `Bearer ${key}` } }).then(
        (res) => res.status,
      );
    for (const instance of instances) expect(await statusAt(instance.baseUrl)).toBe(200);

    expect((await runKeys(databaseUrl, ['revoke', id])).status).toBe(0);
    const revokedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5_000 - (Date.now() - revokedAt)));
    for (const instance of instances) expect(await statusAt(instance.baseUrl)).toBe(401);
    for (const instance of instances) instance.child.kill('SIGTERM');
  });

  it('concurrent requests are counted atomically: 100 at once on a free key allow exactly 60', async () => {
    const rateLimits = new RedisRateLimitStore(SHARED_REDIS_URL, createLogger('silent'), {
      keyPrefix: `test:${randomUUID()}:`,
    });
    expect(await rateLimits.connected()).toBe(true);
    const api = await startTestServer({ rateLimits, now: () => Date.UTC(2026, 2, 10, 12, 0, 30) });
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

describe('Limits up to 2^53 − 1 in Redis', () => {
  it('are held exactly: the last request within them is allowed, the next refused', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const rateLimits = new RedisRateLimitStore(SHARED_REDIS_URL, createLogger('silent'), {
      keyPrefix,
    });
    const redis = new Redis(SHARED_REDIS_URL, { keyPrefix });
    try {
      expect(await rateLimits.connected()).toBe(true);
      const nowMs = Date.UTC(2026, 2, 10, 12, 0, 30);
      const largest = Number.MAX_SAFE_INTEGER;
      const subject = 'key:vast';
      const request = { subject, quota: { perMinute: largest, perDay: largest }, nowMs };
      // One request left in both windows, set under the store's own key names: counting up
      // there would take a while.
      for (const window of [`m:${minuteWindow(nowMs).index}`, `d:${dayWindow(nowMs).index}`]) {
        await redis.set(`rl:{${subject}}:${window}`, String(largest - 1), 'EX', 60);
      }
      const full = { minuteUsed: largest, dayUsed: largest };
      expect(await rateLimits.admit(request)).toEqual({ outcome: 'allowed', ...full });
      expect(await rateLimits.admit(request)).toEqual({ outcome: 'limited', ...full });
      expect(await rateLimits.peek(request)).toEqual({ outcome: 'limited', ...full });
    } finally {
      redis.disconnect();
      await rateLimits.close();
    }
  });
});

describe('Redis going away', () => {
  let redis: ChildProcess | undefined;
  afterAll(() => redis?.kill('SIGKILL'));

  it('keeps answering while Redis restarts, counts in-process meanwhile, logs the fault once, and returns to Redis', async () => {
    const port = await freePort();
    redis = await startRedisServer(port);
    const logs = new PassThrough();
    const lines: string[] = [];
    logs.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const logger = createLogger('info', logs);
    const rateLimits = new RedisRateLimitStore(`redis://127.0.0.1:${port}`, logger);
    expect(await rateLimits.connected()).toBe(true);
    const api = await startTestServer({
      rateLimits,
      logger,
      now: () => Date.UTC(2026, 2, 10, 12, 0, 30),
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
      // In-process counting starts afresh: the counts are kept, just not shared.
      expect(during.map((res) => Number(res.headers.get('x-ratelimit-remaining')))).toEqual([
        59, 58, 57, 56, 55,
      ]);
      const faults = () => lines.filter((line) => line.includes('Redis is unreachable')).length;
      expect(faults()).toBe(1);

      redis = await startRedisServer(port);
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
