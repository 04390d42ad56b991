import { contract } from '@animal-store/contract';
import { DOCS_ASSET_PATHS, DOCS_PATH, OPENAPI_PATH } from '../operations/api-docs.js';
import { HEALTH_PATH, READY_PATH } from '../operations/health.js';

/** The operations of the contract, by name: `listPets`, `createPet`, `getPet`. */
export type OperationName = keyof typeof contract.pets;

export type ProbeName = 'healthz' | 'readyz';
export type DocumentName = 'openapi' | 'docs' | 'docsAsset';

/** A path's segment parameters, by name, as sent (`{ petId: '42' }`). */
export type PathParams = Record<string, string>;

/**
 * What a request is for, found once from its method and path: an operation of the contract, a
 * health probe, a document, a CORS preflight, or nothing this server serves (with why).
 */
export type RequestTarget =
  | { kind: 'operation'; name: OperationName; params: PathParams; route: RouteTemplate }
  | { kind: 'probe'; name: ProbeName; route: RouteTemplate }
  | { kind: 'document'; name: DocumentName; params: PathParams; route: RouteTemplate }
  | { kind: 'preflight' }
  | { kind: 'wrong-method'; allow: string }
  | { kind: 'unknown-path' };

/**
 * A path as its route declares it, parameters in braces as OpenAPI writes them
 * (`/v1/pets/{petId}`): what traces name a request by, never the path as sent.
 */
export type RouteTemplate = string;

type RoutedTarget = Exclude<RequestTarget, { kind: 'preflight' | 'wrong-method' | 'unknown-path' }>;

interface Route {
  method: string;
  /** Express-style path, `:name` for a segment parameter. */
  path: string;
  target: (params: PathParams) => RoutedTarget;
}

function templateOf(path: string): RouteTemplate {
  return path.replace(/:(\w+)/g, '{$1}');
}

const OPERATION_ROUTES: Route[] = (Object.keys(contract.pets) as OperationName[]).map((name) => {
  const { method, path } = contract.pets[name];
  const route = templateOf(path);
  return { method, path, target: (params) => ({ kind: 'operation', name, params, route }) };
});

function probeRoute(path: string, name: ProbeName): Route {
  const route = templateOf(path);
  return { method: 'GET', path, target: () => ({ kind: 'probe', name, route }) };
}

function documentRoute(path: string, name: DocumentName): Route {
  const route = templateOf(path);
  return { method: 'GET', path, target: (params) => ({ kind: 'document', name, params, route }) };
}

const SITE_ROUTES: Route[] = [
  probeRoute(HEALTH_PATH, 'healthz'),
  probeRoute(READY_PATH, 'readyz'),
  documentRoute(OPENAPI_PATH, 'openapi'),
  documentRoute(DOCS_PATH, 'docs'),
  ...DOCS_ASSET_PATHS.map((path) => documentRoute(path, 'docsAsset')),
];

/** Every method-and-path the server answers. */
export const ROUTES: readonly Route[] = [...OPERATION_ROUTES, ...SITE_ROUTES];

/** One path and what each method on it is for. */
interface PathEntry {
  parameterNames: string[];
  /** Matches the path exactly, capturing each parameter's raw segment; none for a static path. */
  pattern?: RegExp;
  byMethod: Map<string, Route['target']>;
  wrongMethod: RequestTarget;
}

const UNKNOWN_PATH: RequestTarget = { kind: 'unknown-path' };

function pathEntry(path: string, routes: Route[]): PathEntry {
  const parameterNames: string[] = [];
  const pattern = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameterNames.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  // A path without parameters has one target per method: made once, shared by its requests.
  const byMethod = new Map(
    routes.map((route): [string, Route['target']] => {
      if (parameterNames.length > 0) return [route.method, route.target];
      const target = route.target({});
      return [route.method, () => target];
    }),
  );
  // Express answers HEAD with the GET handler.
  const allowed = [...byMethod.keys(), ...(byMethod.has('GET') ? ['HEAD'] : [])].sort();
  return {
    parameterNames,
    pattern: parameterNames.length > 0 ? new RegExp(`^${pattern}$`) : undefined,
    byMethod,
    wrongMethod: { kind: 'wrong-method', allow: allowed.join(', ') },
  };
}

/**
 * Resolves a method and path to what the request is for, once per request. Static paths are
 * one map look-up; paths with parameters are tried in turn. Paths are exact: case-sensitive, and
 * a trailing slash is another path.
 */
export function createRouteResolver(routes: readonly Route[] = ROUTES) {
  const paths = [...new Set(routes.map((route) => route.path))];
  const entries = paths.map(
    (path) =>
      [
        path,
        pathEntry(
          path,
          routes.filter((route) => route.path === path),
        ),
      ] as const,
  );
  const staticPaths = new Map(entries.filter(([, entry]) => !entry.pattern));
  const parameterPaths = entries.map(([, entry]) => entry).filter((entry) => entry.pattern);

  function match(path: string): { entry: PathEntry; params: PathParams } | undefined {
    const exact = staticPaths.get(path);
    if (exact) return { entry: exact, params: {} };
    for (const entry of parameterPaths) {
      const found = entry.pattern?.exec(path);
      if (!found) continue;
      const params: PathParams = {};
      entry.parameterNames.forEach((name, index) => {
        // As sent, not percent-decoded: paths have no aliases, and the one parameter there is,
        // a pet's id, is canonical digits (`/v1/pets/%31` is no more pet 1 than `/v1/%70ets`
        // is `/v1/pets`).
        params[name] = found[index + 1] as string;
      });
      return { entry, params };
    }
    return undefined;
  }

  return (method: string, path: string): RequestTarget => {
    const found = match(path);
    if (!found) return UNKNOWN_PATH;
    const target = found.entry.byMethod.get(method === 'HEAD' ? 'GET' : method);
    return target ? target(found.params) : found.entry.wrongMethod;
  };
}

export type RouteResolver = ReturnType<typeof createRouteResolver>;

/** What a request was for, as metrics label it: an operation, a probe, a document, or unmatched. */
export type TargetLabel =
  | OperationName
  | ProbeName
  | 'openapi'
  | 'docs'
  | 'preflight'
  | 'unmatched';

export function labelOf(target: RequestTarget): TargetLabel {
  switch (target.kind) {
    case 'operation':
    case 'probe':
      return target.name;
    case 'document':
      return target.name === 'openapi' ? 'openapi' : 'docs';
    case 'preflight':
      return 'preflight';
    default:
      return 'unmatched';
  }
}
