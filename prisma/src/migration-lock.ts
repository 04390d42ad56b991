import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'libsql';

/**
 * How long a migration waits for another process's to end before it fails: long, for a migration
 * may rightly take minutes, and a holder that dies lets go at once.
 */
const WAIT_LIMIT_MS = 5 * 60_000;
/** How often a waiting migration tries the lock again. */
const RETRY_MS = 50;

/**
 * Runs `migrate` while no other process migrates the SQLite database at `databaseFile`.
 *
 * The schema engine reads the migration history before it takes SQLite's lock, so two
 * processes migrating one file at once (server instances starting together on a new file, or
 * `pnpm keys` beside a starting server) both applied the first migration: the second failed, and
 * left a failed migration in the history that refused every later start. The lock is an
 * exclusive transaction on a file of its own beside the database (`<file>-migration-lock`), held
 * through SQLite's own file locks: the operating system releases it when its process ends, however
 * it ends, so a crashed migration never leaves a stale lock. Tried without waiting and again
 * later, so that a caller in this process never blocks the event loop a holder here needs.
 */
export async function whileMigrationLocked<T>(
  databaseFile: string,
  migrate: () => Promise<T>,
): Promise<T> {
  mkdirSync(dirname(databaseFile), { recursive: true });
  const lock = new Database(`${databaseFile}-migration-lock`, { timeout: 0 });
  try {
    await takeExclusively(lock, databaseFile);
    try {
      return await migrate();
    } finally {
      lock.exec('ROLLBACK');
    }
  } finally {
    lock.close();
  }
}

async function takeExclusively(lock: Database.Database, databaseFile: string): Promise<void> {
  const giveUpAt = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    try {
      lock.exec('BEGIN EXCLUSIVE');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    }
    if (Date.now() > giveUpAt) {
      throw new Error(
        `Waited ${WAIT_LIMIT_MS / 1000} s for another process to finish migrating ${databaseFile}, and gave up.`,
      );
    }
    await sleep(RETRY_MS);
  }
}
