// @module-tag node-runtime: libsql's native addon, loaded by Node
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseFault } from '../database-faults.js';
import { databaseFileGoneError, fromSqliteError } from './sqlite-errors.js';

let folder: string;
let fileNumber = 0;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'sqlite-errors-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A fresh database file holding `schema`; closed connections are the test's to close. */
function databaseWith(schema: string, options: { timeout?: number } = {}) {
  const path = join(folder, `${++fileNumber}.db`);
  const database = new Database(path, options);
  database.exec(schema);
  return { path, database };
}

/** What `provoke` throws: libsql's own error for the fault. */
function thrownBy(provoke: () => unknown): unknown {
  try {
    provoke();
  } catch (error) {
    return error;
  }
  throw new Error('the fault did not happen');
}

const PETS = `CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, owner_id INTEGER
  REFERENCES owners (id)); CREATE TABLE owners (id INTEGER PRIMARY KEY);`;

/** `count` rows in table `table`, written in one transaction. */
function fill(database: Database.Database, table: string, count: number) {
  const insert = database.prepare(`INSERT INTO ${table} (id) VALUES (?)`);
  database.exec('BEGIN');
  for (let id = 1; id <= count; id++) insert.run(id);
  database.exec('COMMIT');
}

/** A database file whose pages after the first are overwritten: a malformed image to SQLite. */
async function corruptDatabase(): Promise<Database.Database> {
  const { path, database } = databaseWith(PETS);
  fill(database, 'owners', 2_000);
  database.close();
  const file = await open(path, 'r+');
  const { size } = await file.stat();
  await file.write(Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
  await file.close();
  return new Database(path);
}

interface Fault {
  fault: string;
  provoke: () => unknown | Promise<unknown>;
  kind: string;
  /** For the `sqlite` kind: the extended result code Prisma passes on (P2039, P2010 for raw). */
  extendedCode?: number;
  /** How the server answers it (apps/server/src/http/error-mapper.ts and the stores). */
  serverAnswer: string;
}

const FAULTS: Fault[] = [
  {
    fault: 'a write lock held past the busy timeout (SQLITE_BUSY)',
    provoke: () => {
      const { path, database } = databaseWith(PETS);
      database.exec('BEGIN IMMEDIATE');
      const other = new Database(path, { timeout: 0 });
      return thrownBy(() => other.exec("INSERT INTO pets (name) VALUES ('Rex')"));
    },
    kind: 'SocketTimeout',
    serverAnswer: '503: P1008, the database is busy',
  },
  {
    fault: 'a table locked by a statement of the same connection (SQLITE_LOCKED)',
    provoke: () => {
      const { database } = databaseWith(PETS);
      // Enough rows that libsql reads them as they are iterated, keeping the statement running.
      fill(database, 'owners', 5_000);
      const rows = database.prepare('SELECT id FROM owners').iterate();
      rows.next();
      return thrownBy(() => database.exec('DROP TABLE owners'));
    },
    kind: 'sqlite',
    extendedCode: 6,
    serverAnswer: '500: a bug of ours, no fault of the file',
  },
  {
    fault: 'a duplicate in a unique column (SQLITE_CONSTRAINT_UNIQUE)',
    provoke: () => {
      const { database } = databaseWith(`${PETS} INSERT INTO pets (name) VALUES ('Rex');`);
      return thrownBy(() => database.exec("INSERT INTO pets (name) VALUES ('Rex')"));
    },
    kind: 'UniqueConstraintViolation',
    serverAnswer: '409 where a store expects it (P2002: an idempotency key taken), else 500',
  },
  {
    fault: 'a duplicate primary key (SQLITE_CONSTRAINT_PRIMARYKEY)',
    provoke: () => {
      const { database } = databaseWith(`${PETS} INSERT INTO owners VALUES (1);`);
      return thrownBy(() => database.exec('INSERT INTO owners VALUES (1)'));
    },
    kind: 'UniqueConstraintViolation',
    serverAnswer: '409 where a store expects it (P2002), else 500',
  },
  {
    fault: 'NULL in a NOT NULL column (SQLITE_CONSTRAINT_NOTNULL)',
    provoke: () => {
      const { database } = databaseWith(PETS);
      return thrownBy(() => database.exec('INSERT INTO pets (name) VALUES (NULL)'));
    },
    kind: 'NullConstraintViolation',
    serverAnswer: '500: P2011, a bug of ours',
  },
  {
    fault: 'a reference to a missing row (SQLITE_CONSTRAINT_FOREIGNKEY)',
    provoke: () => {
      const { database } = databaseWith(`PRAGMA foreign_keys = ON; ${PETS}`);
      return thrownBy(() => database.exec("INSERT INTO pets (name, owner_id) VALUES ('Rex', 7)"));
    },
    kind: 'ForeignKeyConstraintViolation',
    serverAnswer: '500: P2003, a bug of ours',
  },
  {
    fault: "a trigger's RAISE(ABORT), as when pet ids pass 2^53 − 1 (SQLITE_CONSTRAINT_TRIGGER)",
    provoke: () => {
      const { database } = databaseWith(`${PETS} CREATE TRIGGER capped AFTER INSERT ON owners
        WHEN NEW.id > 9007199254740991 BEGIN SELECT RAISE(ABORT, 'ids end here'); END;`);
      return thrownBy(() => database.exec('INSERT INTO owners VALUES (9007199254740992)'));
    },
    kind: 'ForeignKeyConstraintViolation',
    serverAnswer: '500: P2003, as @prisma/adapter-libsql maps it',
  },
  {
    fault: 'a table that is not there (the file replaced by an empty one)',
    provoke: () => {
      const { database } = databaseWith('');
      return thrownBy(() => database.exec('SELECT * FROM pets'));
    },
    kind: 'TableDoesNotExist',
    serverAnswer: '503: P2021, a fault of the deployment',
  },
  {
    fault: 'a column that is not there',
    provoke: () => {
      const { database } = databaseWith(PETS);
      return thrownBy(() => database.exec('SELECT colour FROM pets'));
    },
    kind: 'sqlite',
    extendedCode: 1,
    serverAnswer: '500: a bug of ours',
  },
  {
    fault: 'a corrupt database file (SQLITE_CORRUPT)',
    provoke: async () => {
      const database = await corruptDatabase();
      return thrownBy(() => database.exec('SELECT count(*) FROM owners'));
    },
    kind: 'sqlite',
    extendedCode: 11,
    serverAnswer: '503: a file that cannot serve',
  },
  {
    fault: 'a file that is not a database (SQLITE_NOTADB)',
    provoke: async () => {
      const path = join(folder, `${++fileNumber}.db`);
      await writeFile(path, 'not a database, just text '.repeat(200));
      return thrownBy(() => new Database(path).exec('SELECT * FROM sqlite_master'));
    },
    kind: 'sqlite',
    extendedCode: 26,
    serverAnswer: '503: a file that cannot serve',
  },
  {
    fault: 'a file that cannot be opened (SQLITE_CANTOPEN)',
    provoke: () => thrownBy(() => new Database(join(folder, 'no-such-folder', 'pets.db'))),
    kind: 'sqlite',
    extendedCode: 14,
    serverAnswer: '503: a file that cannot serve',
  },
  {
    fault: 'a write to a read-only database (SQLITE_READONLY)',
    provoke: () => {
      const { database } = databaseWith(`${PETS} PRAGMA query_only = ON;`);
      return thrownBy(() => database.exec('INSERT INTO owners VALUES (1)'));
    },
    kind: 'sqlite',
    extendedCode: 8,
    serverAnswer: '503: a file that cannot serve',
  },
  {
    fault: 'a full disk (SQLITE_FULL)',
    provoke: () => {
      const { database } = databaseWith(`${PETS} PRAGMA max_page_count = 3;`);
      const insert = database.prepare('INSERT INTO pets (name) VALUES (?)');
      return thrownBy(() => {
        for (let i = 0; i < 1_000; i++) insert.run(`pet ${i} ${'x'.repeat(100)}`);
      });
    },
    kind: 'sqlite',
    extendedCode: 13,
    serverAnswer: '503: a file that cannot serve',
  },
  {
    // An I/O error cannot be provoked on demand: this is the error libsql builds for one.
    fault: 'a failed write to the disk (SQLITE_IOERR_WRITE)',
    provoke: () => new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE', 778),
    kind: 'sqlite',
    extendedCode: 778,
    serverAnswer: '503: a file that cannot serve',
  },
];

describe('fromSqliteError', () => {
  it.each(FAULTS)('$fault → $kind ($serverAnswer)', async (fault) => {
    const { provoke, kind, extendedCode, serverAnswer } = fault;
    const error = await provoke();
    const mapped = fromSqliteError(error);
    expect(isDatabaseFault(mapped)).toBe(serverAnswer.startsWith('503'));

    expect(mapped).toBeInstanceOf(DriverAdapterError);
    const { cause } = mapped as DriverAdapterError;
    expect(cause.kind).toBe(kind);
    expect(cause.originalMessage).toBe((error as Error).message);
    if (extendedCode !== undefined) {
      expect(cause).toMatchObject({ extendedCode, originalCode: String(extendedCode) });
    }
  });

  it('names the table and the columns of a unique key, as Prisma reports them with P2002', () => {
    const { database } = databaseWith(
      'CREATE TABLE records (scope TEXT, key TEXT, PRIMARY KEY (scope, key))',
    );
    database.exec("INSERT INTO records VALUES ('s', 'k')");
    const mapped = fromSqliteError(
      thrownBy(() => database.exec("INSERT INTO records VALUES ('s', 'k')")),
    );
    expect((mapped as DriverAdapterError).cause).toMatchObject({
      kind: 'UniqueConstraintViolation',
      constraint: { fields: ['scope', 'key'] },
      table: 'records',
    });
  });

  it('counts every busy code as busy: extended codes carry the primary code in their low byte', () => {
    const busySnapshot = new Database.SqliteError(
      'database is locked',
      'SQLITE_BUSY_SNAPSHOT',
      517,
    );
    expect((fromSqliteError(busySnapshot) as DriverAdapterError).cause.kind).toBe('SocketTimeout');
  });

  it('leaves errors that are not SQLite’s as they are', () => {
    const bug = new TypeError('not a function');
    expect(fromSqliteError(bug)).toBe(bug);
    expect(fromSqliteError(undefined)).toBeUndefined();
    expect(fromSqliteError('text')).toBe('text');
  });
});

describe('databaseFileGoneError', () => {
  it('is the error SQLite gives for a file it cannot open, which the server answers with 503', () => {
    expect(databaseFileGoneError('/data/pets.db').cause).toEqual({
      kind: 'sqlite',
      extendedCode: 14,
      message: 'the database file /data/pets.db is gone',
      originalCode: '14',
      originalMessage: 'unable to open database file',
    });
    expect(isDatabaseFault(databaseFileGoneError('/data/pets.db'))).toBe(true);
  });
});
