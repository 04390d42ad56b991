/**
 * PostgreSQL's statements are bounded like every other database call: while another session
 * holds a lock the server's statements wait for, requests answer 503 once the statement
 * timeout ends the wait, instead of hanging, and once the lock is released they are served
 * again, with nothing lost.
 */
import type { ErrorBody, Pet } from '@animal-store/contract';
import { createPrismaClient, type DatabaseClient } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('PostgreSQL statement timeout', () => {
  let api: TestServer;
  let other: DatabaseClient;

  beforeAll(async () => {
    api = await startTestServer();
    other = createPrismaClient(api.databaseUrl);
  });
  afterAll(async () => {
    await other.$disconnect();
    await api.close();
  });

  /** Holds an exclusive lock on the pets table in another session until `work` is done. */
  async function whilePetsLocked(work: () => Promise<void>) {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const session = other.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE pets IN ACCESS EXCLUSIVE MODE');
        locked();
        await released;
      },
      { timeout: 60_000 },
    );
    await lockTaken;
    try {
      await work();
    } finally {
      release();
      await session;
    }
  }

  it('answers 503 within seconds while another session locks the table, and serves again once it is released, nothing lost', async () => {
    const before = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Before', categoryId: 1 },
    });
    expect(before.status).toBe(201);
    const acknowledged = [(await before.json()) as Pet];

    await whilePetsLocked(async () => {
      for (const request of [
        () => api.request('/v1/pets'),
        () => api.request(`/v1/pets/${acknowledged[0]?.id}`),
        () => api.request('/v1/pets', { method: 'POST', json: { name: 'Blocked', categoryId: 1 } }),
      ]) {
        const started = performance.now();
        const res = await request();
        expect(res.status).toBe(503);
        const body = (await res.json()) as ErrorBody;
        expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
        expect(body.message).not.toMatch(/statement|timeout|lock|cancel|postgres|prisma/i);
        expect(performance.now() - started).toBeLessThan(5_000);
      }
      expect((await api.request('/healthz', { apiKey: null })).status).toBe(200);
    });

    const after = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'After', categoryId: 1 },
    });
    expect(after.status).toBe(201);
    acknowledged.push((await after.json()) as Pet);
    expect(await (await api.request('/v1/pets')).json()).toEqual(acknowledged);
  });
});
