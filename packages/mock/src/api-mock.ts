/**
 * The mock of any API (mocked-api.ts): a fetch-style handler that answers as the interface says
 * (docs/interface.md), in its order of checks, everything but the operations themselves read
 * from the contract.
 */
import { crossOriginRulesOf, ERROR_MESSAGES, type ErrorMessage } from '@animal-store/contract';
import {
  type Admission,
  type RateLimitHeaders,
  rateLimitHeaders,
  retryAfterSeconds,
} from '@animal-store/contract/rules';
import {
  type CrossOrigin,
  commonHeaders,
  crossOriginHeaders,
  isPreflight,
  preflightResponse,
  withHeaders,
} from './answer-headers.js';
import { Keyring, MOCK_KEYS, type MockKeyring } from './api-keys.js';
import { clientSubject } from './client-subject.js';
import { type MockClock, systemClock } from './clock.js';
import { type Credential, credentialOf, unauthorized } from './credentials.js';
import { ANONYMOUS_QUOTA, type Quota } from './limits.js';
import { type Misbehaviour, Misbehaviours } from './misbehaviour.js';
import type { MockOptions } from './mock-options.js';
import { implementedOperations, type MockApi, type MockApiDefinition } from './mocked-api.js';
import { RateLimiter } from './rate-limiter.js';
import { errorResponse, jsonResponse } from './responses.js';
import {
  createRouter,
  type Endpoint,
  operationEndpoint,
  type Routing,
  type SiteEndpoint,
} from './routes.js';
import { runOperation } from './run-operation.js';

/** How a mock of any API is set up: `createMock`'s options but the v1 API's seed. */
export type ApiMockOptions = Omit<MockOptions, 'seed'>;

/** Where a request came from, as the transport knows it. */
export interface MockConnection {
  /**
   * The client's address, which requests without a valid key are counted against: an IPv6
   * address as its /64 network, an IPv4-mapped one as the IPv4 address.
   */
  readonly clientAddress?: string;
  /**
   * The path of the request's target as sent, when the transport has it: routed, and named in a
   * 404 or 405, as sent, where the `Request`'s URL normalises it (`\` to `/`, `{` to `%7B`) or
   * cannot hold it (`OPTIONS *`).
   */
  readonly path?: string;
  /**
   * What is wrong with the request's head, when the transport saw what a `Request` cannot carry
   * (a `#` in the target, a missing, repeated or malformed `Host`, a repeated `Authorization`,
   * headers over 16 KiB as sent, an absolute target of another scheme): an entry of
   * `ERROR_MESSAGES`, answered after the rate limit, as the interface orders its checks.
   */
  readonly malformedHead?: ErrorMessage<'malformed_request' | 'headers_too_large'>;
  /**
   * The transport's HTTP parser refused the request (step 1): answered with this code and the
   * client address's rate-limit standing, neither counted nor held against a ban.
   */
  readonly refusedByParser?: 'malformed_request' | 'headers_too_large';
}

/** A mock of the Animal Store API: its handler, its clock, its keys and its faults. */
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
  /** The demo key of each plan and a revoked one; keys of a test's own, made and revoked. */
  readonly keys: MockKeyring;
  /** The next `times` API requests (not the probes) meet this fault. */
  misbehave(fault: Misbehaviour): void;
  /**
   * Back to the first state: the seed, the demo keys alone, no counts or bans, no
   * Idempotency-Keys, no faults.
   */
  reset(): void;
}

/** The mock's own paths: the probes, answered before any limit, and the document. */
const SITE_ENDPOINTS: readonly SiteEndpoint[] = [
  { kind: 'probe', method: 'GET', path: '/healthz' },
  { kind: 'probe', method: 'GET', path: '/readyz' },
  { kind: 'document', method: 'GET', path: '/v1/openapi.json' },
];

const UNKNOWN_ADDRESS = 'unknown';

