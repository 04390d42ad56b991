import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Prisma } from '../generated/sqlite/client.js';
import { createPrismaClient, type DatabaseClient } from './client.js';
import { isDatabaseFault } from './database-faults.js';
import { migrateDatabase } from './migrate.js';
import { isRecordNotFound } from './record-not-found.js';
import {
  expectClassified,
  failureOf,
  MISSING_PET_ID,
  OPERATIONS_ON_MISSING_RECORDS,
  OTHER_FAILURES,
} from './test-fixtures/missing-records.js';

let folder: string;
let db: DatabaseClient;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'db-record-not-found-'));
  const databaseUrl = `file:${join(folder, 'test.db')}`;
  await migrateDatabase(databaseUrl);
  db = createPrismaClient(databaseUrl);
});

afterEach(async () => {
  await db.$disconnect();
  await rm(folder, { recursive: true, force: true });
});

describe('isRecordNotFound on SQLite', () => {
  it.each(OPERATIONS_ON_MISSING_RECORDS)(
    'recognises $operation (P2025), which is no fault',
    async ({ run }) => {
      const error = await failureOf(run(db));

      expect(error).toMatchObject({ code: 'P2025' });
      const notFound = { recordNotFound: true, fault: false, uniqueViolation: false };
      expectClassified(error, notFound);
      expectClassified(new Error('loading the pet failed', { cause: error }), notFound);
    },
  );

  it.each(OTHER_FAILURES)(
    'does not recognise $failure',
    async ({ run, fault, uniqueViolation }) => {
      const error = await failureOf(run(db));

      expectClassified(error, { recordNotFound: false, fault, uniqueViolation });
    },
  );

  it('does not recognise an update of a missing pet once the database file is gone (a fault)', async () => {
    await db.pet.count();
    await rm(folder, { recursive: true, force: true });
    // The adapter looks at the file's path once per turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));

    const error = await failureOf(
      db.pet.update({ where: { id: MISSING_PET_ID }, data: { name: 'Rex' } }),
    );

    expect(isDatabaseFault(error)).toBe(true);
    expect(isRecordNotFound(error)).toBe(false);
  });
});

/** An error as Prisma's query interpreter builds it for `code`. */
function prismaError(code: string, message: string): Prisma.PrismaClientKnownRequestError {
  return new Prisma.PrismaClientKnownRequestError(message, { code, clientVersion: '7' });
}

describe('isRecordNotFound, by the codes our schema cannot provoke', () => {
  // The schema has no relations. These codes and messages are Prisma 7's for nested writes
  // through a relation, on SQLite and PostgreSQL alike, and the earlier engine's (P2001, P2015).
  it.each([
    [
      'P2018',
      'a to-many connect naming a missing record',
      'The required connected records were not found. Expected 1 records to be connected after connect operation on one-to-many relation, found 0.',
    ],
    [
      'P2017',
      'a nested delete of a related record that is not there',
      'The records for relation `OwnerToPet` between the `Owner` and `Pet` models are not connected.',
    ],
    [
      'P2001',
      'the earlier engine’s missing record',
      'The record searched for in the where condition (`Pet.id = 7`) does not exist',
    ],
    [
      'P2015',
      'the earlier engine’s missing related record',
      'A related record could not be found.',
    ],
  ])('recognises %s (%s)', (code, _meaning, message) => {
    const error = prismaError(code, message);
    expect(isRecordNotFound(error)).toBe(true);
    expect(isDatabaseFault(error)).toBe(false);
  });

  it.each([
    [
      'P2003',
      'a foreign key violated',
      'Foreign key constraint violated on the constraint: `Pet_ownerId_fkey`',
    ],
    [
      'P2022',
      'a column that does not exist',
      'The column `pets.nickname` does not exist in the current database.',
    ],
  ])('does not recognise %s (%s)', (code, _meaning, message) => {
    expect(isRecordNotFound(prismaError(code, message))).toBe(false);
  });

  it('does not recognise a plain error saying so, a bug, or what is not an error', () => {
    expect(isRecordNotFound(new Error('Record not found'))).toBe(false);
    expect(isRecordNotFound(new TypeError('Cannot read properties of undefined'))).toBe(false);
    for (const notAnError of [undefined, null, 'P2025', 404]) {
      expect(isRecordNotFound(notAnError)).toBe(false);
    }
  });
});
