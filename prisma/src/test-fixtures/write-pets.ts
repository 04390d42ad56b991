/**
 * A second process for the SQLite tests: inserts `count` pets, each in its own read-then-write
 * transaction through the package's SQLite adapter, and prints every id once its commit has
 * been acknowledged. Run through tsx:
 *
 *   node --import tsx write-pets.ts <database url> <count> <name>
 */
import type { ArgType } from '@prisma/driver-adapter-utils';
import { libsqlAdapterFactory } from '../adapters/libsql-adapter.js';
import { sqliteDatabaseFile } from '../adapters/sqlite-database-file.js';

const [url = '', count = '0', name = 'pet'] = process.argv.slice(2);
const file = sqliteDatabaseFile(url) ?? ':memory:';
const connection = await libsqlAdapterFactory(file, { busyTimeoutMs: 10_000 }).connect();
const text: ArgType = { scalarType: 'string', arity: 'scalar' };

for (let i = 0; i < Number(count); i++) {
  const transaction = await connection.startTransaction();
  try {
    // Reading before writing is what makes a deferred transaction fail with SQLITE_BUSY.
    await transaction.queryRaw({ sql: 'SELECT count(*) FROM pets', args: [], argTypes: [] });
    const { rows } = await transaction.queryRaw({
      sql: "INSERT INTO pets (name, category_id, status, created_at) VALUES (?, 1, 'available', ?) RETURNING id",
      args: [`${name}-${i}`, new Date().toISOString()],
      argTypes: [text, text],
    });
    await transaction.commit();
    process.stdout.write(`${rows[0]?.[0]}\n`);
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
}
await connection.dispose();
