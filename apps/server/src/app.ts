import { parse as parseQueryString } from 'node:querystring';
import type { DatabaseClient } from '@animal-store/db';
import express, { type Express, type RequestHandler } from 'express';
import type { AdmissionStage } from './access/admission.js';
import { requireApiKey } from './access/authentication.js';
import type { TrustedProxies } from './access/client-address.js';
import { apiBrowserPolicy, crossOriginAccess } from './http/browser-policy.js';
import { operationHandlers } from './http/contract-endpoints.js';
import { deprecationHeaders } from './http/deprecation.js';
import { errorMapper } from './http/error-mapper.js';
import { inOrder } from './http/in-order.js';
import { contextOf, requestContext } from './http/request-context.js';
import { requestHeadCheck } from './http/request-head.js';
import { requestLog } from './http/request-log.js';
import { routeGuard, routeNotFound } from './http/route-guard.js';
import { createRouteResolver } from './http/routes.js';
import type { Logger } from './logger.js';
import { apiDocuments } from './operations/api-docs.js';
import { probeHandlers, type Readiness } from './operations/health.js';
import type { ServerMetrics } from './operations/metrics.js';
import { PageCursorCodec } from './pets/page-cursor.js';
import { createPetStore } from './pets/pet-store.js';
import { createPetsRouter, unissuedCursorReporter } from './pets/pets.router.js';
import { loadServerSecret } from './server-secrets.js';
import { TRACING_OFF, type Tracing } from './tracing/tracing.js';

export interface AppDeps {
  db: DatabaseClient;
  logger: Logger;
  metrics: ServerMetrics;
  /** Rate limiting and caller identification, shared with the HTTP server's parser-error path. */
  admission: AdmissionStage;
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
  /** Where each request's trace is recorded; nowhere by default. */
  tracing?: Tracing;
}

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

/** The codec of page cursors, under the key the database keeps for every instance. */
function pageCursors(db: DatabaseClient) {
  return untilResolved(
    async () => new PageCursorCodec(await loadServerSecret(db, 'page-cursor-key')),
  );
}

/** The operations of the contract, each a ts-rest endpoint over the pet store. */
function petOperations(deps: AppDeps, cursors: () => Promise<PageCursorCodec>) {
  return operationHandlers(
    createPetsRouter({
      store: createPetStore(deps.db, deps.tracing),
      cursors,
      publicUrl: deps.publicUrl,
      onIdempotentCreate: deps.metrics.idempotentCreate,
    }),
    { responseValidation: deps.validateResponses ?? true },
  );
}

/** The last stage: whatever the request is for answers it. */
function dispatch(deps: AppDeps, cursors: () => Promise<PageCursorCodec>): RequestHandler {
  const operations = petOperations(deps, cursors);
  const probes = probeHandlers(deps.readiness);
  const documents = apiDocuments(deps.publicUrl);
  return (req, res, next) => {
    const { target } = contextOf(res);
    switch (target.kind) {
      case 'operation':
        req.params = target.params;
        return operations[target.name](req, res, next);
      case 'probe':
        return probes[target.name](req, res, next);
      case 'document':
        req.params = target.params;
        return documents[target.name](req, res, next);
      case 'preflight':
        res.status(204).setHeader('Content-Length', '0');
        res.end();
        return;
      default:
        // Routing answered the rest already.
        next();
    }
  };
}

/**
 * The whole HTTP pipeline, without listening: one Express middleware running the named stages
 * below in order (docs/architecture.md draws them), then the one error mapper. The checks run in
 * the interface's order: rate limit, then the request head, routing (404/405), authentication,
 * and validation (in the operation's endpoint).
 */
export function createApp(deps: AppDeps): Express {
  const { logger, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Plain `name=value` pairs: `limit[]=1` is an unknown parameter, not a malformed `limit`. Every
  // pair is read: querystring stops at 1,000 by default, and a `limit` or `status` after a thousand
  // unknown parameters would go unread (the request line's 16 KiB bounds the count).
  app.set('query parser', (query: string) => parseQueryString(query, '&', '=', { maxKeys: 0 }));
  app.set('etag', false);
  // What `res.send` answers (operations, probes, documents) carries no validator (no ETag, no
  // Last-Modified) and may not be stored (`no-store`), so no request for it is fresh: Express
  // would otherwise answer `If-None-Match: *` with an empty 304, which no operation declares.
  // (The static assets of /docs answer conditional requests themselves.)
  Object.defineProperty(app.request, 'fresh', { get: () => false });
  app.set('trust proxy', deps.trustProxy ?? false);

  const crossOrigin = crossOriginAccess(deps.corsOrigins ?? []);
  const cursors = pageCursors(deps.db);
  const stages: Record<string, RequestHandler | undefined> = {
    /** What the request is for, its id and client address, resolved once; its trace begins. */
    context: requestContext({
      resolveTarget: createRouteResolver(),
      isPreflight: crossOrigin.isPreflight,
      tracing: deps.tracing ?? TRACING_OFF,
    }),
    /** One log line and one metrics observation when the response is finished; its trace ends. */
    log: requestLog({ logger, metrics }),
    /** Headers every response carries for browsers, and those allowed origins may read. */
    browserPolicy: apiBrowserPolicy(),
    crossOrigin: crossOrigin.headers,
    /** `Deprecation`, `Sunset` and the successor `Link` on a deprecated operation's responses. */
    deprecation: deprecationHeaders,
    /**
     * Rate limiting, and the batching stage: the requests of one event-loop turn are decided
     * together and go on together (http/turn-batch.ts).
     */
    admission: deps.admission.middleware,
    /** Header size as sent, no `#` in the target, exactly one valid `Host`. */
    requestHead: requestHeadCheck,
    /** 404 for an unknown path, 405 for a wrong method. */
    routing: routeGuard,
    /** 401 for an operation without a valid key. */
    authentication: requireApiKey,
    /** The operation's endpoint (validation, handler, response), the probe or the document. */
    dispatch: dispatch(deps, cursors),
    /** What no handler answered (a Swagger UI file its package no longer ships) is an unknown path too. */
    unanswered: (req, _res, next) => next(routeNotFound(req)),
  };
  app.use(inOrder(...Object.values(stages).filter((stage) => stage !== undefined)));
  app.use(unissuedCursorReporter(cursors));
  app.use(errorMapper(logger));
  return app;
}
