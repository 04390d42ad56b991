import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApplyMigrationsInput, MigrationList } from '@prisma/schema-engine-wasm';
import { openSchemaEngine } from '../schema-engine/wasm-engine.mjs';
import { sqliteDatabaseFile } from './adapters/sqlite-database-file.js';
import { databaseProvider } from './client.js';
import { whileMigrationLocked } from './migration-lock.js';

// Both src/ (tests) and dist/ (the built and deployed package) sit directly in the package root.
const MIGRATIONS_FOLDERS = {
  sqlite: fileURLToPath(new URL('../sqlite/migrations', import.meta.url)),
  postgresql: fileURLToPath(new URL('../postgresql/migrations', import.meta.url)),
};

/** The migrations folder as the Prisma CLI hands it to the schema engine. */
async function readMigrationsList(folder: string): Promise<MigrationList> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
    throw new Error(`The migrations folder ${folder} cannot be read: ${error}`);
  });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const migrationDirectories = await Promise.all(
    names.map(async (name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: await readFile(join(folder, name, 'migration.sql'), 'utf8').then(
          (value) => ({ tag: 'ok' as const, value }),
          (error: Error) => ({ tag: 'error' as const, value: error.message }),
        ),
      },
    })),
  );
  const lockfile = await readFile(join(folder, 'migration_lock.toml'), 'utf8').catch(() => null);
  return {
    baseDir: folder,
    lockfile: { path: 'migration_lock.toml', content: lockfile },
    migrationDirectories,
    shadowDbInitScript: '',
  };
}

/**
 * Applies every committed migration the database at `databaseUrl` lacks, like
 * `prisma migrate deploy`: `postgresql/migrations` for postgres(ql):// URLs, creating the
 * database first if missing; `sqlite/migrations` for file: URLs, creating the SQLite file and
 * its folder first if missing. Running it again applies nothing.
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  const provider = databaseProvider(databaseUrl);
  const input: ApplyMigrationsInput = {
    migrationsList: await readMigrationsList(MIGRATIONS_FOLDERS[provider]),
    filters: { externalTables: [], externalEnums: [] },
  };
  const migrate = async () => {
    const engine = await openSchemaEngine({ url: databaseUrl, createDatabase: true });
    try {
      await engine.call('applyMigrations', input);
    } finally {
      await engine.close();
    }
  };
  // On SQLite, processes migrating one file take turns; PostgreSQL's engine keeps them apart.
  const databaseFile = provider === 'sqlite' ? sqliteDatabaseFile(databaseUrl) : null;
  await (databaseFile === null ? migrate() : whileMigrationLocked(databaseFile, migrate));
}
