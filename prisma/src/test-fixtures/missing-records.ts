import { expect } from 'vitest';
import type { DatabaseClient } from '../client.js';
import { isDatabaseFault } from '../database-faults.js';
import { isRecordNotFound } from '../record-not-found.js';
import { isUniqueViolation } from '../unique-violation.js';

/** A pet id that a fresh database does not have: its ids start at 1 and the tests create none. */
export const MISSING_PET_ID = 424_242;

/** What `work` fails with. */
export async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

/** Operations, through the server's client, that require a record its database does not have. */
export const OPERATIONS_ON_MISSING_RECORDS = [
  {
    operation: 'an update of a missing pet',
    run: (db: DatabaseClient) =>
      db.pet.update({ where: { id: MISSING_PET_ID }, data: { name: 'Rex' } }),
  },
  {
    operation: 'a delete of a missing pet',
    run: (db: DatabaseClient) => db.pet.delete({ where: { id: MISSING_PET_ID } }),
  },
  {
    operation: 'findUniqueOrThrow of a missing pet',
    run: (db: DatabaseClient) => db.pet.findUniqueOrThrow({ where: { id: MISSING_PET_ID } }),
  },
  {
    operation: 'findFirstOrThrow matching no pet',
    run: (db: DatabaseClient) => db.pet.findFirstOrThrow({ where: { status: 'sold' } }),
  },
  {
    operation: 'an update of a missing server secret (a text key)',
    run: (db: DatabaseClient) =>
      db.serverSecret.update({ where: { name: 'cursor-key' }, data: { value: 'v' } }),
  },
  {
    operation: 'a delete of a missing idempotency record (a composite key)',
    run: (db: DatabaseClient) =>
      db.idempotencyRecord.delete({ where: { scope_key: { scope: 'createPet', key: 'k-1' } } }),
  },
  {
    operation: 'an update of a missing pet in an interactive transaction',
    run: (db: DatabaseClient) =>
      db.$transaction((tx) =>
        tx.pet.update({ where: { id: MISSING_PET_ID }, data: { name: 'Rex' } }),
      ),
  },
];

/**
 * Failures of the same client that are not a missing record; `fault`: isDatabaseFault's answer,
 * `uniqueViolation`: isUniqueViolation's.
 */
export const OTHER_FAILURES = [
  {
    failure: 'a unique violation (P2002)',
    fault: false,
    uniqueViolation: true,
    run: async (db: DatabaseClient) => {
      const secret = { name: 'cursor-key', value: 'v' };
      await db.serverSecret.create({ data: secret });
      return db.serverSecret.create({ data: secret });
    },
  },
  {
    failure: 'an update of a missing pet in a table that is gone (P2021, a fault)',
    fault: true,
    uniqueViolation: false,
    run: async (db: DatabaseClient) => {
      await db.$executeRawUnsafe('DROP TABLE pets');
      return db.pet.update({ where: { id: MISSING_PET_ID }, data: { name: 'Rex' } });
    },
  },
  {
    failure: 'an update of a missing pet naming a field pets do not have (a bug)',
    fault: false,
    uniqueViolation: false,
    run: (db: DatabaseClient) =>
      db.pet.update({ where: { id: MISSING_PET_ID }, data: { nickname: 'Rex' } as never }),
  },
];

/** What every classifier of the package says of an error: a missing record, a fault, a race. */
export function expectClassified(
  error: unknown,
  expected: { recordNotFound: boolean; fault: boolean; uniqueViolation: boolean },
): void {
  expect({
    recordNotFound: isRecordNotFound(error),
    fault: isDatabaseFault(error),
    uniqueViolation: isUniqueViolation(error),
  }).toEqual(expected);
}
