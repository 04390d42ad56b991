import { randomBytes } from 'node:crypto';
import Database from 'libsql';
import {
  type CreateOnceResult,
  hashSecret,
  type IdempotencyClaim,
  type KeyRow,
  type NewPet,
  type Pet,
  type PetStatus,
  type PetStore,
  type StoredPet,
} from './pet-store.js';

/** The server's tables, reduced to the columns these operations read and write. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS pets (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  category_id INTEGER NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pets_status_id_idx ON pets (status, id);
CREATE TABLE IF NOT EXISTS idempotency_records (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  pet_id INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS idempotency_records_created_at_idx ON idempotency_records (created_at);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL UNIQUE,
  per_minute INTEGER NOT NULL,
  per_day INTEGER NOT NULL,
  revoked_at INTEGER
);
`;

const PET_COLUMNS = 'id, name, category_id AS categoryId, status';

/** Idempotency records are kept a day, as the interface promises. */
const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * As the server stores names: NUL escaped as `\0` and `\` as `\\`, because SQLite text read
 * through libsql ends at a NUL.
 */
const NUL = String.fromCharCode(0);
const toStoredName = (name: string) => name.replaceAll('\\', '\\\\').replaceAll(NUL, '\\0');
const fromStoredName = (stored: string) =>
  stored.replace(/\\([\\0])/g, (_, char: string) => (char === '0' ? NUL : '\\'));

/** SQLite through libsql's synchronous API: prepared once, WAL, durable commits like the server's. */
export function openPetDatabase(path: string) {
  const db = new Database(path, { timeout: 3_000 });
  db.pragma('journal_mode = WAL');
  // The server commits with synchronous = FULL; the baseline must not buy speed with durability.
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);

  const statements = {
    ping: db.prepare('SELECT 1'),
    findKey: db.prepare(
      'SELECT id, per_minute AS perMinute, per_day AS perDay FROM api_keys WHERE secret_hash = ? AND revoked_at IS NULL',
    ),
    insertKey: db.prepare(
      'INSERT INTO api_keys (id, secret_hash, per_minute, per_day) VALUES (?, ?, ?, ?)',
    ),
    findPet: db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`),
    listAll: db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`),
    listByStatus: db.prepare(
      `SELECT ${PET_COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
    ),
    insertPet: db.prepare(
      'INSERT INTO pets (name, category_id, status, created_at) VALUES (?, ?, ?, ?)',
    ),
    findRecord: db.prepare(
      'SELECT request_hash AS requestHash, pet_id AS petId, created_at AS createdAt FROM idempotency_records WHERE scope = ? AND key = ?',
    ),
    deleteExpired: db.prepare('DELETE FROM idempotency_records WHERE created_at < ?'),
    insertRecord: db.prepare(
      'INSERT INTO idempotency_records (scope, key, request_hash, pet_id, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
  };

  // Field by field: libsql's get() adds a `_metadata` member to the row it returns.
  const toPet = (row: unknown): Pet => {
    const { id, name, categoryId, status } = row as Pet;
    return { id, name: fromStoredName(name), categoryId, status };
  };

  const stored = (pet: Pet): StoredPet => ({ id: pet.id, json: JSON.stringify(pet) });

  function findPet(id: number): StoredPet | undefined {
    const row = statements.findPet.get(id);
    return row ? stored(toPet(row)) : undefined;
  }

  function insertPet(pet: NewPet): StoredPet {
    const { lastInsertRowid } = statements.insertPet.run(
      toStoredName(pet.name),
      pet.categoryId,
      pet.status,
      Date.now(),
    );
    return stored({ id: Number(lastInsertRowid), ...pet });
  }

  // The replay check and the insert run in one transaction: the same key sent twice at once
  // creates one pet.
  const createOnceInTransaction = db.transaction(
    (pet: NewPet, claim: IdempotencyClaim): CreateOnceResult => {
      const now = Date.now();
      const record = statements.findRecord.get(claim.scope, claim.key) as
        | { requestHash: string; petId: number; createdAt: number }
        | undefined;
      if (record && now - record.createdAt <= IDEMPOTENCY_RETENTION_MS) {
        if (record.requestHash !== claim.requestHash) return { outcome: 'conflict' };
        const earlier = findPet(record.petId);
        return earlier ? { outcome: 'replayed', pet: earlier } : { outcome: 'missing' };
      }
      statements.deleteExpired.run(now - IDEMPOTENCY_RETENTION_MS);
      const created = insertPet(pet);
      statements.insertRecord.run(claim.scope, claim.key, claim.requestHash, created.id, now);
      return { outcome: 'created', pet: created };
    },
  );

  const store = {
    ping: () => statements.ping.get(),
    findKey: (secretHash: string) => statements.findKey.get(secretHash) as KeyRow | undefined,
    /** A new key with these limits; the secret is returned once and only its hash is stored. */
    createKey(perMinute: number, perDay: number): string {
      const secret = `ask_${randomBytes(32).toString('base64url')}`;
      const id = `key_${randomBytes(9).toString('base64url')}`;
      statements.insertKey.run(id, hashSecret(secret), perMinute, perDay);
      return secret;
    },
    findPet,
    listPets(filter: { status: PetStatus | undefined; afterId: number; limit: number }) {
      // One more than asked, to know whether a next page follows.
      const rows =
        filter.status === undefined
          ? statements.listAll.all(filter.afterId, filter.limit + 1)
          : statements.listByStatus.all(filter.status, filter.afterId, filter.limit + 1);
      const pets = rows.slice(0, filter.limit).map(toPet);
      const last = pets.at(-1);
      const nextAfterId = rows.length > filter.limit && last ? last.id : undefined;
      return { json: JSON.stringify(pets), nextAfterId };
    },
    createPet: insertPet,
    createPetOnce: (pet: NewPet, claim: IdempotencyClaim) =>
      createOnceInTransaction.immediate(pet, claim),
  };
  return store satisfies PetStore;
}

export type PetDatabase = ReturnType<typeof openPetDatabase>;
