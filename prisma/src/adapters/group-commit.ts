import type Database from 'libsql';
import type { ConnectionLock } from './in-place-transactions.js';
import { fromSqliteError } from './sqlite-errors.js';

interface PendingWrite {
  /** The statement, throwing a DriverAdapterError when it fails. */
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { failed: false; value: unknown } | { failed: true; error: unknown };

export interface GroupCommit {
  /** Runs `run` in the next group commit; resolves once it is durable. */
  write<T>(run: () => T): Promise<T>;
}

/**
 * Group commit. With `synchronous = FULL` every commit waits for the disk, and on this
 * synchronous driver the whole server waits with it. So writes outside transactions that arrive
 * in the same turn of the event loop are committed together, in one transaction and one wait
 * for the disk; each is answered only once that commit is durable, as it would be alone.
 *
 * A write that fails on its own (a constraint) fails alone, as SQLite undoes only that
 * statement. A failure that ends the transaction (a full disk, an I/O error) or a failed commit
 * fails every write of the group: none of them was acknowledged, and none is stored.
 *
 * `lock` is held by explicit transactions: a group commits after them, never inside one.
 */
export function createGroupCommit(database: Database.Database, lock: ConnectionLock): GroupCommit {
  let group: PendingWrite[] = [];

  const rejectAll = (writes: readonly PendingWrite[], error: unknown) => {
    for (const write of writes) write.reject(error);
  };

  const rollBackIfOpen = () => {
    if (!database.inTransaction) return;
    try {
      database.exec('ROLLBACK');
    } catch {
      // Rolled back already.
    }
  };

  const commitTogether = (writes: readonly PendingWrite[]) => {
    try {
      database.exec('BEGIN IMMEDIATE');
    } catch (error) {
      rejectAll(writes, fromSqliteError(error));
      return;
    }
    const outcomes: Outcome[] = [];
    for (const write of writes) {
      try {
        outcomes.push({ failed: false, value: write.run() });
      } catch (error) {
        if (!database.inTransaction) {
          // SQLite rolled the whole transaction back: the writes before this one are gone too.
          rejectAll(writes, error);
          return;
        }
        outcomes.push({ failed: true, error });
      }
    }
    try {
      database.exec('COMMIT');
    } catch (error) {
      rollBackIfOpen();
      rejectAll(writes, fromSqliteError(error));
      return;
    }
    writes.forEach((write, index) => {
      const outcome = outcomes[index] as Outcome;
      if (outcome.failed) write.reject(outcome.error);
      else write.resolve(outcome.value);
    });
  };

  const runAlone = (write: PendingWrite) => {
    try {
      write.resolve(write.run());
    } catch (error) {
      write.reject(error);
    }
  };

  const commitGroup = async () => {
    const release = await lock.acquire();
    const writes = group;
    group = [];
    try {
      // One write alone commits as it is; so do writes inside a transaction opened by SQL text.
      if (writes.length > 1 && !database.inTransaction) commitTogether(writes);
      else for (const write of writes) runAlone(write);
    } finally {
      release();
    }
  };

  return {
    write<T>(run: () => T) {
      return new Promise<T>((resolve, reject) => {
        group.push({ run, resolve: resolve as (value: unknown) => void, reject });
        // Every write arriving before the event loop's check phase joins this group.
        if (group.length === 1) setImmediate(commitGroup);
      });
    },
  };
}
