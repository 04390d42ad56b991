/**
 * What a method and path are for, from the served contract's operations and the mock's own
 * paths (the probes and the document), as the server routes them: paths are exact, a parameter
 * is one whole segment as sent, HEAD is answered wherever GET is, and a known path with another
 * method is 405 with the methods it allows.
 */
import {
  type DeprecationHeaders,
  declaresBody,
  deprecationHeaders,
  type RouteMetadata,
} from '@animal-store/contract';
import type { AppRoute } from '@ts-rest/core';
import type { ImplementedOperation } from './mocked-api.js';

/** An operation of the contract as the mock serves it. */
export interface OperationEndpoint extends ImplementedOperation {
  readonly kind: 'operation';
  readonly method: string;
  readonly path: string;
  /** Whether the route declares a request body, which is then read as JSON first. */
  readonly takesBody: boolean;
  /** What every answer of it carries, errors included, when the route is deprecated. */
  readonly deprecationHeaders: DeprecationHeaders | undefined;
}

/** A path of the mock's own, answered on GET and HEAD: a probe or the OpenAPI document. */
export interface SiteEndpoint {
  readonly kind: 'probe' | 'document';
  readonly method: 'GET';
  readonly path: string;
}

export type Endpoint = OperationEndpoint | SiteEndpoint;

/** What a request is for: an endpoint and its path's parameters as sent, or why nothing. */
export type Routing =
  | { readonly kind: 'endpoint'; readonly endpoint: Endpoint; readonly params: PathParams }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'method-not-allowed'; readonly allow: string };

/** A path's segment parameters, by name, as sent (`{ petId: '42' }`): never percent-decoded. */
export type PathParams = Readonly<Record<string, string>>;

function deprecationOf(route: AppRoute): DeprecationHeaders | undefined {
  const { deprecation } = (route.metadata ?? {}) as Partial<RouteMetadata>;
  return deprecation && deprecationHeaders(deprecation);
}

export function operationEndpoint(operation: ImplementedOperation): OperationEndpoint {
  return {
    ...operation,
    kind: 'operation',
    method: operation.route.method,
    path: operation.route.path,
    takesBody: declaresBody(operation.route),
    deprecationHeaders: deprecationOf(operation.route),
  };
}

/** One path and what each method on it is for. */
interface PathEntry {
  readonly pattern: RegExp;
  readonly parameters: readonly string[];
  readonly byMethod: ReadonlyMap<string, Endpoint>;
  readonly allow: string;
}

/** `/v1/pets/:petId` → a pattern matching a path exactly, a parameter one whole segment. */
function pathEntry(path: string, endpoints: readonly Endpoint[]): PathEntry {
  const parameters: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameters.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  const byMethod = new Map(endpoints.map((endpoint) => [endpoint.method, endpoint]));
  const methods = [...byMethod.keys(), ...(byMethod.has('GET') ? ['HEAD'] : [])].sort();
  return { pattern: new RegExp(`^${source}$`), parameters, byMethod, allow: methods.join(', ') };
}

/**
 * The router of `endpoints`. Paths without parameters are tried first, then the others in the
 * order given; the first path that matches decides. Two endpoints on one method and path are
 * refused here.
 */
export function createRouter(
  endpoints: readonly Endpoint[],
): (method: string, path: string) => Routing {
  const byPath = new Map<string, Endpoint[]>();
  for (const endpoint of endpoints) {
    const onPath = byPath.get(endpoint.path) ?? [];
    if (onPath.some(({ method }) => method === endpoint.method)) {
      throw new Error(`Two endpoints answer ${endpoint.method} ${endpoint.path}`);
    }
    byPath.set(endpoint.path, [...onPath, endpoint]);
  }
  const entries = [...byPath]
    .sort(([a], [b]) => Number(a.includes('/:')) - Number(b.includes('/:')))
    .map(([path, onPath]) => pathEntry(path, onPath));

  return (method, path) => {
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const entry of entries) {
      const found = entry.pattern.exec(path);
      if (!found) continue;
      const endpoint = entry.byMethod.get(wanted);
      if (endpoint === undefined) return { kind: 'method-not-allowed', allow: entry.allow };
      const params = Object.fromEntries(
        entry.parameters.map((name, index) => [name, found[index + 1] as string]),
      );
      return { kind: 'endpoint', endpoint, params };
    }
    return { kind: 'not-found' };
  };
}
