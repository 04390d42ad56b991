// @module-tag node-runtime: libsql's native addon, loaded by Node
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPrismaClient, type DatabaseClient } from '../client.js';
import { migrateDatabase } from '../migrate.js';

let folder: string;
let db: DatabaseClient;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'db-group-commit-'));
  const databaseUrl = `file:${join(folder, 'test.db')}`;
  await migrateDatabase(databaseUrl);
  db = createPrismaClient(databaseUrl);
});

afterEach(async () => {
  await db.$disconnect();
  await rm(folder, { recursive: true, force: true });
});

const createPet = (name: string) =>
  db.pet.create({ data: { name, categoryId: 1n, status: 'available' }, select: { id: true } });

/** Pages written to the WAL since the last checkpoint; a commit writes every page it changed. */
async function walFrames(): Promise<number> {
  const [result] = await db.$queryRawUnsafe<[{ log: number }]>('PRAGMA wal_checkpoint(PASSIVE)');
  return Number(result.log);
}

describe('SQLite group commit', () => {
  it('commits writes that arrive together in one transaction, one wait for the disk', async () => {
    await walFrames();
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => createPet(`p${i}`)));

    expect(new Set(created.map((pet) => pet.id)).size).toBe(40);
    expect(await db.pet.count()).toBe(40);
    // Forty commits of one row each would write at least forty pages; one commit of forty rows
    // writes the few pages they share.
    expect(await walFrames()).toBeLessThan(10);
  });

  it('fails a write that fails on its own alone, and commits the rest of its group', async () => {
    const first = await createPet('first');
    const claim = { scope: 's', key: 'k', requestHash: 'h', petId: first.id };
    await db.idempotencyRecord.create({ data: claim });

    const outcomes = await Promise.allSettled([
      createPet('a'),
      db.idempotencyRecord.create({ data: claim }),
      createPet('b'),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(outcomes[1]).toMatchObject({ reason: { code: 'P2002' } });
    const names = await db.pet.findMany({ select: { name: true }, orderBy: { id: 'asc' } });
    expect(names.map((pet) => pet.name)).toEqual(['first', 'a', 'b']);
  });

  it('fails every write of a group whose transaction ends, and stores none of them', async () => {
    // A failure that makes SQLite roll the whole transaction back, as a full disk does.
    await db.$executeRawUnsafe(
      `CREATE TEMP TRIGGER refuse BEFORE INSERT ON pets WHEN NEW.name = 'doomed'
       BEGIN SELECT RAISE(ROLLBACK, 'refused'); END`,
    );

    const outcomes = await Promise.allSettled(['a', 'doomed', 'b'].map(createPet));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await db.pet.count()).toBe(0);
    await createPet('after');
    expect(await db.pet.count()).toBe(1);
  });

  it('commits writes that arrive during a transaction after it, never inside it', async () => {
    let finish = () => {};
    const holding = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let insideId = 0;
    const transaction = db.$transaction(async (tx) => {
      insideId = (await tx.pet.create({ data: { name: 'inside', categoryId: 1n, status: 'sold' } }))
        .id;
      await holding;
      throw new Error('rolled back');
    });
    while (insideId === 0) await new Promise((resolve) => setImmediate(resolve));

    let outsideDone = false;
    const outside = createPet('outside').then((pet) => {
      outsideDone = true;
      return pet;
    });
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(outsideDone).toBe(false);

    finish();
    await expect(transaction).rejects.toThrow('rolled back');
    await outside;
    const names = await db.pet.findMany({ select: { name: true } });
    expect(names.map((pet) => pet.name)).toEqual(['outside']);
  });
});
