import type { SqlQuery, SqlQueryable } from '@prisma/driver-adapter-utils';
import { describe, expect, it } from 'vitest';
import { createConnectionLock, startTransactionInPlace } from './in-place-transactions.js';

/** A connection that records the statements it is sent, failing those `failing` names. */
function recordingConnection(failing: ReadonlySet<string> = new Set()) {
  const sent: string[] = [];
  const run = async ({ sql }: SqlQuery) => {
    sent.push(sql);
    if (failing.has(sql)) throw new Error(`${sql} failed`);
    return 0;
  };
  const connection: SqlQueryable = {
    provider: 'sqlite',
    adapterName: 'recording',
    queryRaw: async (query) => {
      await run(query);
      return { columnNames: [], columnTypes: [], rows: [] };
    },
    executeRaw: run,
  };
  return { connection, sent };
}

const statement = (sql: string) => ({ sql, args: [], argTypes: [] });

describe('createConnectionLock', () => {
  it('hands the connection to one holder at a time, first come first served', async () => {
    const lock = createConnectionLock();
    const order: string[] = [];
    const releaseFirst = await lock.acquire();
    expect(lock.held).toBe(true);

    const second = lock.acquire().then((release) => {
      order.push('second');
      release();
    });
    const third = lock.acquire().then((release) => {
      order.push('third');
      release();
    });
    await Promise.resolve();
    expect(order).toEqual([]);

    releaseFirst();
    await Promise.all([second, third]);
    expect(order).toEqual(['second', 'third']);
    expect(lock.held).toBe(false);
  });
});

describe('startTransactionInPlace', () => {
  it('begins with the write lock taken, and ends once, releasing the connection', async () => {
    const { connection, sent } = recordingConnection();
    const lock = createConnectionLock();
    const transaction = await startTransactionInPlace(connection, lock);
    expect(lock.held).toBe(true);
    expect(transaction.options).toEqual({ usePhantomQuery: true });

    await transaction.executeRaw(statement('INSERT INTO pets DEFAULT VALUES'));
    await transaction.createSavepoint?.('before_update');
    await transaction.rollbackToSavepoint?.('before_update');
    await transaction.releaseSavepoint?.('before_update');
    await transaction.commit();
    await transaction.rollback();

    expect(sent).toEqual([
      'BEGIN IMMEDIATE',
      'INSERT INTO pets DEFAULT VALUES',
      'SAVEPOINT before_update',
      'ROLLBACK TO before_update',
      'RELEASE SAVEPOINT before_update',
      'COMMIT',
    ]);
    expect(lock.held).toBe(false);
  });

  it('rolls back a commit that fails, reports the failure and releases the connection', async () => {
    const { connection, sent } = recordingConnection(new Set(['COMMIT']));
    const lock = createConnectionLock();
    const transaction = await startTransactionInPlace(connection, lock);

    await expect(transaction.commit()).rejects.toThrow('COMMIT failed');
    expect(sent).toEqual(['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK']);
    expect(lock.held).toBe(false);
  });

  it('releases the connection when BEGIN fails (the database stayed busy)', async () => {
    const { connection } = recordingConnection(new Set(['BEGIN IMMEDIATE']));
    const lock = createConnectionLock();
    await expect(startTransactionInPlace(connection, lock)).rejects.toThrow(
      'BEGIN IMMEDIATE failed',
    );
    expect(lock.held).toBe(false);
  });

  it('refuses isolation levels other than SQLite’s own, serializable', async () => {
    const { connection, sent } = recordingConnection();
    const lock = createConnectionLock();
    await expect(startTransactionInPlace(connection, lock, 'READ COMMITTED')).rejects.toMatchObject(
      {
        cause: { kind: 'InvalidIsolationLevel', level: 'READ COMMITTED' },
      },
    );
    await (await startTransactionInPlace(connection, lock, 'SERIALIZABLE')).rollback();
    expect(sent).toEqual(['BEGIN IMMEDIATE', 'ROLLBACK']);
  });
});
