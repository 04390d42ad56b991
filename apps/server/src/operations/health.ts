import type { DatabaseClient } from '@animal-store/db';
import { Router } from 'express';
import { ApiError } from '../http/api-error.js';

/**
 * Whether the database serves what requests need: every table the API reads, in one statement,
 * so a file replaced or emptied under a running server, or a schema gone, reads as not ready.
 */
export async function databaseReady(db: DatabaseClient): Promise<boolean> {
  try {
    await db.$queryRaw`SELECT
      (SELECT 1 FROM pets LIMIT 1) AS pets,
      (SELECT 1 FROM api_keys LIMIT 1) AS api_keys,
      (SELECT 1 FROM idempotency_records LIMIT 1) AS idempotency_records,
      (SELECT 1 FROM server_secrets LIMIT 1) AS server_secrets`;
    return true;
  } catch {
    return false;
  }
}

/** Liveness and readiness probes; outside the API, so they need no key. */
export function healthRoutes(db: DatabaseClient): Router {
  return Router()
    .get('/healthz', (_req, res) => {
      res.json({ status: 'ok' });
    })
    .get('/readyz', async (_req, res, next) => {
      if (await databaseReady(db)) res.json({ status: 'ok' });
      else next(new ApiError('service_unavailable', 'The database does not answer.'));
    });
}
