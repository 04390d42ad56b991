import { statSync } from 'node:fs';
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { databaseFileGoneError } from './sqlite-errors.js';

/** The database file's identity: which file the path names now, or undefined when none. */
function fileAt(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats && `${stats.dev}:${stats.ino}`;
}

/**
 * `fileAt(path)`, looked up once per turn of the event loop: the first query of a turn asks the
 * file system, and the rest of that turn's queries take its answer: a `stat` is a system call,
 * and once per query it was one of the five a list request made.
 * A file deleted or replaced during a turn is seen from the next turn on, as it would be by a
 * query that had started a moment before the change.
 */
function fileAtEachTurn(path: string): () => string | undefined {
  let file: string | undefined;
  let known = false;
  const forget = () => {
    known = false;
  };
  return () => {
    if (!known) {
      file = fileAt(path);
      known = true;
      setImmediate(forget);
    }
    return file;
  };
}

const CHECKPOINT_AND_EMPTY_WAL = { sql: 'PRAGMA wal_checkpoint(TRUNCATE)', args: [], argTypes: [] };

/**
 * A connection that follows the file at `path` rather than the file it first opened. An open
 * file that is deleted keeps serving its unnamed inode, where every write is lost on the next
 * start; a file replaced by another (a backup moved into place) would be ignored. So before each
 * query and transaction: while no file is at `path`, the query fails as SQLite fails to open a
 * database; once another file is there, the connection to the old one is closed and one to the
 * new one opened. A backup to move into place is one file (`VACUUM INTO`, `.backup`): the old
 * connection's WAL files go with it. The path is looked at once per turn (see fileAtEachTurn).
 */
export async function fileFollowingConnection(
  path: string,
  open: () => Promise<SqlDriverAdapter>,
): Promise<SqlDriverAdapter> {
  /** Undefined while a file is being (re)opened, or failed to. */
  let connection: SqlDriverAdapter | undefined = await open();
  const { provider, adapterName } = connection;
  const fileNow = fileAtEachTurn(path);
  let openedFile = fileNow();
  let switching: Promise<SqlDriverAdapter> | undefined;

  const switchTo = async (file: string) => {
    // The `-wal` and `-shm` files beside the path still belong to the old file, and the new
    // connection would read the old file's pages from them. So the old connection first moves
    // every page of its WAL into the old file and empties the WAL: libsql closes a connection
    // only once the garbage collector has its statements, too late to leave that to the close.
    const replaced = connection;
    connection = undefined;
    await replaced?.queryRaw(CHECKPOINT_AND_EMPTY_WAL).catch(() => {
      // The old file went bad (corrupt, unreadable): its pages are lost either way.
    });
    await replaced?.dispose();
    const opened = await open();
    connection = opened;
    openedFile = file;
    return opened;
  };

  const current = async (): Promise<SqlDriverAdapter> => {
    if (switching) return switching;
    const file = fileNow();
    if (file === undefined) throw databaseFileGoneError(path);
    if (connection && file === openedFile) return connection;
    switching = switchTo(file).finally(() => {
      switching = undefined;
    });
    return switching;
  };

  return {
    provider,
    adapterName,
    queryRaw: async (query) => (await current()).queryRaw(query),
    executeRaw: async (query) => (await current()).executeRaw(query),
    executeScript: async (script) => (await current()).executeScript(script),
    startTransaction: async (isolationLevel) => (await current()).startTransaction(isolationLevel),
    dispose: async () => {
      await connection?.dispose();
    },
  };
}
