/**
 * SQLite's wait for another writer's lock is bounded like every other database call: while
 * another process holds the database's write lock, a create answers 503 within seconds instead
 * of waiting on, reads still work, and once the lock is released creates succeed again.
 */
import { createPrismaClient, type DatabaseClient } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('SQLite locked by another writer', () => {
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

  it('answers a create 503 within the busy timeout while the lock is held, and creates again once it is released', async () => {
    expect((await api.request('/v1/pets')).status).toBe(200);
    await other.$executeRawUnsafe('BEGIN IMMEDIATE');
    try {
      const started = performance.now();
      const res = await api.request('/v1/pets', {
        method: 'POST',
        json: { name: 'Blocked', categoryId: 1 },
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(performance.now() - started).toBeLessThan(5_000);
      // Readers are not blocked by a writer in WAL mode.
      expect((await api.request('/v1/pets')).status).toBe(200);
    } finally {
      await other.$executeRawUnsafe('COMMIT');
    }
    const created = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'After', categoryId: 1 },
    });
    expect(created.status).toBe(201);
  });
});
