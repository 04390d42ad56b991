/**
 * The mock: a fetch-style handler that answers as the interface says (docs/interface.md), over an
 * in-memory catalogue, in the interface's order of checks.
 */
import type { NewPet } from '@animal-store/contract';
import openApiDocument from '@animal-store/contract/openapi.json';
import { commonHeaders, preflightResponse, withHeaders } from './answer-headers.js';
import { MOCK_KEYS, type MockKeys } from './api-keys.js';
import { type MockClock, systemClock } from './clock.js';
import { type Credential, credentialOf, unauthorized } from './credentials.js';
import { IdempotencyRecords } from './idempotency.js';
import { ANONYMOUS_QUOTA } from './limits.js';
import { type Misbehaviour, Misbehaviours } from './misbehaviour.js';
import { PageCursors } from './page-cursor.js';
import { PetStore } from './pet-store.js';
import { type Admission, RateLimiter } from './rate-limiter.js';
import { errorResponse, jsonResponse, retryAfterSeconds } from './responses.js';
import { type Routing, routeOf } from './routes.js';
import { runOperation } from './run-operation.js';
import { seedPets } from './seed.js';

export interface MockOptions {
  /**
   * The pets to start with: by default the demo animals `pnpm dev` seeds (ids 1 to 6); `false`
   * for an empty catalogue.
   */
  readonly seed?: false | readonly NewPet[];
  /** The mock's time (`systemClock()` unless given; `manualClock()` for time that stands still). */
  readonly clock?: MockClock;
  /**
   * The origin `Link` URLs and the OpenAPI document's server name, as a deployment's
   * `PUBLIC_URL`; by default the origin each request addressed.
   */
  readonly publicUrl?: string;
  /**
   * Browser origins allowed to call the mock from pages of their own (CORS), as a deployment's
   * `CORS_ORIGINS`: none by default. A preflight from another origin, or none, is 405.
   */
  readonly corsOrigins?: readonly string[];
}

/** Where a request came from, as the transport knows it. */
export interface MockConnection {
  /** The client's address, which requests without a valid key are counted against. */
  readonly clientAddress?: string;
  /**
   * Why the request's head is malformed, when the transport saw what a Request cannot carry (a
   * `#` in the target, a repeated `Host` or `Authorization`): answered 400 `malformed_request`
   * after the rate limit, as the interface orders its checks.
   */
  readonly malformedHead?: string;
  /**
   * The transport's HTTP parser refused the request (step 1): answered with this code and the
   * client address's rate-limit standing, neither counted nor held against a ban.
   */
  readonly refusedByParser?: 'malformed_request' | 'headers_too_large';
}

/** A mock of the Animal Store API v1: its handler, its clock, its keys and its faults. */
export interface AnimalStoreMock {
  /**
   * Answers one request. A dropped connection (`misbehave({ kind: 'drop' })`) is
   * `Response.error()`, a response of type `error`, which MSW and the Node server turn into a
   * network error.
   */
  handle(request: Request, connection?: MockConnection): Promise<Response>;
  /** `handle` as a `fetch` function: a dropped connection rejects, as fetch's network errors do. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The mock's time: advance it to move past a 429 or a ban without waiting. */
  readonly clock: MockClock;
  /** A key of each plan, and a revoked one. */
  readonly keys: MockKeys;
  /** The next `times` API requests (not the probes) meet this fault. */
  misbehave(fault: Misbehaviour): void;
  /** Back to the first state: the seed, no counts or bans, no Idempotency-Keys, no faults. */
  reset(): void;
}

const PROBES = new Set(['/healthz', '/readyz']);
/** The document: counted per client IP, even with a key (docs/interface.md, "Who is counted"). */
const OPENAPI_PATH = '/v1/openapi.json';
const UNKNOWN_ADDRESS = 'unknown';
const READ_METHODS = ['GET', 'HEAD'];

/** One request on its way through the checks. */
interface Exchange {
  readonly request: Request;
  readonly connection: MockConnection;
  readonly url: URL;
  readonly method: string;
  readonly nowMs: number;
  readonly routing: Routing;
  /** Requests without a valid key, and the documents, are counted against it. */
  readonly ipSubject: string;
}

/** An answer, and the rate-limit standing it reports. */
interface Answered {
  readonly response: Response;
  readonly standing: Record<string, string>;
}

/** The OpenAPI document, naming the public URL as its server when one is set. */
function documentFor(publicUrl: string | undefined): unknown {
  if (publicUrl === undefined) return openApiDocument;
  return { ...openApiDocument, servers: [{ url: publicUrl, description: 'Animal Store API' }] };
}

function methodNotAllowed(method: string, allow: readonly string[]): Response {
  return errorResponse('method_not_allowed', `${method} is not allowed at this path.`, {
    Allow: allow.join(', '),
  });
}

const internalError = () =>
  errorResponse(
    'internal_error',
    'Something went wrong on our side. The request ID identifies it in our logs.',
  );

function parserRefusal(code: 'malformed_request' | 'headers_too_large'): Response {
  return errorResponse(
    code,
    code === 'headers_too_large'
      ? 'The request headers are larger than 16 KiB.'
      : 'The request is not valid HTTP.',
  );
}

const isPreflight = ({ method, request }: Exchange, corsOrigins: ReadonlySet<string>) =>
  method === 'OPTIONS' &&
  corsOrigins.has(request.headers.get('origin') ?? '') &&
  request.headers.has('access-control-request-method');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer a fault stands for: none for a slow one, which is answered as usual once over. */
async function faultResponse(fault: Misbehaviour): Promise<Response | undefined> {
  if (fault.kind === 'drop') return Response.error();
  if (fault.kind === 'slow') {
    await sleep(fault.delayMs);
    return undefined;
  }
  return errorResponse('service_unavailable', 'The server is busy. Try again shortly.', {
    'Retry-After': String(Math.max(1, Math.ceil(fault.retryAfterSeconds ?? 1))),
  });
}

