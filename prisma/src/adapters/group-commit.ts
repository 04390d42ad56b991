import type { IsolationLevel, SqlQueryable, Transaction } from '@prisma/driver-adapter-utils';
import type Database from 'libsql';
import {
  type ConnectionLock,
  createConnectionLock,
  refuseOtherIsolationLevels,
} from './in-place-transactions.js';
import { fromSqliteError } from './sqlite-errors.js';

interface PendingWrite {
  /** The statement, throwing a DriverAdapterError when it fails. */
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { failed: false; value: unknown } | { failed: true; error: unknown };

/** A transaction that released its savepoint, waiting for its group's commit to be durable. */
interface WaitingForCommit {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The group's transaction while it is open. It holds the connection (`lock`): every statement
 * outside it waits for its commit, so nothing reads what is not yet durable.
 */
interface OpenGroup {
  releaseConnection: () => void;
  /** The joined transactions take the group one at a time, each as a savepoint. */
  turn: ConnectionLock;
  committed: WaitingForCommit[];
  /** What rolled the group's whole transaction back, once SQLite did. */
  lost?: unknown;
  /** Resolves once the group has committed or been given up, and the connection is free. */
  closed: Promise<void>;
  markClosed: () => void;
}

export interface GroupCommit {
  /** Runs `run` in the next group commit; resolves once it is durable. */
  write<T>(run: () => T): Promise<T>;
  /**
   * A transaction that joins the next group commit as a savepoint of its transaction. Its
   * statements run on `connection` as they come; its commit resolves once the group's is durable.
   */
  startTransaction(connection: SqlQueryable, isolationLevel?: IsolationLevel): Promise<Transaction>;
  /** Resolves once every group commit scheduled so far has ended: then the connection may close. */
  idle(): Promise<void>;
}

/** The savepoint each joined transaction is (Prisma's own, nested, take other names). */
const JOINED = 'group_member';

/** What the members of a group hear when SQLite rolled its transaction back unseen. */
const lostGroup = () => new Error('SQLite rolled back the transaction of a group commit.');

/**
 * Group commit. With `synchronous = FULL` every commit waits for the disk, and on this
 * synchronous driver the whole server waits with it. So the writes and transactions of one turn
 * of the event loop are committed together, in one transaction and one wait for the disk; each is
 * answered only once that commit is durable, as it would be alone.
 *
 * - Writes outside transactions that arrive in the same turn run together at the turn's end.
 * - A transaction opens the group's transaction (`BEGIN IMMEDIATE`), or joins the one open, as a
 *   savepoint: transactions of one group run one after another, each seeing the ones before it,
 *   which commit with it. The group commits at the turn's end, once the transaction running then
 *   has ended; until then every statement outside the group waits, as it waits for a transaction.
 * - A write or transaction that fails on its own (a constraint, a rollback) fails alone, as SQLite
 *   undoes only that statement or savepoint. A failure that ends the group's transaction (a full
 *   disk, an I/O error) or a failed commit fails every member of the group: none of them was
 *   acknowledged, and none is stored.
 *
 * `lock` is the connection's: the group holds it while open, and commits outside it otherwise.
 */
export function createGroupCommit(database: Database.Database, lock: ConnectionLock): GroupCommit {
  let writes: PendingWrite[] = [];
  let commitScheduled = false;
  let lastCommit = Promise.resolve();
  let open: OpenGroup | undefined;
  let opening: Promise<OpenGroup> | undefined;

  const rejectAll = (
    members: ReadonlyArray<{ reject: (error: unknown) => void }>,
    error: unknown,
  ) => {
    for (const member of members) member.reject(error);
  };

  const rollBackIfOpen = () => {
    if (!database.inTransaction) return;
    try {
      database.exec('ROLLBACK');
    } catch {
      // Rolled back already.
    }
  };

  /**
   * Runs `pending` in the transaction open on the connection, each failing on its own; or,
   * once one ends the transaction, the error that did.
   */
  const runEach = (pending: readonly PendingWrite[]): Outcome[] | { lost: unknown } => {
    const outcomes: Outcome[] = [];
    for (const write of pending) {
      try {
        outcomes.push({ failed: false, value: write.run() });
      } catch (error) {
        // SQLite rolled the whole transaction back: the writes before this one are gone too.
        if (!database.inTransaction) return { lost: error };
        outcomes.push({ failed: true, error });
      }
    }
    return outcomes;
  };

  /** Commits the transaction open on the connection, and answers `pending` and `committed`. */
  const commitAndAnswer = (
    pending: readonly PendingWrite[],
    committed: readonly WaitingForCommit[],
  ) => {
    const outcomes = runEach(pending);
    if ('lost' in outcomes) {
      rejectAll([...pending, ...committed], outcomes.lost);
      return;
    }
    try {
      database.exec('COMMIT');
    } catch (error) {
      rollBackIfOpen();
      rejectAll([...pending, ...committed], fromSqliteError(error));
      return;
    }
    for (const member of committed) member.resolve();
    pending.forEach((write, index) => {
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

  /** Ends `group`: its members are answered by now, and the connection is free again. */
  const close = (group: OpenGroup) => {
    if (open === group) open = undefined;
    group.releaseConnection();
    group.markClosed();
  };

  /** Commits the group open, with the writes waiting, once no transaction of it is running. */
  const commitOpenGroup = async (group: OpenGroup) => {
    const releaseTurn = await group.turn.acquire();
    try {
      const pending = writes;
      writes = [];
      if (group.lost !== undefined || !database.inTransaction) {
        rejectAll(group.committed, group.lost ?? lostGroup());
        // The writes were no part of what was lost: they commit in a group of their own.
        writes = [...pending, ...writes];
        if (writes.length > 0) scheduleCommit();
      } else {
        commitAndAnswer(pending, group.committed);
      }
    } finally {
      close(group);
      releaseTurn();
    }
  };

  const commitWrites = async () => {
    const releaseConnection = await lock.acquire();
    const pending = writes;
    writes = [];
    try {
      // One write alone commits as it is; so do writes inside a transaction opened by SQL text.
      if (pending.length <= 1 || database.inTransaction) {
        for (const write of pending) runAlone(write);
        return;
      }
      try {
        database.exec('BEGIN IMMEDIATE');
      } catch (error) {
        rejectAll(pending, fromSqliteError(error));
        return;
      }
      commitAndAnswer(pending, []);
    } finally {
      releaseConnection();
    }
  };

  // Every write and transaction arriving before the event loop's check phase joins this group.
  function scheduleCommit() {
    if (commitScheduled) return;
    commitScheduled = true;
    lastCommit = new Promise((resolve) => {
      setImmediate(() => {
        commitScheduled = false;
        (open ? commitOpenGroup(open) : commitWrites()).then(resolve);
      });
    });
  }

  const openGroup = async (): Promise<OpenGroup> => {
    const releaseConnection = await lock.acquire();
    try {
      database.exec('BEGIN IMMEDIATE');
    } catch (error) {
      releaseConnection();
      throw fromSqliteError(error);
    }
    let markClosed = () => {};
    const closed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    open = { releaseConnection, turn: createConnectionLock(), committed: [], closed, markClosed };
    scheduleCommit();
    return open;
  };

  /** The group open, or the one being opened: transactions starting together share an opening. */
  const groupToJoin = (): Promise<OpenGroup> => {
    if (open) return Promise.resolve(open);
    if (!opening) {
      opening = openGroup().finally(() => {
        opening = undefined;
      });
    }
    return opening;
  };

  /** Keeps `error` as what lost `group`, where it made SQLite roll the group's transaction back. */
  const noteIfLost = (group: OpenGroup, error: unknown) => {
    if (!database.inTransaction && group.lost === undefined) group.lost = error;
  };

  const joinedTransaction = (
    connection: SqlQueryable,
    group: OpenGroup,
    releaseTurn: () => void,
  ): Transaction => {
    let ended = false;
    const run = async (sql: string): Promise<void> => {
      try {
        database.exec(sql);
      } catch (error) {
        const failure = fromSqliteError(error);
        noteIfLost(group, failure);
        throw failure;
      }
    };
    /** Undoes the transaction's savepoint; nothing is left to undo where SQLite rolled back. */
    const undo = async () => {
      await run(`ROLLBACK TO ${JOINED}`).catch(() => {});
      await run(`RELEASE ${JOINED}`).catch(() => {});
    };
    const watched = async <Result>(sent: Promise<Result>) => {
      try {
        return await sent;
      } catch (error) {
        noteIfLost(group, error);
        throw error;
      }
    };
    const end = async (ending: () => Promise<void>) => {
      if (ended) return;
      ended = true;
      try {
        await ending();
      } finally {
        releaseTurn();
      }
    };
    return {
      provider: connection.provider,
      adapterName: connection.adapterName,
      // Prisma leaves COMMIT and ROLLBACK to commit() and rollback().
      options: { usePhantomQuery: true },
      queryRaw: (query) => watched(connection.queryRaw(query)),
      executeRaw: (query) => watched(connection.executeRaw(query)),
      commit: async () => {
        let durable: Promise<void> | undefined;
        await end(async () => {
          try {
            await run(`RELEASE ${JOINED}`);
          } catch (error) {
            await undo();
            throw group.lost ?? error;
          }
          durable = new Promise<void>((resolve, reject) => {
            group.committed.push({ resolve, reject });
          });
        });
        await durable;
      },
      rollback: () => end(undo),
      createSavepoint: (name) => run(`SAVEPOINT ${name}`),
      rollbackToSavepoint: (name) => run(`ROLLBACK TO ${name}`),
      releaseSavepoint: (name) => run(`RELEASE SAVEPOINT ${name}`),
    };
  };

  return {
    async idle() {
      let seen: Promise<void>;
      do {
        seen = lastCommit;
        await seen;
      } while (seen !== lastCommit);
    },

    write<T>(run: () => T) {
      return new Promise<T>((resolve, reject) => {
        writes.push({ run, resolve: resolve as (value: unknown) => void, reject });
        scheduleCommit();
      });
    },

    async startTransaction(connection, isolationLevel) {
      refuseOtherIsolationLevels(isolationLevel);
      for (;;) {
        const group = await groupToJoin();
        const releaseTurn = await group.turn.acquire();
        if (open !== group) {
          // The group committed while this waited: join the next one.
          releaseTurn();
          continue;
        }
        if (group.lost !== undefined || !database.inTransaction) {
          // SQLite rolled the group back: join the next one, once this one is given up.
          releaseTurn();
          await group.closed;
          continue;
        }
        try {
          database.exec(`SAVEPOINT ${JOINED}`);
        } catch (error) {
          releaseTurn();
          throw fromSqliteError(error);
        }
        return joinedTransaction(connection, group, releaseTurn);
      }
    },
  };
}
