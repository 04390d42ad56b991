/**
 * The migration that leaves a key's own numbers to enterprise keys (plan_limits_from_table), on
 * both databases: of the keys it finds, made when every key carried its plan's numbers, only the
 * enterprise keys keep theirs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createDatabase,
  dropDatabase,
  query,
  uniqueDatabaseName,
} from './test-fixtures/postgres.js';

const MIGRATION = 'plan_limits_from_table';

/** A provider's migration scripts, in order: those before MIGRATION, and MIGRATION itself. */
function scripts(provider: 'sqlite' | 'postgresql') {
  const folder = fileURLToPath(new URL(`../${provider}/migrations`, import.meta.url));
  const names = readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const at = names.findIndex((name) => name.endsWith(`_${MIGRATION}`));
  expect(at, `no ${provider} migration ${MIGRATION}`).toBeGreaterThan(0);
  const read = (name: string) => readFileSync(join(folder, name, 'migration.sql'), 'utf8');
  return { before: names.slice(0, at).map(read), migration: read(names[at] as string) };
}

/** Keys as the release before made them: every one with its plan's numbers, or its own. */
const EARLIER_KEYS = `
INSERT INTO api_keys (id, label, plan, per_minute, per_day, secret_hash) VALUES
  ('key_free', 'free', 'free', 60, 1000, 'hash-free'),
  ('key_pro', 'pro', 'pro', 300, 10000, 'hash-pro'),
  ('key_business', 'business', 'business', 1000, 100000, 'hash-business'),
  ('key_enterprise', 'enterprise', 'enterprise', 9007199254740991, 5000, 'hash-enterprise')`;

const LIMITS = 'SELECT id, per_minute, per_day FROM api_keys ORDER BY id';

const AFTER_MIGRATION = [
  { id: 'key_business', per_minute: null, per_day: null },
  { id: 'key_enterprise', per_minute: '9007199254740991', per_day: '5000' },
  { id: 'key_free', per_minute: null, per_day: null },
  { id: 'key_pro', per_minute: null, per_day: null },
];

/** The rows as text, so that both drivers' integers compare alike. */
const asText = (rows: Array<Record<string, unknown>>) =>
  rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([column, value]) => [column, value === null ? null : String(value)]),
    ),
  );

describe(`The migration ${MIGRATION} on SQLite`, () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'db-key-limits-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('sets the numbers of keys on a table plan to NULL and keeps those of enterprise keys', async () => {
    const { before, migration } = scripts('sqlite');
    const db = createClient({ url: `file:${join(folder, 'keys.db')}` });
    try {
      for (const script of before) await db.executeMultiple(script);
      await db.execute(EARLIER_KEYS);
      await db.executeMultiple(migration);

      expect(asText((await db.execute(LIMITS)).rows)).toEqual(AFTER_MIGRATION);
    } finally {
      db.close();
    }
  });
});

describe(`The migration ${MIGRATION} on PostgreSQL`, () => {
  let database: string;
  beforeEach(async () => {
    database = uniqueDatabaseName();
    await createDatabase(database);
  });
  afterEach(async () => {
    await dropDatabase(database);
  });

  it('sets the numbers of keys on a table plan to NULL and keeps those of enterprise keys', async () => {
    const { before, migration } = scripts('postgresql');
    for (const script of before) await query(database, script);
    await query(database, EARLIER_KEYS);
    await query(database, migration);

    expect(asText(await query(database, LIMITS))).toEqual(AFTER_MIGRATION);
  });
});
