import { ERROR_MESSAGES } from '@animal-store/contract';
import type { DatabaseClient } from '@animal-store/db';
import { ApiError } from '../http/api-error.js';
import { type ProbeEndpoint, siteEndpoint } from '../http/routes.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

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

/**
 * Whether this instance should be sent requests: not while it is shutting down (load balancers
 * take it out of rotation while it still serves), nor while its database does not answer.
 */
export class Readiness {
  readonly #db: DatabaseClient;
  #shuttingDown = false;

  constructor(db: DatabaseClient) {
    this.#db = db;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** From now on `/readyz` answers 503; every other request is still served. */
  beginShutdown(): void {
    this.#shuttingDown = true;
  }

  /** Why the instance is not ready, or undefined when it is. */
  async problem(): Promise<ApiError | undefined> {
    if (this.#shuttingDown) {
      return new ApiError(ERROR_MESSAGES.shuttingDown);
    }
    if (!(await databaseReady(this.#db))) {
      return new ApiError(ERROR_MESSAGES.databaseSilent);
    }
    return undefined;
  }
}

/** Liveness and readiness probes; outside the API, so they need no key. */
export function probeEndpoints(readiness: Readiness): ProbeEndpoint[] {
  return [
    siteEndpoint('probe', HEALTH_PATH, 'healthz', (_req, res) => {
      res.json({ status: 'ok' });
    }),
    siteEndpoint('probe', READY_PATH, 'readyz', async (_req, res, next) => {
      const problem = await readiness.problem();
      if (problem) next(problem);
      else res.json({ status: 'ok' });
    }),
  ];
}
