import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  type CreateOnceResult,
  hashSecret,
  type IdempotencyClaim,
  type KeyRow,
  type NewPet,
  type PetStatus,
  type PetStore,
  type StoredPet,
} from './pet-store.js';

/**
 * The server's tables, reduced to the columns these operations read and write. A name is stored
 * as its JSON string (`json` keeps the text as given): PostgreSQL's text cannot hold a NUL, JSON
 * writes one as `\u0000`, and the pages are written by the database around the stored text.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS pets (
  id BIGSERIAL PRIMARY KEY,
  name JSON NOT NULL,
  category_id BIGINT NOT NULL,
  status TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS pets_status_id_idx ON pets (status, id);
CREATE TABLE IF NOT EXISTS idempotency_records (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  pet_id BIGINT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS idempotency_records_created_at_idx ON idempotency_records (created_at);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL UNIQUE,
  per_minute BIGINT NOT NULL,
  per_day BIGINT NOT NULL,
  revoked_at TIMESTAMPTZ
);
`;

/** A pet as the API shows it, written by the database as compact JSON. */
const PET_JSON = 'row_to_json(pet)::text';
const PET_ROW = 'id, name, category_id AS "categoryId", status';

/** Idempotency records are kept a day, as the interface promises. */
const RETENTION = "interval '1 day'";

/**
 * One page in one round trip: the rows after the cursor, one more than asked (whether a next
 * page follows), the page's JSON array written by the database, and the id the next page
 * starts after.
 */
const pageOf = (where: string) => `
SELECT '[' || coalesce(string_agg(${PET_JSON}, ',' ORDER BY pet.id) FILTER (WHERE row.n <= $2), '') || ']' AS json,
       CASE WHEN count(*) > $2 THEN max(pet.id) FILTER (WHERE row.n <= $2) END AS "nextAfterId"
FROM (SELECT id, name, category_id, status, row_number() OVER (ORDER BY id) AS n
      FROM pets WHERE ${where} ORDER BY id LIMIT $2 + 1) row,
LATERAL (SELECT row.id, row.name, row.category_id AS "categoryId", row.status) pet`;

/**
 * Named statements: each connection of the pool prepares one the first time it runs it, and
 * after that sends only its name and values. Statements that read pets write their JSON bodies.
 */
const STATEMENTS = {
  ping: 'SELECT 1',
  findKey:
    'SELECT id, per_minute::float8 AS "perMinute", per_day::float8 AS "perDay" FROM api_keys WHERE secret_hash = $1 AND revoked_at IS NULL',
  insertKey: 'INSERT INTO api_keys (id, secret_hash, per_minute, per_day) VALUES ($1, $2, $3, $4)',
  findPet: `SELECT id, ${PET_JSON} AS json FROM (SELECT ${PET_ROW} FROM pets WHERE id = $1) pet`,
  listAll: pageOf('id > $1'),
  listByStatus: pageOf('status = $3 AND id > $1'),
  insertPet: `WITH pet AS (INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING ${PET_ROW})
SELECT id, ${PET_JSON} AS json FROM pet`,
  /**
   * Claims the key and inserts the pet in one statement: the claim takes the pet's id from the
   * sequence, and the pet is inserted only if the claim was (a new key, or one whose record has
   * expired). Otherwise the key's live record answers: replayed for the same body, a conflict
   * for another. A record committed by a concurrent request after this statement began is not
   * in its snapshot, so it gives no row: then replay below looks again.
   */
  createOnce: `
WITH claim AS (
  INSERT INTO idempotency_records AS record (scope, key, request_hash, pet_id)
  VALUES ($1, $2, $3, nextval('pets_id_seq'))
  ON CONFLICT (scope, key) DO UPDATE
    SET request_hash = excluded.request_hash, pet_id = excluded.pet_id, created_at = now()
    WHERE record.created_at < now() - ${RETENTION}
  RETURNING pet_id
), pet AS (
  INSERT INTO pets (id, name, category_id, status) SELECT pet_id, $4, $5, $6 FROM claim
  RETURNING ${PET_ROW}
)
SELECT 'created' AS outcome, id, ${PET_JSON} AS json FROM pet
UNION ALL
SELECT CASE WHEN record.request_hash = $3 THEN 'replayed' ELSE 'conflict' END, pet.id, ${PET_JSON}
FROM idempotency_records record
LEFT JOIN LATERAL (SELECT ${PET_ROW} FROM pets WHERE pets.id = record.pet_id) pet ON true
WHERE record.scope = $1 AND record.key = $2 AND record.created_at >= now() - ${RETENTION}
  AND NOT EXISTS (SELECT FROM claim)`,
  replay: `
SELECT CASE WHEN record.request_hash = $3 THEN 'replayed' ELSE 'conflict' END AS outcome, pet.id, ${PET_JSON} AS json
FROM idempotency_records record
LEFT JOIN LATERAL (SELECT ${PET_ROW} FROM pets WHERE pets.id = record.pet_id) pet ON true
WHERE record.scope = $1 AND record.key = $2 AND record.created_at >= now() - ${RETENTION}`,
  deleteExpired: `DELETE FROM idempotency_records WHERE created_at < now() - ${RETENTION}`,
} as const;

