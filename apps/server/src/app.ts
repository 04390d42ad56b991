import { parse as parseQueryString } from 'node:querystring';
import type { DatabaseClient } from '@animal-store/db';
import express, { type Express, type RequestHandler } from 'express';
import type { AdmissionStage } from './access/admission.js';
import { requireApiKey } from './access/authentication.js';
import type { CallerResolver } from './access/caller.js';
import type { TrustedProxies } from './access/client-address.js';
import { identifyCaller } from './access/identification.js';
import { inTurnBatches } from './batching/turn-batch.js';
import { neverFresh } from './departures/never-fresh.js';
import { apiBrowserPolicy, crossOriginAccess } from './http/browser-policy.js';
import { deprecationHeaders } from './http/deprecation.js';
import { errorMapper } from './http/error-mapper.js';
import { inOrder } from './http/in-order.js';
import { requestBody } from './http/json-body.js';
import { contextOf, requestContext } from './http/request-context.js';
import { requestHeadCheck } from './http/request-head.js';
import { requestLog } from './http/request-log.js';
import { routeGuard, routeNotFound } from './http/route-guard.js';
import { createRouteResolver, labelOf } from './http/routes.js';
import { type ApiDefinition, operationEndpoints } from './http/served-api.js';
import type { Logger } from './logger.js';
import { documentEndpoints } from './operations/api-docs.js';
import { probeEndpoints, type Readiness } from './operations/health.js';
import type { ServerMetrics } from './operations/metrics.js';
import type { LoadShedding } from './overload/load-shedding.js';
import { TRACING_OFF, type Tracing } from './tracing/tracing.js';

export interface AppDeps {
  /** The API to serve: a contract and its handlers (animal-store-api.ts in production). */
  api: ApiDefinition;
  db: DatabaseClient;
  logger: Logger;
  metrics: ServerMetrics;
  /** Who a request's `Authorization` header names. */
  resolveCaller: CallerResolver;
  /** Rate limiting, shared with the HTTP server's parser-error path. */
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
  /** Load shedding, which admitted the requests the app is given: told when each is finished. */
  loadShedding: LoadShedding;
}

/** The last stage: the endpoint the request is for answers it, or the 204 of a preflight. */
const dispatch: RequestHandler = (req, res, next) => {
  const { target } = contextOf(res);
  if ('endpoint' in target) {
    req.params = target.params;
    return target.endpoint.handle(req, res, next);
  }
  if (target.kind === 'preflight') {
    res.status(204).setHeader('Content-Length', '0');
    res.end();
    return;
  }
  // Routing answered the rest already.
  next();
};

/**
 * The whole HTTP pipeline of `deps.api`, without listening: one Express middleware running the
 * named stages below in order (docs/architecture.md draws them), then the one error mapper. The
 * checks run in the interface's order: rate limit, then the request head, routing (404/405),
 * authentication, the body, and validation (in the operation's endpoint).
 */
export function createApp(deps: AppDeps): Express {
  const { logger, metrics } = deps;
  const tracing = deps.tracing ?? TRACING_OFF;
  const app = express();
  app.disable('x-powered-by');
  // Plain `name=value` pairs: `limit[]=1` is an unknown parameter, not a malformed `limit`. Every
  // pair is read: querystring stops at 1,000 by default, and a `limit` or `status` after a thousand
  // unknown parameters would go unread (the request line's 16 KiB bounds the count).
  app.set('query parser', (query: string) => parseQueryString(query, '&', '=', { maxKeys: 0 }));
  app.set('etag', false);
  neverFresh(app);
  app.set('trust proxy', deps.trustProxy ?? false);

  const api = deps.api({ db: deps.db, tracing, metrics, publicUrl: deps.publicUrl });
  const operations = operationEndpoints(api, {
    responseValidation: deps.validateResponses ?? true,
  });
  const endpoints = [
    ...operations,
    ...probeEndpoints(deps.readiness),
    ...documentEndpoints(api.contract, deps.publicUrl),
  ];
  const crossOrigin = crossOriginAccess(deps.corsOrigins ?? [], api.contract);
  const stages: Record<string, RequestHandler | undefined> = {
    /** What the request is for, its id and client address, resolved once; its trace begins. */
    context: requestContext({
      resolveTarget: createRouteResolver(endpoints),
      isPreflight: crossOrigin.isPreflight,
      tracing,
    }),
    /** One log line and one metrics observation when the response is finished; its trace ends. */
    log: requestLog({
      logger,
      onFinished: (context, res, elapsedMs) => {
        metrics.requestFinished(labelOf(context.target), res.statusCode, elapsedMs / 1000);
        deps.loadShedding.finished(res, elapsedMs);
      },
    }),
    /** Headers every response carries for browsers, and those allowed origins may read. */
    browserPolicy: apiBrowserPolicy(),
    crossOrigin: crossOrigin.headers,
    /** `Deprecation`, `Sunset` and the successor `Link` on a deprecated operation's responses. */
    deprecation: deprecationHeaders,
    /** Who sent the request, from its API key (looked up first when not seen lately). */
    caller: identifyCaller(deps.resolveCaller),
    /**
     * Rate limiting, of the requests of one event-loop turn together: they are decided in one
     * call to the store and go on together (batching/turn-batch.ts).
     */
    admission: inTurnBatches(deps.admission.decide),
    /** Header size as sent, no `#` in the target, exactly one valid `Host`. */
    requestHead: requestHeadCheck,
    /** 404 for an unknown path, 405 for a wrong method. */
    routing: routeGuard,
    /** 401 for an operation without a valid key. */
    authentication: requireApiKey,
    /** The body of an operation whose route declares one, read as JSON (400, 413, 415). */
    body: requestBody,
    /** The endpoint: an operation's (validation, handler, response), a probe's, a document's. */
    dispatch,
    /** What no handler answered (a Swagger UI file its package no longer ships) is an unknown path too. */
    unanswered: (req, _res, next) => next(routeNotFound(req)),
  };
  app.use(inOrder(...Object.values(stages).filter((stage) => stage !== undefined)));
  if (api.onRefusal) app.use(api.onRefusal);
  app.use(errorMapper(logger));
  return app;
}
