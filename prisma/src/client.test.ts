// @module-tag node-runtime: libsql's native addon, loaded by Node
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QueryEvent } from './adapters/observed-adapter.js';
import { createPrismaClient, type DatabaseClient, poolStatsOf } from './client.js';
import { migrateDatabase } from './migrate.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const WRITER = fileURLToPath(new URL('./test-fixtures/write-pets.ts', import.meta.url));

let folder: string;
let databaseUrl: string;
let db: DatabaseClient;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'db-client-'));
  databaseUrl = `file:${join(folder, 'test.db')}`;
  await migrateDatabase(databaseUrl);
  db = createPrismaClient(databaseUrl);
});

afterEach(async () => {
  await db.$disconnect();
  await rm(folder, { recursive: true, force: true });
});

/** Runs the writer fixture; `onId` sees each acknowledged id as it is printed. */
function startWriter(count: number, name: string, onId: (id: number) => void = () => {}) {
  const args = ['--import', 'tsx', WRITER, databaseUrl, String(count), name];
  const child = spawn(process.execPath, args, {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> }).on(
    'line',
    (line) => onId(Number(line)),
  );
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => {
    child.on('exit', (code) => resolve({ code, stderr }));
  });
  return { child, exited };
}

describe('createPrismaClient', () => {
  it('tells onQuery of every statement it runs, once: failed ones, transactions’ and group commits’ too', async () => {
    const events: QueryEvent[] = [];
    const observed = createPrismaClient(databaseUrl, { onQuery: (event) => events.push(event) });
    const eventsOf = async (work: () => Promise<unknown>) => {
      events.length = 0;
      await work();
      return events.map((event) => event.failed);
    };
    try {
      expect(await eventsOf(() => observed.pet.findMany({ select: { id: true } }))).toEqual([
        false,
      ]);
      expect(
        await eventsOf(() =>
          observed.$queryRawUnsafe('SELECT * FROM no_such_table').catch(() => {}),
        ),
      ).toEqual([true]);
      // The transaction's BEGIN IMMEDIATE and COMMIT are the adapter's, not the client's.
      expect(
        await eventsOf(() =>
          observed.$transaction(async (tx) => {
            await tx.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(0) } } });
            await tx.serverSecret.create({ data: { name: 'observed', value: 'v' } });
          }),
        ),
      ).toEqual([false, false]);
      // Twenty creates of one turn, committed together: twenty statements.
      const creates = () =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            observed.pet.create({ data: { name: `p${i}`, categoryId: 1n, status: 'available' } }),
          ),
        );
      expect(await eventsOf(creates)).toEqual(Array(20).fill(false));
    } finally {
      await observed.$disconnect();
    }
    for (const event of events) expect(event.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('tells onQuery what each statement said, with placeholders for its values, and why it failed', async () => {
    const events: QueryEvent[] = [];
    const observed = createPrismaClient(databaseUrl, { onQuery: (event) => events.push(event) });
    const sentAt = performance.now();
    try {
      await observed.pet.create({
        data: { name: 'A name never sent as SQL', categoryId: 1n, status: 'available' },
      });
      await observed.$queryRawUnsafe('SELECT * FROM no_such_table').catch(() => {});
    } finally {
      await observed.$disconnect();
    }
    const [insert, failed] = events as [QueryEvent, QueryEvent];
    expect(insert.sql).toMatch(/^INSERT INTO .*pets/);
    expect(insert.sql).not.toContain('A name never sent as SQL');
    expect(insert.startedAt).toBeGreaterThanOrEqual(sentAt);
    expect(insert.error).toBeUndefined();
    expect(failed).toMatchObject({ sql: 'SELECT * FROM no_such_table', failed: true });
    expect(failed.error).toBeInstanceOf(Error);
  });

  it('has no use for continueReplies: SQLite’s replies of one turn resume together already', async () => {
    let continued = 0;
    const client = createPrismaClient(databaseUrl, {
      continueReplies: (reply) => {
        continued += 1;
        return reply;
      },
    });
    try {
      await client.pet.count();
      await client.pet.create({ data: { name: 'Rex', categoryId: 1n, status: 'available' } });
    } finally {
      await client.$disconnect();
    }
    expect(continued).toBe(0);
  });

  it('has no pool to report: SQLite runs in the process', () => {
    expect(poolStatsOf(db)).toBeUndefined();
  });

  it('creates and reads pets, with ids growing in creation order and never reused', async () => {
    const rex = await db.pet.create({
      data: { name: 'Rex', categoryId: 9_007_199_254_740_991n, status: 'available' },
    });
    const tom = await db.pet.create({ data: { name: 'Tom', categoryId: 2n, status: 'sold' } });
    await db.pet.delete({ where: { id: tom.id } });
    const kit = await db.pet.create({ data: { name: 'Kit', categoryId: 3n, status: 'available' } });

    expect(tom.id).toBeGreaterThan(rex.id);
    expect(kit.id).toBeGreaterThan(tom.id);
    expect(await db.pet.findUnique({ where: { id: rex.id } })).toMatchObject({
      name: 'Rex',
      categoryId: 9_007_199_254_740_991n,
      status: 'available',
      createdAt: expect.any(Date),
    });
    const available = await db.pet.findMany({
      where: { status: 'available' },
      orderBy: { id: 'asc' },
    });
    expect(available.map((pet) => pet.name)).toEqual(['Rex', 'Kit']);
  });

  it('keeps idempotency records and server secrets', async () => {
    const pet = await db.pet.create({ data: { name: 'Rex', categoryId: 1n, status: 'available' } });
    const claim = { scope: 'createPet', key: 'k-1', requestHash: 'h', petId: pet.id };
    await db.idempotencyRecord.create({ data: claim });
    await expect(db.idempotencyRecord.create({ data: claim })).rejects.toMatchObject({
      code: 'P2002',
    });
    const upsert = (value: string) =>
      db.serverSecret.upsert({
        where: { name: 'cursor-key' },
        create: { name: 'cursor-key', value },
        update: {},
      });
    await upsert('first');
    expect((await upsert('second')).value).toBe('first');
  });

  it('runs SQLite in WAL mode, syncing every commit, with a busy timeout', async () => {
    expect(await db.$queryRawUnsafe('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await db.$queryRawUnsafe('PRAGMA synchronous')).toEqual([{ synchronous: 2 }]);
    const [busy] = await db.$queryRawUnsafe<[{ timeout: number }]>('PRAGMA busy_timeout');
    expect(busy.timeout).toBeGreaterThan(0);
  });

  it('rolls back a failed transaction and goes on', async () => {
    await expect(
      db.$transaction(async (tx) => {
        await tx.pet.create({ data: { name: 'Ghost', categoryId: 1n, status: 'available' } });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await db.$transaction(async (tx) => {
      await tx.pet.create({ data: { name: 'Rex', categoryId: 1n, status: 'available' } });
    });
    expect((await db.pet.findMany()).map((pet) => pet.name)).toEqual(['Rex']);
  });

  it.runIf(existsSync('/proc/self/fd'))('does not leak a connection per transaction', async () => {
    const openFiles = () => readdirSync('/proc/self/fd').length;
    await db.pet.count();
    const before = openFiles();
    for (let i = 0; i < 200; i++) {
      await db.$transaction(async (tx) => {
        await tx.pet.create({ data: { name: `p${i}`, categoryId: 1n, status: 'available' } });
      });
    }
    expect(openFiles() - before).toBeLessThan(10);
  });

  it('shares the database with another process without SQLITE_BUSY', async () => {
    const writers = [startWriter(100, 'a'), startWriter(100, 'b')];
    for (let i = 0; i < 50; i++) {
      await db.$transaction(async (tx) => {
        await tx.pet.count();
        await tx.pet.create({ data: { name: `c-${i}`, categoryId: 1n, status: 'available' } });
      });
    }
    for (const { exited } of writers) expect(await exited).toEqual({ code: 0, stderr: '' });
    expect(await db.pet.count()).toBe(250);
  });

  it('keeps every acknowledged commit when the writing process is killed', async () => {
    const acknowledged: number[] = [];
    const writer = startWriter(100_000, 'durable', (id) => {
      acknowledged.push(id);
      if (acknowledged.length === 200) writer.child.kill('SIGKILL');
    });
    expect((await writer.exited).code).toBeNull();

    const stored = await db.pet.findMany({
      where: { id: { in: acknowledged } },
      select: { id: true },
    });
    expect(stored).toHaveLength(acknowledged.length);
  });

  it('refuses URLs it has no adapter for', () => {
    expect(() => createPrismaClient('mysql://localhost/pets')).toThrow('Unsupported database URL');
    expect(() => createPrismaClient('pets.db')).toThrow('Unsupported database URL');
  });
});
