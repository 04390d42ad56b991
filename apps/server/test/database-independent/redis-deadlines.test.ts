/**
 * A Redis that hangs (accepts connections, never answers) is a fault like a Redis that is down:
 * every command has a deadline, and a breaker makes the whole hang cost one deadline, not one per
 * request. Meanwhile requests are served, counted in-process; once Redis answers, it counts again.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimitStore } from '../../src/limits/redis-store.js';
import { createLogger } from '../../src/logger.js';
import { DEFAULT_PORTS, SHARED_REDIS_URL } from '../../testing/test-services.js';
import { TcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

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
    proxy = await TcpFaultProxy.start(SHARED_REDIS_URL, DEFAULT_PORTS.redis);
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

  it('costs at most one command deadline: the API answers within a second while it hangs, and Redis counts again within 10 s once it answers', async () => {
    const key = await api.createKey({ label: 'pro', plan: 'pro' });
    // The burst's counts below continue the first request's: both in one minute window, as the
    // server's clock stands still.
    expect((await api.request('/v1/pets', { apiKey: key })).status).toBe(200);
    expect(await countersInRedis()).toBeGreaterThan(0);
    await inspector.del(...(await inspector.keys(`${keyPrefix}rl:*`)));

    proxy.mode = 'hang';
    const burst = await timed(() =>
      Promise.all(Array.from({ length: 40 }, () => api.request('/v1/pets', { apiKey: key }))),
    );
    expect(burst.result.map((res) => res.status)).toEqual(Array(40).fill(200));
    expect(burst.ms).toBeLessThan(1_000);
    // Counted all the same, in-process, from the count Redis last gave this instance (the first
    // request's): the counts in Redis cannot be read.
    const remaining = burst.result.map((res) => Number(res.headers.get('x-ratelimit-remaining')));
    expect(Math.min(...remaining)).toBe(300 - 1 - 40);

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

describe('Probes while Redis hangs', () => {
  const keyPrefix = `test:${randomUUID()}:`;
  let proxy: TcpFaultProxy;
  let api: TestServer;

  beforeAll(async () => {
    proxy = await TcpFaultProxy.start(SHARED_REDIS_URL, DEFAULT_PORTS.redis);
    // A deadline far above a probe's answer time, so that a probe waiting on Redis would show.
    const rateLimits = new RedisRateLimitStore(
      proxy.through(SHARED_REDIS_URL),
      createLogger('silent'),
      { keyPrefix, commandTimeoutMs: 5_000 },
    );
    expect(await rateLimits.connected()).toBe(true);
    api = await startTestServer({ rateLimits });
  });
  afterAll(async () => {
    await api.close();
    await proxy.close();
  });

  it('never wait on it: /healthz and /readyz answer, with the IP headers this instance knows, while a request waits out the Redis deadline', async () => {
    const counted = await api.request('/v1/openapi.json', { apiKey: null });
    expect(counted.headers.get('x-ratelimit-remaining')).toBe('59');

    proxy.mode = 'hang';
    let apiAnswered = false;
    const waiting = api.request('/v1/pets').then((res) => {
      apiAnswered = true;
      return res;
    });
    for (const path of ['/healthz', '/readyz']) {
      const probe = await timed(() => api.request(path, { apiKey: null }));
      expect(probe.result.status, path).toBe(200);
      expect(probe.result.headers.get('x-ratelimit-remaining'), path).toBe('59');
      // Answered while Redis still holds the API request (its deadline is 5 s away), and well
      // before the deadline: a probe that waited on Redis would take the deadline.
      expect(apiAnswered, path).toBe(false);
      expect(probe.ms, path).toBeLessThan(2_500);
    }
    expect((await waiting).status).toBe(200);
    proxy.mode = 'pass';
  });
});
