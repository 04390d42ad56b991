import { contract } from '@animal-store/contract';
import type { DatabaseClient } from '@animal-store/db';
import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import { deprecationHeaders } from './http/deprecation.js';
import { errorMapper } from './http/error-mapper.js';
import { requestIdFor } from './http/request-id.js';
import { type KnownRoute, routeGuard } from './http/route-guard.js';
import type { Logger } from './logger.js';
import { apiDocsRoutes, DOCS_PATH, OPENAPI_PATH } from './operations/api-docs.js';
import { healthRoutes } from './operations/health.js';
import { PageCursorCodec } from './pets/page-cursor.js';
import { createPetStore } from './pets/pet-store.js';
import { createPetsRouter } from './pets/pets.router.js';
import { loadServerSecret } from './server-secrets.js';

export interface AppDeps {
  db: DatabaseClient;
  logger: Logger;
  /** Origin used for absolute URLs in `Link` headers; defaults to the request's own. */
  publicUrl?: string | undefined;
  /** Check every response against the contract (development and tests). */
  validateResponses?: boolean;
}

const API_ROUTES: KnownRoute[] = Object.values(contract.pets).map(({ method, path }) => ({
  method,
  path,
}));

const SITE_ROUTES: KnownRoute[] = [
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/readyz' },
  { method: 'GET', path: OPENAPI_PATH },
  { method: 'GET', path: DOCS_PATH },
  { method: 'GET', path: `${DOCS_PATH}/assets/:file` },
];

/** Runs `load` once it succeeds; a failure (say, the database was down) is retried on the next call. */
function untilResolved<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/**
 * The whole HTTP pipeline, without listening. Checks run in the interface's order:
 * rate limit, then routing (404/405), then authentication, then validation.
 */
export function createApp(deps: AppDeps): Express {
  const { db, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('etag', false);

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const id = requestIdFor(req);
        res.setHeader('X-Request-Id', id);
        return id;
      },
    }),
  );
  app.use(deprecationHeaders);
  // Seam: rate limiting (per key, else per IP) plugs in here, before routing.
  app.use(routeGuard([...API_ROUTES, ...SITE_ROUTES]));
  app.use(healthRoutes(db), apiDocsRoutes(deps.publicUrl));
  // Seam: authentication of `/v1` operations plugs in here, after routing and before validation.

  createExpressEndpoints(
    contract.pets,
    createPetsRouter({
      store: createPetStore(db),
      cursors: untilResolved(
        async () => new PageCursorCodec(await loadServerSecret(db, 'page-cursor-key')),
      ),
      publicUrl: deps.publicUrl,
      idempotencyScope: () => 'anonymous',
    }),
    app,
    {
      responseValidation: deps.validateResponses ?? true,
      requestValidationErrorHandler: (error, _req, _res, next) => next(error),
    },
  );

  app.use(errorMapper(logger));
  return app;
}