/** One request on its way through the checks. */
interface Exchange {
  readonly request: Request;
  readonly connection: MockConnection;
  readonly url: URL;
  /** The path routed: as sent when the transport tells it, else the URL's. */
  readonly path: string;
  readonly method: string;
  readonly nowMs: number;
  readonly routing: Routing;
  /** A CORS preflight: answered whatever its path, never counted nor refused by a limit. */
  readonly preflight: boolean;
  /** Requests without a valid key, and the documents, are counted against it. */
  readonly ipSubject: string;
}

/** An answer, and the rate-limit standing it reports. */
interface Answered {
  readonly response: Response;
  readonly standing: Record<string, string>;
}

const kindOf = ({ routing }: Exchange) =>
  routing.kind === 'endpoint' ? routing.endpoint.kind : routing.kind;

/** The OpenAPI document, naming the public URL as its server when one is set. */
function documentFor(document: unknown, publicUrl: string | undefined): unknown {
  if (publicUrl === undefined) return document;
  return {
    ...(document as object),
    servers: [{ url: publicUrl, description: 'Animal Store API' }],
  };
}

/** The answer a fault stands for: none for a slow one, which is answered as usual once over. */
async function faultResponse(fault: Misbehaviour): Promise<Response | undefined> {
  if (fault.kind === 'drop') return Response.error();
  if (fault.kind === 'slow') {
    await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    return undefined;
  }
  return errorResponse(ERROR_MESSAGES.busy, {
    'Retry-After': String(Math.max(1, Math.ceil(fault.retryAfterSeconds ?? 1))),
  });
}

/** A refused request's answer: 429, and when a request would be accepted again. */
function rateLimitRefusal(admission: Admission, quota: Quota, nowMs: number): Response {
  return errorResponse(
    admission.outcome === 'banned' ? ERROR_MESSAGES.banned : ERROR_MESSAGES.rateLimited,
    { 'Retry-After': String(retryAfterSeconds(admission, quota, nowMs)) },
  );
}

/** An API in its first state as the mock serves it: its router, CORS and document. */
function served(api: MockApi, options: ApiMockOptions) {
  const endpoints: Endpoint[] = [
    ...implementedOperations(api).map(operationEndpoint),
    ...SITE_ENDPOINTS,
  ];
  const crossOrigin: CrossOrigin = {
    origins: new Set(options.corsOrigins),
    rules: crossOriginRulesOf(api.contract),
  };
  return {
    routeOf: createRouter(endpoints),
    crossOrigin,
    document: documentFor(api.document, options.publicUrl),
  };
}

