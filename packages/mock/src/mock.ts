/**
 * The mock: a fetch-style handler that answers as the interface says (docs/interface.md), over an
 * in-memory catalogue, in the interface's order of checks.
 */
import type { NewPet } from '@animal-store/contract';
import openApiDocument from '@animal-store/contract/openapi.json';
import type { AppRoute } from '@ts-rest/core';
import { ACTIVE_KEYS, type KeyRecord, MOCK_KEYS, type MockKeys } from './api-keys.js';
import { type MockClock, systemClock } from './clock.js';
import { IdempotencyRecords } from './idempotency.js';
import { ANONYMOUS_QUOTA, type Quota } from './limits.js';
import { type Misbehaviour, Misbehaviours } from './misbehaviour.js';
import {
  type Answer,
  IMPLEMENTATIONS,
  type Implementation,
  type OperationContext,
} from './operations.js';
import { PageCursors } from './page-cursor.js';
import { PetStore } from './pet-store.js';
import { RateLimiter } from './rate-limiter.js';
import { checkWith, headerObject, queryObject, readJsonBody } from './request-input.js';
import { errorResponse, jsonResponse, retryAfterSeconds, validationFailed } from './responses.js';
import { type RouteMatch, routeOf } from './routes.js';
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
/** The documents: counted per client IP, even with a key (docs/interface.md, "Who is counted"). */
const OPENAPI_PATH = '/v1/openapi.json';
const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:]{1,128}$/;
const BEARER = /^bearer[ \t]+([^ \t]+)[ \t]*$/i;
const UNKNOWN_ADDRESS = 'unknown';
/** The headers browsers on other origins may read (docs/interface.md, "Browser headers"). */
const EXPOSED_HEADERS =
  'Link, Location, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Idempotent-Replayed, Deprecation, Sunset';

/** What a request sent as its credential. */
type Credential =
  | { readonly kind: 'none' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'valid'; readonly key: string; readonly record: KeyRecord };

function credentialOf(headers: Headers): Credential {
  const value = headers.get('authorization')?.trim() ?? '';
  if (value === '') return { kind: 'none' };
  const token = BEARER.exec(value)?.[1];
  const record = token === undefined ? undefined : ACTIVE_KEYS.get(token);
  return token !== undefined && record !== undefined
    ? { kind: 'valid', key: token, record }
    : { kind: 'invalid' };
}

const CHALLENGE = 'Bearer realm="animal-store"';

