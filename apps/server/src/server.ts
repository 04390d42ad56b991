import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DatabaseClient } from '@animal-store/db';
import { type AdmissionStage, createAdmission } from './access/admission.js';
import { createCallerResolver } from './access/caller.js';
import type { TrustedProxies } from './access/client-address.js';
import { createApp } from './app.js';
import { type Clock, SYSTEM_CLOCKS } from './clock.js';
import { expressBornMessages } from './departures/express-born-messages.js';
import {
  answerHalfClosedConnections,
  readBodilessRequestsAtOnce,
} from './departures/incoming-requests.js';
import { stopListening } from './departures/stop-listening.js';
import { type ConnectionResponses, trackConnectionResponses } from './http/connection-responses.js';
import {
  type ClientTimeouts,
  DEFAULT_CLIENT_TIMEOUTS,
  DEFAULT_MAX_CONNECTIONS,
  MAX_HEADER_BYTES,
  MAX_HEADER_LINES,
} from './http/limits.js';
import {
  answerParserError,
  answerUnsupportedVersion,
  isHttp1,
  owedAnswers,
} from './http/parser-errors.js';
import type { ApiDefinition } from './http/served-api.js';
import { createApiKeyStore } from './keys/api-key-store.js';
import type { RateLimitStore } from './limits/rate-limit-store.js';
import type { Logger } from './logger.js';
import { Readiness } from './operations/health.js';
import { createServerMetrics, type ServerMetrics } from './operations/metrics.js';
import { ConcurrencyLimit, type ConcurrencyLimitSettings } from './overload/concurrency-limit.js';
import { createLoadShedding, DEFAULT_MAX_WAIT_MS } from './overload/load-shedding.js';
import { TRACING_OFF, type Tracing } from './tracing/tracing.js';

export interface ApiServerDeps {
  /** The API to serve: a contract and its handlers (animal-store-api.ts in production). */
  api: ApiDefinition;
  db: DatabaseClient;
  logger: Logger;
  /** Where the server counts what it does; a fresh set unless given (main.ts serves them). */
  metrics?: ServerMetrics;
  rateLimits: RateLimitStore;
  publicUrl?: string | undefined;
  trustProxy?: TrustedProxies;
  validateResponses?: boolean;
  /**
   * The time windows, bans, the key recheck period and load shedding's waits are read on: a
   * test's, which it moves to cross a minute, a ban or a period at once. The system's unless
   * given (src/clock.ts); main.ts never gives one.
   */
  clock?: Clock;
  /** IPv6 clients are counted per network of this prefix length; 64 unless told. */
  ipv6PrefixLength?: number;
  /** Browser origins allowed to call the API (CORS); none by default. */
  corsOrigins?: readonly string[];
  /** How long a client may take over its request; a slower one is cut off. */
  clientTimeouts?: Partial<ClientTimeouts>;
  /** Connections open at once; a new one past it is closed as it is accepted. */
  maxConnections?: number;
  /** How the concurrency limit of load shedding learns; its defaults unless given. */
  concurrencyLimit?: Partial<ConcurrencyLimitSettings>;
  /** How long a request beyond the concurrency limit may wait for room before it is shed (ms). */
  maxWaitMs?: number;
  /** What `/readyz` answers; main.ts shares it with the shutdown, which takes it down first. */
  readiness?: Readiness;
  /** Where each request's trace is recorded; nowhere by default. */
  tracing?: Tracing;
}

/** How often Node looks for clients past their header or request deadline. */
const CLIENT_DEADLINE_CHECK_MS = 1_000;

/** Load shedding, with its metrics and its log lines: when it begins, and when it ends. */
function loadShedding(
  deps: ApiServerDeps,
  metrics: ServerMetrics,
  admission: AdmissionStage,
  periods: Clock,
) {
  const { logger } = deps;
  const limit = new ConcurrencyLimit(deps.concurrencyLimit);
  const shedding = createLoadShedding({
    limit,
    maxWaitMs: deps.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    standingHeaders: admission.standingHeaders,
    corsOrigins: deps.corsOrigins ?? [],
    onShed: metrics.requestShed,
    onShedding: (state) => {
      if (state.shedding) {
        logger.warn(
          { concurrencyLimit: limit.value, targetLatencyMs: limit.targetLatencyMs },
          'over capacity: shedding requests that waited too long beyond the concurrency limit (503 with Retry-After)',
        );
      } else {
        logger.info({ shed: state.shed, forMs: Math.round(state.forMs) }, 'no longer shedding');
      }
    },
    now: () => periods.now(),
  });
  metrics.watchLoad({
    limit: () => limit.value,
    inFlight: shedding.inFlight,
    waiting: shedding.waiting,
  });
  return shedding;
}

