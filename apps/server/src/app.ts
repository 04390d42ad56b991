import { contract } from '@animal-store/contract';
import type { DatabaseClient } from '@animal-store/db';
import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express } from 'express';
import type { Admission } from './access/admission.js';
import { requireApiKey } from './access/authentication.js';
import { callerOf } from './access/caller.js';
import type { TrustedProxies } from './access/client-address.js';
import { apiBrowserPolicy, crossOriginAccess } from './http/browser-policy.js';
import { deprecationHeaders } from './http/deprecation.js';
import { errorMapper } from './http/error-mapper.js';
import { requestHeadCheck } from './http/request-head.js';
import { requestLog } from './http/request-log.js';
import {
  type KnownRoute,
  onlyOn,
  routeGuard,
  routeMatcher,
  routeNotFound,
} from './http/route-guard.js';
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
  /** Rate limiting and caller identification, shared with the HTTP server's parser-error path. */
  admission: Admission;
  /** Origin used for absolute URLs in `Link` headers; defaults to the request's own. */
  publicUrl?: string | undefined;
  /** Which proxies' `X-Forwarded-For` names the client; none by default. */
  trustProxy?: TrustedProxies;
  /** Check every response against the contract (development and tests). */
  validateResponses?: boolean;
  /** Browser origins allowed to call the API (CORS); none by default. */
  corsOrigins?: readonly string[];
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

const GET_PET_ROUTE: KnownRoute[] = [contract.pets.getPet];

/** Whether a request is for the probes and documents outside the API operations. */
export const isSiteRoute = routeMatcher(SITE_ROUTES);

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
  app.set('strict routing', true);
  // Plain `name=value` pairs: `limit[]=1` is an unknown parameter, not a malformed `limit`.
  app.set('query parser', 'simple');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy ?? false);

  app.use(requestLog(logger));
  app.use(apiBrowserPolicy(), crossOriginAccess(deps.corsOrigins ?? []));
  app.use(onlyOn(GET_PET_ROUTE, deprecationHeaders));
  app.use(deps.admission.middleware);
  app.use(requestHeadCheck);
  app.use(routeGuard([...API_ROUTES, ...SITE_ROUTES]));
  app.use(healthRoutes(db), apiDocsRoutes(deps.publicUrl));
  app.use(onlyOn(API_ROUTES, requireApiKey));

  createExpressEndpoints(
    contract.pets,
    createPetsRouter({
      store: createPetStore(db),
      cursors: untilResolved(
        async () => new PageCursorCodec(await loadServerSecret(db, 'page-cursor-key')),
      ),
      publicUrl: deps.publicUrl,
      idempotencyScope: (res) => {
        const caller = callerOf(res.locals);
        return caller.kind === 'key' ? caller.key.id : 'anonymous';
      },
    }),
    app,
    {
      responseValidation: deps.validateResponses ?? true,
      requestValidationErrorHandler: (error, _req, _res, next) => next(error),
    },
  );

  // Whatever no handler answered (a file missing under /docs/assets) is an unknown path too.
  app.use((req, _res, next) => next(routeNotFound(req)));
  app.use(errorMapper(logger));
  return app;
}
