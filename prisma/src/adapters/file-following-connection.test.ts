// @module-tag node-runtime: libsql's native addon, loaded by Node
import { renameSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { libsqlAdapterFactory } from './libsql-adapter.js';

let folder: string;
let file: string;
let adapter: SqlDriverAdapter;

const statement = (sql: string) => ({ sql, args: [], argTypes: [] });

/** The label stored in the database file the adapter reads now. */
async function labelRead(): Promise<unknown> {
  const { rows } = await adapter.queryRaw(statement('SELECT label FROM file_label'));
  return rows[0]?.[0];
}

/** A one-file copy of the database with another label, ready to move into place. */
async function relabelledCopy(label: string): Promise<string> {
  const copy = join(folder, `${label}.db`);
  await adapter.executeRaw(statement(`UPDATE file_label SET label = '${label}'`));
  await adapter.executeRaw(statement(`VACUUM INTO '${copy}'`));
  return copy;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'libsql-adapter-'));
  file = join(folder, 'test.db');
  adapter = await libsqlAdapterFactory(file, { busyTimeoutMs: 1_000 }).connect();
  await adapter.executeScript('CREATE TABLE file_label (label TEXT NOT NULL)');
});

afterEach(async () => {
  await adapter.dispose();
  await rm(folder, { recursive: true, force: true });
});

describe('the SQLite adapter on a database file', () => {
  it('follows a file moved into place at its path, from the next query on', async () => {
    await adapter.executeRaw(statement("INSERT INTO file_label VALUES ('first')"));
    const backup = await relabelledCopy('backup');
    await adapter.executeRaw(statement("UPDATE file_label SET label = 'first'"));
    await nextTurn();
    expect(await labelRead()).toBe('first');

    renameSync(backup, file);
    await nextTurn();
    expect(await labelRead()).toBe('backup');
  });

  it('looks at the path once per turn of the event loop: a file moved into place mid-turn serves from the next turn', async () => {
    await adapter.executeRaw(statement("INSERT INTO file_label VALUES ('first')"));
    const backup = await relabelledCopy('backup');
    await adapter.executeRaw(statement("UPDATE file_label SET label = 'first'"));
    await nextTurn();

    const beforeMove = labelRead();
    renameSync(backup, file);
    const sameTurn = labelRead();
    expect(await Promise.all([beforeMove, sameTurn])).toEqual(['first', 'first']);

    await nextTurn();
    expect(await labelRead()).toBe('backup');
  });

  it('fails a query while no file is at the path, as SQLite fails to open one', async () => {
    await adapter.executeRaw(statement("INSERT INTO file_label VALUES ('first')"));
    const backup = await relabelledCopy('kept');
    await rm(file);
    await nextTurn();
    await expect(labelRead()).rejects.toMatchObject({
      cause: { kind: 'sqlite', originalMessage: 'unable to open database file' },
    });

    renameSync(backup, file);
    await nextTurn();
    expect(await labelRead()).toBe('kept');
  });
});