function unauthorized(credential: Credential): Response {
  return errorResponse(
    'unauthorized',
    credential.kind === 'none'
      ? 'An API key is required: send Authorization: Bearer <API key>.'
      : 'The API key is not valid: it is unknown or revoked, or the scheme is not Bearer.',
    {
      'WWW-Authenticate':
        credential.kind === 'none' ? CHALLENGE : `${CHALLENGE}, error="invalid_token"`,
    },
  );
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A new mock, in its first state: the seed, no counts, no faults. */
export function createMock(options: MockOptions = {}): AnimalStoreMock {
  const clock = options.clock ?? systemClock();
  const seed = seedPets(options.seed);
  const publicOrigin =
    options.publicUrl === undefined ? undefined : new URL(options.publicUrl).origin;
  const document = documentFor(options.publicUrl);
  const cursors = new PageCursors();
  const limiter = new RateLimiter();
  const idempotency = new IdempotencyRecords();
  const faults = new Misbehaviours();
  let store = new PetStore(seed);

  async function handle(request: Request, connection: MockConnection = {}): Promise<Response> {
    const nowMs = clock.now();
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const sentId = request.headers.get('x-request-id');
    const common: Record<string, string> = {
      'X-Request-Id':
        sentId !== null && SANE_REQUEST_ID.test(sentId) ? sentId : crypto.randomUUID(),
      // The mock's clock, not the machine's: X-RateLimit-Reset is read against it.
      Date: new Date(nowMs).toUTCString(),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'Content-Security-Policy': "default-src 'none'",
    };
    const origin = request.headers.get('origin');
    if (origin !== null) {
      // A mock serves any origin: the browser tests that use it run on origins of their own.
      Object.assign(common, {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Expose-Headers': EXPOSED_HEADERS,
        Vary: 'Origin',
      });
    }
    const ipSubject = `ip:${connection.clientAddress ?? UNKNOWN_ADDRESS}`;
    const ipStanding = () => limiter.peek(ipSubject, ANONYMOUS_QUOTA, nowMs);
    const routing = routeOf(method, url.pathname);
    const deprecation =
      routing.kind === 'operation' ? routing.match.served.deprecationHeaders : undefined;

    const finish = (response: Response, headers: Record<string, string>): Response => {
      if (response.type === 'error') return response;
      const merged = new Headers(response.headers);
      for (const [name, value] of Object.entries({ ...common, ...headers, ...deprecation })) {
        // The deprecation Link joins a next-page Link rather than replacing it.
        if (name === 'Link' && merged.has('link')) merged.append('Link', value);
        else merged.set(name, value);
      }
      return new Response(method === 'HEAD' ? null : response.body, {
        status: response.status,
        headers: merged,
      });
    };

    try {
      // The probes: never counted nor refused, whatever they carry.
      if (PROBES.has(url.pathname) && (method === 'GET' || method === 'HEAD')) {
        return finish(jsonResponse(200, { status: 'ok' }), ipStanding());
      }
      // A CORS preflight: answered without its key, and never counted.
      if (
        method === 'OPTIONS' &&
        origin !== null &&
        request.headers.has('access-control-request-method')
      ) {
        return finish(new Response(null, { status: 204 }), {
          ...ipStanding(),
          'Access-Control-Allow-Methods': 'GET, HEAD, POST',
          'Access-Control-Allow-Headers':
            'Authorization, Content-Type, Idempotency-Key, X-Request-Id',
          'Access-Control-Max-Age': '600',
        });
      }
      // Step 2, capacity: a fault a test asked for stands in for a busy or broken server.
      const fault = faults.next();
      if (fault?.kind === 'drop') return Response.error();
      if (fault?.kind === 'slow') await sleep(fault.delayMs);
      if (fault?.kind === 'unavailable') {
        const seconds = Math.max(1, Math.ceil(fault.retryAfterSeconds ?? 1));
        return finish(
          errorResponse('service_unavailable', 'The server is busy. Try again shortly.'),
          { ...ipStanding(), 'Retry-After': String(seconds) },
        );
      }

      // Step 3, the rate limit: per valid key, else per client IP; the documents per IP.
      const credential = credentialOf(request.headers);
      const isDocument = url.pathname === OPENAPI_PATH;
      const [subject, quota]: [string, Quota] =
        credential.kind === 'valid' && !isDocument
          ? [`key:${credential.key}`, credential.record.quota]
          : [ipSubject, ANONYMOUS_QUOTA];
      const admission = limiter.admit(subject, quota, nowMs);
      const standing = admission.headers;
      if (admission.outcome !== 'allowed') {
        const banned = admission.outcome === 'banned';
        return finish(
          errorResponse(
            banned ? 'temporarily_banned' : 'rate_limited',
            banned
              ? 'Too many requests over the limit: this client is banned for a while.'
              : 'Rate limit exceeded. Wait as Retry-After says, then back off exponentially.',
          ),
          { ...standing, 'Retry-After': retryAfterSeconds(admission.retryAfterMs ?? 1000) },
        );
      }

      // Step 4, the request head, as far as the transport could see it.
      if (connection.malformedHead !== undefined) {
        return finish(errorResponse('malformed_request', connection.malformedHead), standing);
      }

      // Step 5, routing.
      if (isDocument || PROBES.has(url.pathname)) {
        // Only GET and HEAD reach here for a probe: the others are answered 405 like the document's.
        if (method === 'GET' || method === 'HEAD')
          return finish(jsonResponse(200, document), standing);
        return finish(methodNotAllowed(method, ['GET', 'HEAD']), standing);
      }
      if (routing.kind === 'not-found') {
        return finish(errorResponse('not_found', 'There is nothing at this path.'), standing);
      }
      if (routing.kind === 'method-not-allowed') {
        return finish(methodNotAllowed(method, routing.allow), standing);
      }

      // Step 6, authentication.
      if (credential.kind !== 'valid') return finish(unauthorized(credential), standing);

      const answer = await runOperation(request, url, routing.match, {
        store,
        cursors,
        idempotency,
        nowMs,
        origin: publicOrigin ?? url.origin,
        apiKey: credential.key,
        sentBody: undefined,
      });
      return finish(answer, standing);
    } catch {
      // Nothing of what went wrong is told: the request id is what identifies it.
      return finish(
        errorResponse(
          'internal_error',
          'Something went wrong on our side. The request ID identifies it in our logs.',
        ),
        ipStanding(),
      );
    }
  }

  return {
    handle,
    async fetch(input, init) {
      const response = await handle(new Request(input, init));
      if (response.type === 'error')
        throw new TypeError('fetch failed: the mock dropped the connection');
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

/** Steps 7 to 9: the body, the validation of every part of the request, the operation. */
async function runOperation(
  request: Request,
  url: URL,
  { served, pathParams }: RouteMatch,
  context: OperationContext,
): Promise<Response> {
  const route = served.route as AppRoute;
  const implementation = (
    IMPLEMENTATIONS[served.resource] as unknown as Record<string, Implementation<AppRoute>>
  )[served.name];
  if (implementation === undefined) throw new Error(`no implementation of ${served.name}`);

  let sentBody: unknown;
  if ('body' in route) {
    const reading = await readJsonBody(request);
    if (!reading.ok) {
      return errorResponse(reading.refusal, REFUSAL_MESSAGES[reading.refusal]);
    }
    sentBody = reading.json;
  }

  // A path parameter that cannot be what it names finds nothing: 404, not 400.
  const params = checkWith(route.pathParams, pathParams);
  if (!params.ok) return errorResponse('not_found', 'There is nothing at this path.');

  const query = queryObject(url.searchParams);
  const checkedQuery = checkWith(route.query, query);
  const checkedHeaders = checkWith(route.headers, headerObject(request.headers));
  const checkedBody =
    'body' in route ? checkWith(route.body, sentBody) : { ok: true as const, value: undefined };
  const operationContext = { ...context, sentBody };
  const details = [
    ...(checkedQuery.ok ? [] : checkedQuery.details),
    ...((await implementation.check?.({ query }, operationContext)) ?? []),
    ...(checkedHeaders.ok ? [] : checkedHeaders.details),
    ...(checkedBody.ok ? [] : checkedBody.details),
  ];
  if (details.length > 0 || !checkedQuery.ok || !checkedHeaders.ok || !checkedBody.ok) {
    return validationFailed(details);
  }
  const answer: Answer<AppRoute> = await implementation.run(
    {
      params: params.value,
      query: checkedQuery.value,
      headers: checkedHeaders.value,
      body: checkedBody.value,
    } as never,
    operationContext,
  );
  return jsonResponse(answer.status, answer.body, answer.headers);
}

const REFUSAL_MESSAGES = {
  unsupported_media_type: 'Send the request body as JSON with Content-Type: application/json.',
  payload_too_large: 'The request body is larger than 16 KiB.',
  malformed_json: 'The request body could not be read as JSON.',
} as const;
