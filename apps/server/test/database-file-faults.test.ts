/**
 * SQLite's file going bad under a running server is a fault like a database that is down: API
 * operations answer 503 service_unavailable with nothing internal in the message, /readyz turns
 * 503 while /healthz stays 200, and once the file is whole again the server serves again,
 * without a restart and with every acknowledged pet still there.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

/** The database file and the WAL files beside it, as SQLite keeps them. */
const FILE_SUFFIXES = ['', '-wal', '-shm'];

async function snapshot(file: string): Promise<Map<string, Buffer>> {
  const copies = new Map<string, Buffer>();
  for (const suffix of FILE_SUFFIXES) {
    const content = await readFile(`${file}${suffix}`).catch(() => undefined);
    if (content) copies.set(`${file}${suffix}`, content);
  }
  return copies;
}

/** Overwrites each file in place (same inode, same size) with bytes that are no database. */
async function garble(copies: Map<string, Buffer>): Promise<void> {
  for (const [path, content] of copies) await writeFile(path, Buffer.alloc(content.length, 0x41));
}

async function restore(copies: Map<string, Buffer>): Promise<void> {
  for (const [path, content] of copies) await writeFile(path, content);
}

describe('SQLite file faults', () => {
  let api: TestServer;
  const created: number[] = [];

  beforeAll(async () => {
    api = await startTestServer();
    for (const name of ['Rex', 'Tom', 'Kit']) {
      const res = await api.request('/v1/pets', { method: 'POST', json: { name, categoryId: 1 } });
      expect(res.status).toBe(201);
      created.push((await res.json()).id);
    }
  });
  afterAll(() => api?.close());

  it('answers 503 while the file is corrupt, tells /readyz, and serves again once it is whole, nothing lost', async () => {
    const file = api.databaseUrl.slice('file:'.length);
    const whole = await snapshot(file);
    await garble(whole);
    try {
      const responses = [
        await api.request('/v1/pets'),
        await api.request(`/v1/pets/${created[0]}`),
        await api.request('/v1/pets', { method: 'POST', json: { name: 'Lost', categoryId: 1 } }),
      ];
      for (const res of responses) {
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
        expect(body.message).not.toMatch(/sqlite|database disk|not a database|prisma/i);
      }
      expect((await api.request('/readyz', { apiKey: null })).status).toBe(503);
      expect((await api.request('/healthz', { apiKey: null })).status).toBe(200);
    } finally {
      await restore(whole);
    }

    expect((await api.request('/readyz', { apiKey: null })).status).toBe(200);
    const list = await api.request('/v1/pets');
    expect(list.status).toBe(200);
    expect((await list.json()).map((pet: { id: number }) => pet.id)).toEqual(created);
    const res = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Back', categoryId: 1 },
    });
    expect(res.status).toBe(201);
  });
});