function rateLimitRefusal(admission: Admission): Response {
  const banned = admission.outcome === 'banned';
  return errorResponse(
    banned ? 'temporarily_banned' : 'rate_limited',
    banned
      ? 'Too many requests over the limit: this client is banned for a while.'
      : 'Rate limit exceeded. Wait as Retry-After says, then back off exponentially.',
    { 'Retry-After': retryAfterSeconds(admission.retryAfterMs ?? 1000) },
  );
}

/** A new mock, in its first state: the seed, no counts, no faults. */
export function createMock(options: MockOptions = {}): AnimalStoreMock {
  const clock = options.clock ?? systemClock();
  const seed = seedPets(options.seed);
  const publicOrigin =
    options.publicUrl === undefined ? undefined : new URL(options.publicUrl).origin;
  const document = documentFor(options.publicUrl);
  const corsOrigins = new Set(options.corsOrigins);
  const cursors = new PageCursors();
  const limiter = new RateLimiter();
  const idempotency = new IdempotencyRecords();
  const faults = new Misbehaviours();
  let store = new PetStore(seed);

  const uncounted = ({ ipSubject, nowMs }: Exchange) =>
    limiter.peek(ipSubject, ANONYMOUS_QUOTA, nowMs);

  /** Step 3: per valid key, else per client IP; the document per IP whatever it carries. */
  function admit(exchange: Exchange, credential: Credential): Admission {
    if (credential.kind === 'valid' && exchange.url.pathname !== OPENAPI_PATH) {
      return limiter.admit(`key:${credential.key}`, credential.record.quota, exchange.nowMs);
    }
    return limiter.admit(exchange.ipSubject, ANONYMOUS_QUOTA, exchange.nowMs);
  }

  /** Steps 4 to 9, for a request the rate limit let through. */
  async function admitted(exchange: Exchange, credential: Credential): Promise<Response> {
    const { connection, method, url, routing } = exchange;
    if (connection.malformedHead !== undefined) {
      return errorResponse('malformed_request', connection.malformedHead);
    }
    if (url.pathname === OPENAPI_PATH || PROBES.has(url.pathname)) {
      // A probe's GET and HEAD were answered before the rate limit: here only the document's.
      return READ_METHODS.includes(method)
        ? jsonResponse(200, document)
        : methodNotAllowed(method, READ_METHODS);
    }
    if (routing.kind === 'not-found') {
      return errorResponse('not_found', 'There is nothing at this path.');
    }
    if (routing.kind === 'method-not-allowed') return methodNotAllowed(method, routing.allow);
    if (credential.kind !== 'valid') return unauthorized(credential);
    return runOperation(exchange.request, routing.match, {
      store,
      cursors,
      idempotency,
      nowMs: exchange.nowMs,
      origin: publicOrigin ?? url.origin,
      apiKey: credential.key,
    });
  }

  /** The interface's order of checks; step 1, HTTP parsing, is the transport's to report. */
  async function answerInOrder(exchange: Exchange): Promise<Answered> {
    const { refusedByParser } = exchange.connection;
    if (refusedByParser !== undefined) {
      return { response: parserRefusal(refusedByParser), standing: uncounted(exchange) };
    }
    // The probes and preflights: never counted nor refused, whatever they carry.
    if (PROBES.has(exchange.url.pathname) && READ_METHODS.includes(exchange.method)) {
      return { response: jsonResponse(200, { status: 'ok' }), standing: uncounted(exchange) };
    }
    if (isPreflight(exchange, corsOrigins)) {
      return { response: preflightResponse(), standing: uncounted(exchange) };
    }
    // Step 2, capacity: a fault a test asked for stands in for a busy or broken server.
    const fault = faults.next();
    const faulted = fault && (await faultResponse(fault));
    if (faulted) return { response: faulted, standing: uncounted(exchange) };

    const credential = credentialOf(exchange.request.headers);
    const admission = admit(exchange, credential);
    if (admission.outcome !== 'allowed') {
      return { response: rateLimitRefusal(admission), standing: admission.headers };
    }
    return { response: await admitted(exchange, credential), standing: admission.headers };
  }

  async function handle(request: Request, connection: MockConnection = {}): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const exchange: Exchange = {
      request,
      connection,
      url,
      method,
      nowMs: clock.now(),
      routing: routeOf(method, url.pathname),
      ipSubject: `ip:${connection.clientAddress ?? UNKNOWN_ADDRESS}`,
    };
    // Every answer of a deprecated operation, errors included, says so.
    const deprecation =
      exchange.routing.kind === 'operation'
        ? exchange.routing.match.served.deprecationHeaders
        : undefined;
    let answered: Answered;
    try {
      answered = await answerInOrder(exchange);
    } catch {
      // Nothing of what went wrong is told: the request id is what identifies it.
      answered = { response: internalError(), standing: uncounted(exchange) };
    }
    return withHeaders(
      answered.response,
      {
        ...commonHeaders(request, exchange.nowMs, corsOrigins),
        ...answered.standing,
        ...deprecation,
      },
      { head: method === 'HEAD' },
    );
  }

  return {
    handle,
    async fetch(input, init) {
      const response = await handle(new Request(input, init));
      if (response.type === 'error') {
        throw new TypeError('fetch failed: the mock dropped the connection');
      }
      return response;
    },
    clock,
    keys: MOCK_KEYS,
    misbehave: (fault) => faults.add(fault),
    reset() {
      store = new PetStore(seed);
      limiter.clear();
      idempotency.clear();
      faults.clear();
    },
  };
}
