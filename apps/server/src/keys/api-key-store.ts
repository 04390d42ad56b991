import { hash, randomBytes } from 'node:crypto';
import { newApiKey } from '@animal-store/contract/rules';
import type { DatabaseClient, Prisma } from '@animal-store/db';
import { PLAN_QUOTAS, type PlanName, type Quota } from '../limits/plans.js';

/** A key as the server and the key command see it: never the secret, only its public id. */
export interface ApiKeyInfo {
  id: string;
  label: string;
  plan: PlanName;
  quota: Quota;
  createdAt: Date;
  revokedAt: Date | null;
}

const KEY_COLUMNS = {
  id: true,
  label: true,
  plan: true,
  perMinute: true,
  perDay: true,
  createdAt: true,
  revokedAt: true,
} as const satisfies Prisma.ApiKeySelect;

type KeyRow = Prisma.ApiKeyGetPayload<{ select: typeof KEY_COLUMNS }>;

/**
 * A key on a table plan follows the plan table as it stands, whatever its row holds; only an
 * enterprise key has numbers of its own. Those are BigInt columns, read as bigints; as numbers
 * they compare with the counters and print in headers and JSON (which throws on a bigint).
 * Exact: the key command stores none above 2^53 − 1.
 */
function quotaOf(row: Pick<KeyRow, 'id' | 'plan' | 'perMinute' | 'perDay'>): Quota {
  const plan = row.plan as PlanName;
  if (plan === 'enterprise')
    return { perMinute: Number(row.perMinute), perDay: Number(row.perDay) };
  const quota = PLAN_QUOTAS[plan];
  if (!quota) throw new Error(`Key ${row.id} is on the plan "${plan}", which plans.ts lacks`);
  return quota;
}

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    label: row.label,
    plan: row.plan as PlanName,
    quota: quotaOf(row),
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/**
 * Keys carry 256 random bits, so a fast unsalted hash is enough to store them safely. Every
 * request with a key hashes it (the hash is what the server remembers, never the key), so it
 * is `crypto.hash`'s one call, which makes no Hash object as `createHash` does.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export type NewApiKey =
  | { label: string; plan: Exclude<PlanName, 'enterprise'> }
  | { label: string; plan: 'enterprise'; quota: Quota };

/** Every database call about API keys. */
export function createApiKeyStore(db: DatabaseClient) {
  async function create(request: NewApiKey): Promise<{ key: ApiKeyInfo; secret: string }> {
    // In the interface's format, with its checksum: @animal-store/contract/rules, as the mock's.
    const secret = newApiKey();
    // A table plan's numbers are written too, though this release reads them from the table:
    // an instance of the release before, still running during a rolling deploy, reads the row.
    const quota = request.plan === 'enterprise' ? request.quota : PLAN_QUOTAS[request.plan];
    const row = await db.apiKey.create({
      data: {
        id: `key_${randomBytes(9).toString('base64url')}`,
        label: request.label,
        plan: request.plan,
        perMinute: quota.perMinute,
        perDay: quota.perDay,
        secretHash: hashSecret(secret),
      },
      select: KEY_COLUMNS,
    });
    return { key: toInfo(row), secret };
  }

  async function list(): Promise<ApiKeyInfo[]> {
    const rows = await db.apiKey.findMany({ orderBy: { createdAt: 'asc' }, select: KEY_COLUMNS });
    return rows.map(toInfo);
  }

  /** Revokes the key; false when no such key exists. Revoking twice keeps the first date. */
  async function revoke(id: string): Promise<boolean> {
    const key = await db.apiKey.findUnique({ where: { id }, select: { revokedAt: true } });
    if (!key) return false;
    if (!key.revokedAt) {
      await db.apiKey.update({
        where: { id },
        data: { revokedAt: new Date() },
        select: { id: true },
      });
    }
    return true;
  }

  async function findActiveByHash(secretHash: string): Promise<ApiKeyInfo | undefined> {
    const row = await db.apiKey.findUnique({
      where: { secretHash },
      select: KEY_COLUMNS,
    });
    return row && !row.revokedAt ? toInfo(row) : undefined;
  }

  return { create, list, revoke, findActiveByHash };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
