import { randomBytes } from 'node:crypto';
import { type DatabaseClient, isUniqueViolation } from '@animal-store/db';

/**
 * A random secret shared by every server instance on the same database, created on first use.
 * Keeping it in the database means cursors survive restarts and work across instances with no setup.
 */
export async function loadServerSecret(db: DatabaseClient, name: string): Promise<Buffer> {
  const candidate = randomBytes(32).toString('base64url');
  // An empty update keeps whichever instance's secret was stored first; an instance that loses
  // the race to insert (a unique violation on PostgreSQL) reads the winner's.
  const stored = await db.serverSecret
    .upsert({
      where: { name },
      create: { name, value: candidate },
      update: {},
      select: { value: true },
    })
    .catch(async (error: unknown) => {
      if (!isUniqueViolation(error)) throw error;
      return db.serverSecret.findUniqueOrThrow({ where: { name }, select: { value: true } });
    });
  return Buffer.from(stored.value, 'base64url');
}
