/**
 * The server started as a process (`node main.js`), and what it does with its database on each:
 * a fresh one created and migrated on start, and nothing acknowledged lost to kill -9, or to
 * SIGTERM under a load. The rest of its life (settings, signals, the drain) is
 * database-independent/process-lifecycle.test.ts's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrismaClient } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropScratchDatabases,
  scratchDatabaseUrl,
  TEST_PROVIDER,
} from '../testing/test-database.js';
import {
  createPet,
  createRoomyKey,
  killLeftoverServers,
  startServerProcess,
} from './support/server-process.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'animal-store-process-'));
});
afterAll(async () => {
  killLeftoverServers();
  await dropScratchDatabases();
  await rm(folder, { recursive: true, force: true });
});

/** What a create load saw: the pets acknowledged with 201, and every other outcome. */
interface CreateLoad {
  acknowledged: Map<number, string>;
  outcomes: Array<number | 'connection failed'>;
}

/**
 * `loops` clients, each creating pets one after another until its connection fails, as a busy
 * caller would. `onAcknowledged` sees the running count of 201s.
 */
function createLoad(
  baseUrl: string,
  key: string,
  loops: number,
  onAcknowledged: (count: number) => void,
): Promise<CreateLoad> {
  const load: CreateLoad = { acknowledged: new Map(), outcomes: [] };
  const loop = async (client: number) => {
    for (let i = 0; ; i += 1) {
      const name = `Load ${client}-${i}`;
      try {
        const res = await createPet(baseUrl, key, name);
        load.outcomes.push(res.status);
        if (res.status !== 201) return;
        load.acknowledged.set(((await res.json()) as { id: number }).id, name);
        onAcknowledged(load.acknowledged.size);
      } catch {
        load.outcomes.push('connection failed');
        return;
      }
    }
  };
  return Promise.all(Array.from({ length: loops }, (_, client) => loop(client))).then(() => load);
}

/** Every pet in the database, by id, read straight from it. */
async function storedPets(databaseUrl: string): Promise<Map<number, string>> {
  const db = createPrismaClient(databaseUrl);
  try {
    const pets = await db.pet.findMany({ select: { id: true, name: true } });
    // Number(): PostgreSQL's client reads Pet ids as bigints (see @animal-store/db).
    return new Map(pets.map((pet) => [Number(pet.id), pet.name]));
  } finally {
    await db.$disconnect();
  }
}

describe('Server process and its database', () => {
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

  it('kill -9 in the middle of a create load loses no pet that got a 201', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    const load = await createLoad(server.baseUrl, key, 16, (count) => {
      if (count === 200) server.child.kill('SIGKILL');
    });
    await server.exited;
    expect(load.acknowledged.size).toBeGreaterThanOrEqual(200);
    expect(load.outcomes).toContain('connection failed');
    const stored = await storedPets(databaseUrl);
    for (const [id, name] of load.acknowledged) expect(stored.get(id)).toBe(name);
  });

  it('SIGTERM under a create load: every accepted request finishes, new connections are refused, nothing acknowledged is lost', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    const load = await createLoad(server.baseUrl, key, 16, (count) => {
      if (count === 200) server.child.kill('SIGTERM');
    });
    expect(await server.exited).toBe(0);
    // Each loop ends on its first refused connection; nothing in between was a 5xx or cut off.
    expect(load.outcomes.filter((outcome) => outcome !== 201)).toEqual(
      Array.from({ length: 16 }, () => 'connection failed'),
    );
    const stored = await storedPets(databaseUrl);
    for (const [id, name] of load.acknowledged) expect(stored.get(id)).toBe(name);
    expect(stored.size).toBe(load.acknowledged.size);
  });
});
