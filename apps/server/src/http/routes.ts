import type { DeprecationHeaders } from '@animal-store/contract';
import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';

/** A path's segment parameters, by name, as sent (`{ petId: '42' }`). */
export type PathParams = Record<string, string>;

/**
 * A path as its route declares it, parameters in braces as OpenAPI writes them
 * (`/v1/pets/{petId}`): what traces name a request by, never the path as sent.
 */
export type RouteTemplate = string;

/**
 * One method on one path, and what answers it: an operation of the contract, a health probe or
 * a document. Each is made once, at start; every request for it reads it from its context.
 */
interface EndpointOf<Kind extends string> {
  readonly kind: Kind;
  readonly method: string;
  /** Express-style path, `:name` for a segment parameter. */
  readonly path: string;
  readonly template: RouteTemplate;
  /** What the request is for, as metrics and traces label it: `getPet`, `readyz`, `docs`. */
  readonly label: string;
  readonly handle: RequestHandler;
}

export interface OperationEndpoint extends EndpointOf<'operation'> {
  /** The contract's route, as ts-rest declares it. */
  readonly route: AppRoute;
  /** Whether the route declares a request body, which the pipeline then reads first. */
  readonly takesBody: boolean;
  /** What every response carries, errors included, when the route is deprecated. */
  readonly deprecationHeaders: DeprecationHeaders | undefined;
}

export type ProbeEndpoint = EndpointOf<'probe'>;
export type DocumentEndpoint = EndpointOf<'document'>;
export type Endpoint = OperationEndpoint | ProbeEndpoint | DocumentEndpoint;

/** `/v1/pets/:petId` as a template, `/v1/pets/{petId}`. */
export function templateOf(path: string): RouteTemplate {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** A probe's or a document's endpoint, on `GET` (and so `HEAD`). */
export function siteEndpoint<Kind extends 'probe' | 'document'>(
  kind: Kind,
  path: string,
  label: string,
  handle: RequestHandler,
): EndpointOf<Kind> {
  return { kind, method: 'GET', path, template: templateOf(path), label, handle };
}

/** A request for an endpoint: which one, and its path's parameters. */
export type RoutedTarget =
  | {
      readonly kind: 'operation';
      readonly endpoint: OperationEndpoint;
      readonly params: PathParams;
    }
  | { readonly kind: 'probe'; readonly endpoint: ProbeEndpoint; readonly params: PathParams }
  | { readonly kind: 'document'; readonly endpoint: DocumentEndpoint; readonly params: PathParams };

/**
 * What a request is for, found once from its method and path: an endpoint, a CORS preflight,
 * or nothing this server serves (with why).
 */
export type RequestTarget =
  | RoutedTarget
  | { readonly kind: 'preflight' }
  | { readonly kind: 'wrong-method'; readonly allow: string }
  | { readonly kind: 'unknown-path' };

function targetOf(endpoint: Endpoint, params: PathParams): RoutedTarget {
  return { kind: endpoint.kind, endpoint, params } as RoutedTarget;
}

/** One path and what each method on it is for. */
interface PathEntry {
  parameterNames: string[];
  /** Matches the path exactly, capturing each parameter's raw segment; none for a static path. */
  pattern?: RegExp;
  byMethod: Map<string, Endpoint>;
  /** A static path's target per method, made once and shared by its requests. */
  staticTargets: Map<string, RoutedTarget>;
  wrongMethod: RequestTarget;
}

const UNKNOWN_PATH: RequestTarget = { kind: 'unknown-path' };
const NO_PARAMS: PathParams = Object.freeze({});

function pathEntry(path: string, endpoints: Endpoint[]): PathEntry {
  const parameterNames: string[] = [];
  const pattern = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameterNames.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  const byMethod = new Map(endpoints.map((endpoint) => [endpoint.method, endpoint]));
  const staticTargets = new Map(
    parameterNames.length > 0
      ? []
      : endpoints.map((endpoint) => [endpoint.method, targetOf(endpoint, NO_PARAMS)]),
  );
  // Express answers HEAD with the GET handler.
  const allowed = [...byMethod.keys(), ...(byMethod.has('GET') ? ['HEAD'] : [])].sort();
  return {
    parameterNames,
    pattern: parameterNames.length > 0 ? new RegExp(`^${pattern}$`) : undefined,
    byMethod,
    staticTargets,
    wrongMethod: { kind: 'wrong-method', allow: allowed.join(', ') },
  };
}

/**
 * Resolves a method and path to what the request is for, once per request. Static paths are
 * one map look-up; paths with parameters are tried in turn. Paths are exact: case-sensitive, and
 * a trailing slash is another path. Two endpoints on one method and path are refused at start.
 */
export function createRouteResolver(endpoints: readonly Endpoint[]) {
  const byPath = new Map<string, Endpoint[]>();
  for (const endpoint of endpoints) {
    const onPath = byPath.get(endpoint.path) ?? [];
    if (onPath.some(({ method }) => method === endpoint.method)) {
      throw new Error(`Two endpoints answer ${endpoint.method} ${endpoint.path}`);
    }
    byPath.set(endpoint.path, [...onPath, endpoint]);
  }
  const entries = [...byPath].map(([path, onPath]) => [path, pathEntry(path, onPath)] as const);
  const staticPaths = new Map(entries.filter(([, entry]) => !entry.pattern));
  const parameterPaths = entries.map(([, entry]) => entry).filter((entry) => entry.pattern);

  function parametersOf(entry: PathEntry, found: RegExpExecArray): PathParams {
    const params: PathParams = {};
    entry.parameterNames.forEach((name, index) => {
      // As sent, not percent-decoded: paths have no aliases, and a path parameter is validated
      // as sent (`/v1/pets/%31` is no more pet 1 than `/v1/%70ets` is `/v1/pets`).
      params[name] = found[index + 1] as string;
    });
    return params;
  }

  return (method: string, path: string): RequestTarget => {
    const asMethod = method === 'HEAD' ? 'GET' : method;
    const exact = staticPaths.get(path);
    if (exact) return exact.staticTargets.get(asMethod) ?? exact.wrongMethod;
    for (const entry of parameterPaths) {
      const found = entry.pattern?.exec(path);
      if (!found) continue;
      const endpoint = entry.byMethod.get(asMethod);
      return endpoint ? targetOf(endpoint, parametersOf(entry, found)) : entry.wrongMethod;
    }
    return UNKNOWN_PATH;
  };
}

export type RouteResolver = ReturnType<typeof createRouteResolver>;

/** What a request was for, as metrics label it: an endpoint's label, a preflight, or unmatched. */
export function labelOf(target: RequestTarget): string {
  if ('endpoint' in target) return target.endpoint.label;
  return target.kind === 'preflight' ? 'preflight' : 'unmatched';
}
