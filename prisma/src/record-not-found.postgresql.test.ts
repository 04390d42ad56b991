import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
import { dropDatabase, postgresUrl, uniqueDatabaseName } from './test-fixtures/postgres.js';

let database: string;
let db: DatabaseClient;

beforeEach(async () => {
  database = uniqueDatabaseName();
  await migrateDatabase(postgresUrl(database));
  db = createPrismaClient(postgresUrl(database));
});

afterEach(async () => {
  await db.$disconnect();
  await dropDatabase(database);
});

describe('isRecordNotFound on PostgreSQL', () => {
  it.each(OPERATIONS_ON_MISSING_RECORDS)(
    'recognises $operation (P2025, Prisma’s as on SQLite), which is no fault',
    async ({ run }) => {
      const error = await failureOf(run(db));

      expect(error).toMatchObject({ code: 'P2025' });
      expect(error).not.toHaveProperty('meta.driverAdapterError');
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

  it('does not recognise an update of a missing pet on a server it cannot reach (a fault)', async () => {
    const closedPort = new URL(postgresUrl(database));
    closedPort.port = '1';
    const unreachable = createPrismaClient(closedPort.toString());

    const error = await failureOf(
      unreachable.pet.update({ where: { id: MISSING_PET_ID }, data: { name: 'Rex' } }),
    );
    await unreachable.$disconnect();

    expect(isDatabaseFault(error)).toBe(true);
    expect(isRecordNotFound(error)).toBe(false);
  });
});
