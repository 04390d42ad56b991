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

  describe('transactions, which join the group as savepoints', () => {
    /** A pet and its idempotency record written together, as the server's idempotent create. */
    const createPetUnderKey = (key: string) =>
      db.$transaction(async (tx) => {
        const pet = await tx.pet.create({
          data: { name: key, categoryId: 1n, status: 'available' },
          select: { id: true },
        });
        await tx.idempotencyRecord.create({
          data: { scope: 's', key, requestHash: 'h', petId: pet.id },
        });
        return pet;
      });

    it('commits the transactions of one turn together, one wait for the disk', async () => {
      await walFrames();
      const created = await Promise.all(
        Array.from({ length: 40 }, (_, i) => createPetUnderKey(`k${i}`)),
      );

      expect(new Set(created.map((pet) => pet.id)).size).toBe(40);
      expect(await db.idempotencyRecord.count()).toBe(40);
      // Forty commits would write at least eighty pages; one commit writes the few they share.
      expect(await walFrames()).toBeLessThan(15);
    });

    it('undoes a transaction that fails on its own alone, and commits the rest of its group', async () => {
      const outcomes = await Promise.allSettled([
        createPetUnderKey('a'),
        createPetUnderKey('a'),
        createPetUnderKey('b'),
        createPet('plain'),
      ]);

      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      expect(outcomes[1]).toMatchObject({ reason: { code: 'P2002' } });
      // The failed transaction's pet went with its record.
      const names = await db.pet.findMany({ select: { name: true }, orderBy: { id: 'asc' } });
      expect(names.map((pet) => pet.name)).toEqual(['a', 'b', 'plain']);
    });

    it('fails every transaction of a group whose transaction ends, stores none, and commits the plain writes in a group of their own', async () => {
      await db.$executeRawUnsafe(
        `CREATE TEMP TRIGGER refuse BEFORE INSERT ON pets WHEN NEW.name = 'doomed'
         BEGIN SELECT RAISE(ROLLBACK, 'refused'); END`,
      );

      const outcomes = await Promise.allSettled([
        createPetUnderKey('a'),
        createPetUnderKey('doomed'),
        createPetUnderKey('b'),
        createPet('plain'),
      ]);

      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'rejected',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      const names = await db.pet.findMany({ select: { name: true }, orderBy: { id: 'asc' } });
      // 'b' began after the group was lost, in the next one; the plain write was never in it.
      expect(names.map((pet) => pet.name).sort()).toEqual(['b', 'plain']);
      expect(await db.idempotencyRecord.count()).toBe(1);
    });

    it('lets nothing outside read what a transaction wrote before the group commits it', async () => {
      let finish = () => {};
      const holding = new Promise<void>((resolve) => {
        finish = resolve;
      });
      let written = false;
      const transaction = db.$transaction(async (tx) => {
        await tx.pet.create({ data: { name: 'inside', categoryId: 1n, status: 'sold' } });
        written = true;
        await holding;
      });
      while (!written) await new Promise((resolve) => setImmediate(resolve));

      let counted: number | undefined;
      const count = db.pet.count().then((pets) => {
        counted = pets;
      });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(counted).toBeUndefined();

      finish();
      await transaction;
      await count;
      expect(counted).toBe(1);
    });

    it('closes the connection only once the group a transaction left open has committed', async () => {
      // A rolled-back transaction is answered at once, while its group is still open.
      const undone = db.$transaction(async (tx) => {
        await tx.pet.create({ data: { name: 'undone', categoryId: 1n, status: 'sold' } });
        throw new Error('undone');
      });
      await expect(undone).rejects.toThrow('undone');

      // Closed under the open group, the native connection would abort the process.
      await db.$disconnect();
      expect(await db.pet.count()).toBe(0);
    });
  });
});
