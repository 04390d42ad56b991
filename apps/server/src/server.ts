import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DatabaseClient } from '@animal-store/db';
import { createAdmission } from './access/admission.js';
import { createCallerResolver } from './access/caller.js';
import type { TrustedProxies } from './access/client-address.js';
import { createApp } from './app.js';
import { type ConnectionResponses, trackConnectionResponses } from './http/connection-responses.js';
import { expressBornMessages } from './http/express-messages.js';
import {
  type ClientTimeouts,
  DEFAULT_CLIENT_TIMEOUTS,
  MAX_HEADER_BYTES,
  MAX_HEADER_LINES,
} from './http/limits.js';
import {
  answerParserError,
  answerUnsupportedVersion,
  isHttp1,
  owedAnswers,
} from './http/parser-errors.js';
import { createApiKeyStore } from './keys/api-key-store.js';
import type { RateLimitStore } from './limits/rate-limit-store.js';
import type { Logger } from './logger.js';
import { Readiness } from './operations/health.js';
import { createServerMetrics, type ServerMetrics } from './operations/metrics.js';
import { TRACING_OFF, type Tracing } from './tracing/tracing.js';

export interface ApiServerDeps {
  db: DatabaseClient;
  logger: Logger;
  /** Where the server counts what it does; a fresh set unless given (main.ts serves them). */
  metrics?: ServerMetrics;
  rateLimits: RateLimitStore;
  publicUrl?: string | undefined;
  trustProxy?: TrustedProxies;
  validateResponses?: boolean;
  /** Epoch milliseconds; tests inject a clock to cross minutes and days. */
  now?: () => number;
  /** IPv6 clients are counted per network of this prefix length; 64 unless told. */
  ipv6PrefixLength?: number;
  /** Browser origins allowed to call the API (CORS); none by default. */
  corsOrigins?: readonly string[];
  /** How long a client may take over its request; a slower one is cut off. */
  clientTimeouts?: Partial<ClientTimeouts>;
  /** What `/readyz` answers; main.ts shares it with the shutdown, which takes it down first. */
  readiness?: Readiness;
  /** Where each request's trace is recorded; nowhere by default. */
  tracing?: Tracing;
}

/** How often Node looks for clients past their header or request deadline. */
const CLIENT_DEADLINE_CHECK_MS = 1_000;

/** The app behind a Node HTTP server, with requests the HTTP parser refuses answered too. */
export function createApiServer(deps: ApiServerDeps): Server {
  const metrics = deps.metrics ?? createServerMetrics();
  const admission = createAdmission({
    onDecision: metrics.rateLimitDecision,
    resolveCaller: createCallerResolver(createApiKeyStore(deps.db), deps.tracing ?? TRACING_OFF),
    store: deps.rateLimits,
    now: deps.now ?? Date.now,
    ipv6PrefixLength: deps.ipv6PrefixLength ?? 64,
  });
  const readiness = deps.readiness ?? new Readiness(deps.db);
  const app = createApp({ ...deps, metrics, admission, readiness });
  const refuseVersion = (req: IncomingMessage, res: ServerResponse) => {
    answerUnsupportedVersion(req, res, admission.headersForRefusedRequest).then(
      (status) => metrics.requestRefused(status),
      () => res.destroy(),
    );
  };
  const serve = (req: IncomingMessage, res: ServerResponse) =>
    isHttp1(req) ? app(req, res) : refuseVersion(req, res);
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
  // A client may end its side of the connection once it has sent its request. By default Node
  // then abandons the requests in progress, so a pet could be stored with its 201 never sent;
  // with this switch (long-standing in Node, though undeclared in its types) it answers them,
  // then closes.
  Object.assign(server, { httpAllowHalfOpen: true });
  server.maxHeadersCount = MAX_HEADER_LINES;
  server.on('request', readToEndIfBodiless);
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

/**
 * A request whose head announces no body (no `Content-Length`, no `Transfer-Encoding`) is read to
 * its end at once. Node otherwise drains it only once it is answered, and adds a listener to each
 * such request to let go of it afterwards: 2 % of the CPU of a `get`.
 */
function readToEndIfBodiless(req: IncomingMessage) {
  const { headers } = req;
  if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
    req.resume();
  }
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

/**
 * Closes the listener; `done` runs once every connection has ended. `http.Server#close` first
 * destroys each connection idle between two requests (through the server's own
 * `closeIdleConnections`), and with it any request its client has already sent but the server
 * has not read yet: reset, never answered. That one step is skipped; the rest of `close` (the
 * end of its timeout checks, then the listener) runs as Node has it. An idle connection then
 * ends as it always does: with its next answer, sent with `Connection: close`, or at its
 * keep-alive timeout, which its `Keep-Alive` header announced, and at the end of the grace
 * period at the latest.
 */
function stopListening(server: Server, done: () => void) {
  server.closeIdleConnections = () => {};
  try {
    server.close(() => done());
  } finally {
    Reflect.deleteProperty(server, 'closeIdleConnections');
  }
}