type StatementName = keyof typeof STATEMENTS;

/** The server looks a key up at most once per 4 s per instance (KEY_RECHECK_MS), and so does this. */
const KEY_RECHECK_MS = 4_000;
/** Past this many remembered answers, they are all forgotten (a flood of junk tokens). */
const MOST_REMEMBERED_KEYS = 10_000;

/** The server's pool size (DATABASE_POOL_SIZE's default). */
const POOL_SIZE = 10;

/** Expired idempotency records of other keys are purged this often. */
const PURGE_INTERVAL_MS = 60_000;

interface ClaimRow {
  outcome: 'created' | 'replayed' | 'conflict';
  id: string | null;
  json: string | null;
}

function claimResult(row: ClaimRow | undefined): CreateOnceResult | undefined {
  if (!row) return undefined;
  if (row.outcome === 'conflict') return { outcome: 'conflict' };
  if (row.id === null || row.json === null) return { outcome: 'missing' };
  return { outcome: row.outcome, pet: { id: row.id, json: row.json } };
}

/**
 * PostgreSQL through `pg`'s pool, each query one named statement, so a request costs one round
 * trip to the database: a page, a pet, a create, an idempotent create alike.
 */
export async function openPostgresPetDatabase(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  await pool.query(SCHEMA);

  const run = async <Row>(name: StatementName, values: unknown[] = []): Promise<Row[]> => {
    const result = await pool.query({ name, text: STATEMENTS[name], values });
    return result.rows as Row[];
  };
  const first = async <Row>(name: StatementName, values: unknown[] = []) =>
    (await run<Row>(name, values))[0];

  // A key's row (or its absence) is remembered for KEY_RECHECK_MS, at once once it is known;
  // concurrent requests with the same key share one lookup.
  type Answer = KeyRow | undefined | Promise<KeyRow | undefined>;
  const keys = new Map<string, { checkedAt: number; answer: Answer }>();
  function findKey(secretHash: string): Answer {
    const now = Date.now();
    const known = keys.get(secretHash);
    if (known && now - known.checkedAt < KEY_RECHECK_MS) return known.answer;
    if (keys.size >= MOST_REMEMBERED_KEYS) keys.clear();
    const entry: { checkedAt: number; answer: Answer } = { checkedAt: now, answer: undefined };
    entry.answer = first<KeyRow>('findKey', [secretHash]).then(
      (row) => {
        entry.answer = row;
        return row;
      },
      (error: unknown) => {
        keys.delete(secretHash);
        throw error;
      },
    );
    keys.set(secretHash, entry);
    return entry.answer;
  }

  const purge = setInterval(() => {
    run('deleteExpired').catch((error: unknown) => console.error(error));
  }, PURGE_INTERVAL_MS);
  purge.unref();

  const store = {
    ping: () => run('ping'),
    findKey,
    /** A new key with these limits; the secret is returned once and only its hash is stored. */
    async createKey(perMinute: number, perDay: number): Promise<string> {
      const secret = `ask_${randomBytes(32).toString('base64url')}`;
      const id = `key_${randomBytes(9).toString('base64url')}`;
      await run('insertKey', [id, hashSecret(secret), perMinute, perDay]);
      return secret;
    },
    findPet: (id: number) => first<StoredPet>('findPet', [id]),
    async listPets(filter: { status: PetStatus | undefined; afterId: number; limit: number }) {
      const page = await first<{ json: string; nextAfterId: string | null }>(
        filter.status === undefined ? 'listAll' : 'listByStatus',
        filter.status === undefined
          ? [filter.afterId, filter.limit]
          : [filter.afterId, filter.limit, filter.status],
      );
      const nextAfterId = page?.nextAfterId == null ? undefined : Number(page.nextAfterId);
      return { json: page?.json ?? '[]', nextAfterId };
    },
    async createPet(pet: NewPet): Promise<StoredPet> {
      const created = await first<StoredPet>('insertPet', [
        JSON.stringify(pet.name),
        pet.categoryId,
        pet.status,
      ]);
      if (!created) throw new Error('the insert returned no row');
      return created;
    },
    async createPetOnce(pet: NewPet, claim: IdempotencyClaim): Promise<CreateOnceResult> {
      const claimed = await first<ClaimRow>('createOnce', [
        claim.scope,
        claim.key,
        claim.requestHash,
        JSON.stringify(pet.name),
        pet.categoryId,
        pet.status,
      ]);
      const result =
        claimResult(claimed) ??
        claimResult(await first<ClaimRow>('replay', [claim.scope, claim.key, claim.requestHash]));
      return result ?? { outcome: 'missing' };
    },
    async close() {
      clearInterval(purge);
      await pool.end();
    },
  };
  return store satisfies PetStore;
}
