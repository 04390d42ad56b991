/**
 * PostgreSQL behind a proxy that can hang (accept, never answer) or refuse: while it does, the
 * API answers 503 `service_unavailable` within 5 s, `/readyz` 503, `/healthz` 200 within 1 s;
 * no caller is charged for the outage; once the database answers, the server serves again
 * within 10 s without a restart, and nothing acknowledged is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PORTS, POSTGRES_SERVER_URL } from '../../testing/test-services.js';
import { type ProxyMode, TcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

async function timed(request: () => Promise<TestResponse>) {
  const started = performance.now();
  const res = await request();
  return { res, ms: performance.now() - started };
}

async function expectUnavailable(res: TestResponse) {
  expect(res.status).toBe(503);
  const body = await res.json();
  expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
  expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|Prisma|pg|timeout/i);
}

describe.each<ProxyMode>(['hang', 'refuse'])('PostgreSQL that does not answer (%s)', (fault) => {
  let proxy: TcpFaultProxy;
  let api: TestServer;

  beforeAll(async () => {
    proxy = await TcpFaultProxy.start(POSTGRES_SERVER_URL, DEFAULT_PORTS.postgresql);
    api = await startTestServer({ databaseUrlFor: (url) => proxy.through(url) });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  it('answers 503 within 5 s (readiness too) and /healthz 200 within 1 s; then serves again within 10 s, losing nothing', async () => {
    const created = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Before', categoryId: 1 },
    });
    expect(created.status).toBe(201);
    const pet = await created.json();

    proxy.mode = fault;
    const health = await timed(() => api.request('/healthz'));
    expect(health.res.status).toBe(200);
    expect(health.ms).toBeLessThan(1_000);

    const during = await Promise.all([
      timed(() => api.request('/readyz', { apiKey: null })),
      timed(() => api.request('/v1/pets')),
      timed(() => api.request(`/v1/pets/${pet.id}`)),
      timed(() =>
        api.request('/v1/pets', { method: 'POST', json: { name: 'During', categoryId: 1 } }),
      ),
      timed(() =>
        api.request('/v1/pets', {
          method: 'POST',
          headers: { 'idempotency-key': 'during-the-outage' },
          json: { name: 'During, once', categoryId: 1 },
        }),
      ),
    ]);
    for (const { res, ms } of during) {
      await expectUnavailable(res);
      expect(ms).toBeLessThan(5_000);
    }

    proxy.mode = 'pass';
    const started = performance.now();
    let status = 0;
    while (status !== 200 && performance.now() - started < 10_000) {
      status = (await api.request('/v1/pets')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect((await api.request('/readyz', { apiKey: null })).status).toBe(200);
    const listed = (await (await api.request('/v1/pets?limit=100')).json()) as Array<{
      id: number;
    }>;
    // Nothing acknowledged was lost; nothing refused was stored.
    expect(listed.map((entry) => entry.id)).toEqual([pet.id]);
  });

  it('charges no caller for the outage: a keyed burst gets 503s, never 429, and the key and its IP are served afterwards', async () => {
    const key = await api.createKey({ label: 'pro', plan: 'pro' });
    // Never used before the outage, so not cached: the key itself cannot be checked.
    proxy.mode = fault;
    const statuses: number[] = [];
    for (let batch = 0; batch < 7; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => api.request('/v1/pets', { apiKey: key })),
      );
      statuses.push(...answers.map((res) => res.status));
    }
    expect(new Set(statuses)).toEqual(new Set([503]));

    proxy.mode = 'pass';
    const started = performance.now();
    let res = await api.request('/v1/pets', { apiKey: key });
    while (res.status === 503 && performance.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await api.request('/v1/pets', { apiKey: key });
    }
    expect(res.status).toBe(200);
    // Nothing of the outage was counted against the key, nor against its IP.
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(300 - 5);
    const anonymous = await api.request('/v1/pets', { apiKey: null });
    expect(anonymous.status).toBe(401);
  });
});
