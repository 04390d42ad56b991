import { parse as parseQueryString } from 'node:querystring';
import { contract } from '@animal-store/contract';
import type { DatabaseClient } from '@animal-store/db';
import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express, type Request } from 'express';
import type { Admission } from './access/admission.js';
import { requireApiKey } from './access/authentication.js';
import { callerOf } from './access/caller.js';
import type { TrustedProxies } from './access/client-address.js';
import { apiBrowserPolicy, crossOriginAccess } from './http/browser-policy.js';
import { deprecationHeaders } from './http/deprecation.js';
import { errorMapper } from './http/error-mapper.js';
import { inOrder } from './http/in-order.js';
import { requestHeadCheck } from './http/request-head.js';
import { requestLog } from './http/request-log.js';
import {
  type KnownRoute,
  onlyOn,
  routeGuard,
  routeMatcher,
  routeNamer,
  routeNotFound,
} from './http/route-guard.js';
import type { Logger } from './logger.js';
import { apiDocsRoutes, DOCS_PATH, OPENAPI_PATH } from './operations/api-docs.js';
import { HEALTH_PATH, healthRoutes, READY_PATH, type Readiness } from './operations/health.js';
import type { OperationName, ServerMetrics } from './operations/metrics.js';
import { PageCursorCodec } from './pets/page-cursor.js';
import { createPetStore } from './pets/pet-store.js';
import { createPetsRouter } from './pets/pets.router.js';
import { loadServerSecret } from './server-secrets.js';

export interface AppDeps {
  db: DatabaseClient;
  logger: Logger;
  metrics: ServerMetrics;
  /** Rate limiting and caller identification, shared with the HTTP server's parser-error path. */
  admission: Admission;
  /** What `/readyz` answers: not ready while shutting down or while the database is away. */
  readiness: Readiness;
  /** Origin used for absolute URLs in `Link` headers; defaults to the request's own. */
  publicUrl?: string | undefined;
  /** Which proxies' `X-Forwarded-For` names the client; none by default. */
  trustProxy?: TrustedProxies;
  /** Check every response against the contract (development and tests). */
  validateResponses?: boolean;
  /** Browser origins allowed to call the API (CORS); none by default. */
  corsOrigins?: readonly string[];
}

type Named = readonly [OperationName, KnownRoute];

const NAMED_API_ROUTES: Named[] = Object.entries(contract.pets).map(([name, { method, path }]) => [
  name as keyof typeof contract.pets,
  { method, path },
]);

const NAMED_PROBE_ROUTES: Named[] = [
  ['healthz', { method: 'GET', path: HEALTH_PATH }],
  ['readyz', { method: 'GET', path: READY_PATH }],
];

const NAMED_SITE_ROUTES: Named[] = [
  ...NAMED_PROBE_ROUTES,
  ['openapi', { method: 'GET', path: OPENAPI_PATH }],
  ['docs', { method: 'GET', path: DOCS_PATH }],
  ['docs', { method: 'GET', path: `${DOCS_PATH}/assets/:file` }],
];

const API_ROUTES = NAMED_API_ROUTES.map(([, route]) => route);
const SITE_ROUTES = NAMED_SITE_ROUTES.map(([, route]) => route);
const GET_PET_ROUTE: KnownRoute[] = [contract.pets.getPet];

/** Whether a request is for the probes and documents outside the API operations. */
export const isSiteRoute = routeMatcher(SITE_ROUTES);

/** Whether a request is a health probe, which rate limiting never counts nor refuses. */
export const isProbe = routeMatcher(NAMED_PROBE_ROUTES.map(([, route]) => route));

const namedRoute = routeNamer([...NAMED_API_ROUTES, ...NAMED_SITE_ROUTES]);

/** What a request was for, as metrics name it: an operation, a probe, a document, or unmatched. */
const operationOf = (req: Request): OperationName => namedRoute(req) ?? 'unmatched';

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
  const { db, logger, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // Plain `name=value` pairs: `limit[]=1` is an unknown parameter, not a malformed `limit`. Every
  // pair is read: querystring stops at 1,000 by default, and a `limit` or `status` after a thousand
  // unknown parameters would go unread (the request line's 16 KiB bounds the count).
  app.set('query parser', (query: string) => parseQueryString(query, '&', '=', { maxKeys: 0 }));
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy ?? false);

  // What every request goes through, in this order, before a route answers it.
  app.use(
    inOrder(
      requestLog({ logger, metrics, operationOf }),
      apiBrowserPolicy(),
      ...crossOriginAccess(deps.corsOrigins ?? []),
      onlyOn(GET_PET_ROUTE, deprecationHeaders),
      deps.admission.middleware,
      requestHeadCheck,
      routeGuard([...API_ROUTES, ...SITE_ROUTES]),
      onlyOn(API_ROUTES, requireApiKey),
    ),
  );

  createExpressEndpoints(
    contract.pets,
    createPetsRouter({
      store: createPetStore(db),
      cursors: untilResolved(
        async () => new PageCursorCodec(await loadServerSecret(db, 'page-cursor-key')),
      ),
      publicUrl: deps.publicUrl,
      onIdempotentCreate: metrics.idempotentCreate,
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

  // The probes and documents, after the operations, so that API requests do not pass their routers.
  app.use(healthRoutes(deps.readiness), apiDocsRoutes(deps.publicUrl));
  // Whatever no handler answered (a file missing under /docs/assets) is an unknown path too.
  app.use((req, _res, next) => next(routeNotFound(req)));
  app.use(errorMapper(logger));
  return app;
}
