import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRoomyKey,
  killLeftoverServers,
  startServerProcess,
} from './support/server-process.js';
import {
  dropScratchDatabases,
  scratchDatabaseUrl,
  TEST_PROVIDER,
} from './support/test-database.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'animal-store-process-'));
});
afterAll(async () => {
  killLeftoverServers();
  await dropScratchDatabases();
  await rm(folder, { recursive: true, force: true });
});

function createPet(baseUrl: string, key: string, name: string) {
  return fetch(`${baseUrl}/v1/pets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
}

describe('Server process', () => {
  it('creates and migrates a fresh database on start', async () => {
    const databaseUrl =
      TEST_PROVIDER === 'sqlite'
        ? `file:${join(folder, 'nested', 'fresh.db')}`
        : await scratchDatabaseUrl();
    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    const key = await createRoomyKey(databaseUrl);
    const res = await fetch(`${server.baseUrl}/v1/pets`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('a pet is durable before the 201 leaves: kill -9 right after loses nothing acknowledged', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const acknowledged: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const server = await startServerProcess({ DATABASE_URL: databaseUrl });
      for (let i = 0; i < 10; i += 1) {
        const res = await createPet(server.baseUrl, key, `Survivor ${round}-${i}`);
        expect(res.status).toBe(201);
        acknowledged.push(((await res.json()) as { id: number }).id);
      }
      server.child.kill('SIGKILL');
      await server.exited;
    }
    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    const res = await fetch(`${server.baseUrl}/v1/pets?limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const pets = (await res.json()) as Array<{ id: number }>;
    expect(pets.map((pet) => pet.id)).toEqual(acknowledged);
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('SIGTERM and SIGINT shut down gracefully: in-flight requests finish, then the process exits 0', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const databaseUrl = await scratchDatabaseUrl();
      const key = await createRoomyKey(databaseUrl);
      const server = await startServerProcess({ DATABASE_URL: databaseUrl });
      const inFlight = Array.from({ length: 20 }, (_, i) =>
        createPet(server.baseUrl, key, `In flight ${i}`).then(
          (res) => res.status,
          () => 'refused',
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      server.child.kill(signal);
      const statuses = await Promise.all(inFlight);
      expect(await server.exited).toBe(0);
      // Every request either completed or was never accepted; none was cut off half-way.
      for (const status of statuses) expect([201, 'refused']).toContain(status);
    }
  });
});