/** The app behind a Node HTTP server, with requests the HTTP parser refuses answered too. */
export function createApiServer(deps: ApiServerDeps): Server {
  const metrics = deps.metrics ?? createServerMetrics();
  const { windows, periods } = deps.clock
    ? { windows: deps.clock, periods: deps.clock }
    : SYSTEM_CLOCKS;
  const resolveCaller = createCallerResolver(
    createApiKeyStore(deps.db),
    deps.tracing ?? TRACING_OFF,
    periods,
  );
  const admission = createAdmission({
    onDecision: metrics.rateLimitDecision,
    store: deps.rateLimits,
    clock: windows,
    ipv6PrefixLength: deps.ipv6PrefixLength ?? 64,
  });
  const readiness = deps.readiness ?? new Readiness(deps.db);
  const shedding = loadShedding(deps, metrics, admission, periods);
  const app = createApp({
    ...deps,
    metrics,
    resolveCaller,
    admission,
    readiness,
    loadShedding: shedding,
  });
  const admitted = shedding.admitting(app);
  const refuseVersion = (req: IncomingMessage, res: ServerResponse) => {
    answerUnsupportedVersion(req, res, admission.headersForRefusedRequest).then(
      (status) => metrics.requestRefused(status),
      () => res.destroy(),
    );
  };
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    if (!isHttp1(req)) return refuseVersion(req, res);
    admitted(req, res);
  };
  // `Host` is checked by the app, which answers a bad one with an Error body like any other.
  const timeouts = { ...DEFAULT_CLIENT_TIMEOUTS, ...deps.clientTimeouts };
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requireHostHeader: false,
      // Slow clients (a header line every few seconds, a trickled body) cannot hold sockets.
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: CLIENT_DEADLINE_CHECK_MS,
      ...expressBornMessages(app),
    },
    serve,
  );
  answerHalfClosedConnections(server);
  server.maxHeadersCount = MAX_HEADER_LINES;
  server.maxConnections = deps.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  readBodilessRequestsAtOnce(server);
  const responses = trackConnectionResponses(server);
  responsesOf.set(server, responses);
  const answersOwed = owedAnswers(responses);
  const refuse = async (
    error: Error & { code?: string },
    socket: Duplex & { remoteAddress?: string },
  ) => {
    // Requests read in full before the refused bytes are answered first, in order.
    await answersOwed(socket);
    const status = await answerParserError(error, socket, admission.headersForRefusedRequest);
    if (status !== undefined) metrics.requestRefused(status);
  };
  server.on('clientError', refuse);
  // Expectations other than 100-continue MAY be refused (RFC 9110 §10.1.1); they are ignored.
  server.on('checkExpectation', serve);
  // CONNECT names no path of this API: answered like a request the parser refused.
  server.on('connect', (_req, socket: Duplex) =>
    refuse(new Error('CONNECT is not supported'), socket),
  );
  return server;
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Each API server's connections and their responses. */
const responsesOf = new WeakMap<Server, ConnectionResponses>();

/**
 * Stops accepting, lets in-flight requests finish (for up to `graceMs`, then their connections
 * are cut), then resolves.
 */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  // A keep-alive connection busy with a request stays open to answer it, and Node would go on
  // serving whatever that client sends next on it, until the grace period cut a request off
  // half-way (a pet stored, its 201 lost). So the requests in progress and every request read
  // from now on are answered with `Connection: close`: the client's next request finds the
  // port closed.
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.shouldKeepAlive = false;
  };
  for (const res of responsesOf.get(server)?.latestOfAll() ?? []) closeAfter(res);
  // A request with an expectation other than 100-continue comes as 'checkExpectation' instead.
  for (const event of ['request', 'checkExpectation'] as const) {
    server.prependListener(event, (_req: IncomingMessage, res: ServerResponse) => closeAfter(res));
  }
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    deadline.unref();
    stopListening(server, () => {
      clearTimeout(deadline);
      resolve();
    });
  });
}
