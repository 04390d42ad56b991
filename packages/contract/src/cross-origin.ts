import type { AppRouter } from '@ts-rest/core';
import { operationsOf } from './operations.js';
import type { RouteMetadata } from './route-metadata.js';

/** The headers every answer may carry whatever its operation: a page on another origin reads them. */
const PIPELINE_RESPONSE_HEADERS = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Link',
];

/** The request headers any operation reads besides those its route declares. */
const PIPELINE_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'X-Request-Id'];

/** `idempotency-key` as HTTP documents write it, `Idempotency-Key`. */
const headerCase = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

/** The names of the headers a route's request declares (a zod object, or ts-rest's plain one). */
function declaredRequestHeaders(headers: unknown): string[] {
  if (!headers) return [];
  const { shape } = headers as { shape?: object };
  return Object.keys(shape ?? headers);
}

/** The headers a route's success responses document (its `RouteMetadata`): `Location`, say. */
function documentedResponseHeaders(metadata: unknown): string[] {
  const { responses = {} } = (metadata ?? {}) as Partial<RouteMetadata>;
  return Object.values(responses).flatMap(({ headers }) => Object.keys(headers ?? {}));
}

/** What a page on an allowed origin may do with an API: the CORS answer's three lists. */
export interface CrossOriginRules {
  /** Each operation's method, and `HEAD` wherever `GET` is. */
  readonly methods: readonly string[];
  /** The headers every operation reads, and those the routes declare. */
  readonly allowedHeaders: readonly string[];
  /** The headers every answer may carry, and those the routes' responses document. */
  readonly exposedHeaders: readonly string[];
}

/**
 * What pages on allowed origins may do with `contract`'s operations, derived from it so that an
 * operation the contract gains is callable across origins by every implementation at once.
 */
export function crossOriginRulesOf(contract: AppRouter): CrossOriginRules {
  const routes = operationsOf(contract).map(({ route }) => route);
  const methods = new Set<string>(routes.map(({ method }) => method));
  if (methods.has('GET')) methods.add('HEAD');
  const distinct = (names: string[]) => [...new Set(names.map(headerCase))];
  return {
    methods: [...methods].sort(),
    allowedHeaders: distinct([
      ...PIPELINE_REQUEST_HEADERS,
      ...routes.flatMap((route) => declaredRequestHeaders(route.headers)),
    ]),
    exposedHeaders: distinct([
      ...PIPELINE_RESPONSE_HEADERS,
      ...routes.flatMap((route) => documentedResponseHeaders(route.metadata)),
    ]),
  };
}
