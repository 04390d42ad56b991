import type { DatabaseClient } from '@animal-store/db';
import { Router } from 'express';
import { ApiError } from '../http/api-error.js';

/** Liveness and readiness probes; outside the API, so they need no key. */
export function healthRoutes(db: DatabaseClient): Router {
  return Router()
    .get('/healthz', (_req, res) => {
      res.json({ status: 'ok' });
    })
    .get('/readyz', async (_req, res, next) => {
      try {
        await db.$queryRaw`SELECT 1`;
        res.json({ status: 'ok' });
      } catch {
        next(new ApiError('service_unavailable', 'The database does not answer.'));
      }
    });
}