/** A new mock of the API `definition` makes, in its first state. */
export function createApiMock(
  definition: MockApiDefinition,
  options: ApiMockOptions = {},
): AnimalStoreMock {
  const clock = options.clock ?? systemClock();
  const publicOrigin =
    options.publicUrl === undefined ? undefined : new URL(options.publicUrl).origin;
  const limiter = new RateLimiter();
  const faults = new Misbehaviours();
  const keyring = new Keyring();
  let api = served(definition(), options);

  const uncounted = ({ ipSubject, nowMs }: Exchange): RateLimitHeaders =>
    rateLimitHeaders(limiter.peek(ipSubject, ANONYMOUS_QUOTA, nowMs), ANONYMOUS_QUOTA, nowMs);

  /** Step 3's subject: per valid key, else per client IP; the document per IP whatever it carries. */
  function countedAgainst(exchange: Exchange, credential: Credential) {
    if (credential.kind === 'valid' && kindOf(exchange) !== 'document') {
      return { subject: `key:${credential.key}`, quota: credential.record.quota };
    }
    return { subject: exchange.ipSubject, quota: ANONYMOUS_QUOTA };
  }

  /** Steps 5 to 9, for a request the rate limit let through and whose head is sound. */
  async function routed(exchange: Exchange, credential: Credential): Promise<Response> {
    const { method, url, path, routing } = exchange;
    if (routing.kind === 'not-found') return errorResponse(ERROR_MESSAGES.noRoute(path));
    if (routing.kind === 'method-not-allowed') {
      return errorResponse(ERROR_MESSAGES.methodNotAllowed(method, path, routing.allow), {
        Allow: routing.allow,
      });
    }
    const { endpoint, params } = routing;
    // A probe's GET and HEAD were answered before the rate limit: here only the document's.
    if (endpoint.kind !== 'operation') return jsonResponse(200, api.document);
    if (credential.kind !== 'valid') return unauthorized(credential);
    return runOperation(
      exchange.request,
      { endpoint, path, params },
      {
        nowMs: exchange.nowMs,
        origin: publicOrigin ?? url.origin,
        apiKey: credential.key,
      },
    );
  }

  /** The interface's order of checks; step 1, HTTP parsing, is the transport's to report. */
  async function answerInOrder(exchange: Exchange): Promise<Answered> {
    const { refusedByParser, malformedHead } = exchange.connection;
    if (refusedByParser !== undefined) {
      const refusal =
        refusedByParser === 'headers_too_large'
          ? ERROR_MESSAGES.headersTooLarge
          : ERROR_MESSAGES.notHttp;
      return { response: errorResponse(refusal), standing: uncounted(exchange) };
    }
    // The preflights and probes: never counted nor refused by a limit; the head is still checked.
    if (exchange.preflight || kindOf(exchange) === 'probe') {
      const answer = exchange.preflight ? preflightResponse() : jsonResponse(200, { status: 'ok' });
      const response = malformedHead !== undefined ? errorResponse(malformedHead) : answer;
      return { response, standing: uncounted(exchange) };
    }
    // Step 2, capacity: a fault a test asked for stands in for a busy or broken server.
    const fault = faults.next();
    const faulted = fault && (await faultResponse(fault));
    if (faulted) return { response: faulted, standing: uncounted(exchange) };

    const credential = credentialOf(exchange.request.headers, keyring);
    const { subject, quota } = countedAgainst(exchange, credential);
    const admission = limiter.admit(subject, quota, exchange.nowMs);
    const standing = rateLimitHeaders(admission, quota, exchange.nowMs);
    if (admission.outcome !== 'allowed') {
      return { response: rateLimitRefusal(admission, quota, exchange.nowMs), standing };
    }
    // Step 4, the request head, as far as the transport could tell.
    const response =
      malformedHead !== undefined
        ? errorResponse(malformedHead)
        : await routed(exchange, credential);
    return { response, standing };
  }

  async function handle(request: Request, connection: MockConnection = {}): Promise<Response> {
    const url = new URL(request.url);
    const path = connection.path ?? url.pathname;
    const method = request.method.toUpperCase();
    const routing = api.routeOf(method, path);
    const exchange: Exchange = {
      request,
      connection,
      url,
      path,
      method,
      nowMs: clock.now(),
      routing,
      preflight: isPreflight(request, api.crossOrigin),
      ipSubject: clientSubject(connection.clientAddress ?? UNKNOWN_ADDRESS),
    };
    // Every answer of a deprecated operation, errors included, says so.
    const deprecation =
      routing.kind === 'endpoint' && routing.endpoint.kind === 'operation'
        ? routing.endpoint.deprecationHeaders
        : undefined;
    let answered: Answered;
    try {
      answered = await answerInOrder(exchange);
    } catch {
      // Nothing of what went wrong is told: the request id is what identifies it.
      answered = {
        response: errorResponse(ERROR_MESSAGES.internal),
        standing: uncounted(exchange),
      };
    }
    return withHeaders(
      answered.response,
      {
        ...commonHeaders(request, exchange.nowMs),
        // What the parser refused was never read as a request: no origin of its is known.
        ...(connection.refusedByParser === undefined &&
          crossOriginHeaders(request, api.crossOrigin, exchange)),
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
    keys: {
      ...MOCK_KEYS,
      create: (key) => keyring.create(key),
      revoke: (key) => keyring.revoke(key),
    },
    misbehave: (fault) => faults.add(fault),
    reset() {
      api = served(definition(), options);
      keyring.reset();
      limiter.clear();
      faults.clear();
    },
  };
}
