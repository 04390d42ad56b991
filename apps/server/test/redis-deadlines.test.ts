/**
 * A Redis that hangs (accepts connections, never answers) is a fault like a Redis that is down:
 * every command has a deadline, and a breaker makes the whole hang cost one deadline, not one per
 * request. Meanwhile requests are served, counted in-process; once Redis answers, it counts again.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimitStore } from '../src/limits/redis-store.js';
import { createLogger } from '../src/logger.js';
import { TcpFaultProxy } from './support/tcp-fault-proxy.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Runs `request`, and says how long it took. */
async function timed<T>(request: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await request();
  return { result, ms: performance.now() - started };
}

describe('Redis that hangs', () => {
  const keyPrefix = `test:${randomUUID()}:`;
  let proxy: TcpFaultProxy;
  let api: TestServer;
  let inspector: Redis;

  beforeAll(async () => {
    proxy = await TcpFaultProxy.start(SHARED_REDIS_URL, 6379);
    const rateLimits = new RedisRateLimitStore(
      proxy.through(SHARED_REDIS_URL),
      createLogger('silent'),
      { keyPrefix, commandTimeoutMs: 250 },
    );
    expect(await rateLimits.connected()).toBe(true);
    api = await startTestServer({ rateLimits });
    inspector = new Redis(SHARED_REDIS_URL);
  });
  afterAll(async () => {
    inspector.disconnect();
    await api.close();
    await proxy.close();
  });

  const countersInRedis = async () => (await inspector.keys(`${keyPrefix}rl:*`)).length;

  it('costs at most one command deadline: /healthz and the API answer within a second while it hangs, and Redis counts again within 10 s once it answers', async () => {
    const key = await api.createKey({ label: 'pro', plan: 'pro' });
    expect((await api.request('/v1/pets', { apiKey: key })).status).toBe(200);
    expect(await countersInRedis()).toBeGreaterThan(0);
    await inspector.del(...(await inspector.keys(`${keyPrefix}rl:*`)));

    proxy.mode = 'hang';
    const health = await timed(() => api.request('/healthz', { apiKey: null }));
    expect(health.result.status).toBe(200);
    expect(health.ms).toBeLessThan(1_000);

    const burst = await timed(() =>
      Promise.all(Array.from({ length: 40 }, () => api.request('/v1/pets', { apiKey: key }))),
    );
    expect(burst.result.map((res) => res.status)).toEqual(Array(40).fill(200));
    expect(burst.ms).toBeLessThan(1_000);
    // Counted all the same, in-process (afresh: the counts in Redis cannot be read).
    const remaining = burst.result.map((res) => Number(res.headers.get('x-ratelimit-remaining')));
    expect(Math.min(...remaining)).toBe(300 - 40);

    // One request after another pays no deadline each: the breaker sends them in-process at once.
    const sequential = await timed(async () => {
      for (let i = 0; i < 10; i += 1) await api.request('/v1/pets', { apiKey: key });
    });
    expect(sequential.ms).toBeLessThan(1_000);
    expect(await countersInRedis()).toBe(0);

    proxy.mode = 'pass';
    const started = performance.now();
    while ((await countersInRedis()) === 0 && performance.now() - started < 10_000) {
      expect((await api.request('/v1/pets', { apiKey: key })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await countersInRedis()).toBeGreaterThan(0);
  });
});
