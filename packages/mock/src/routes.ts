/**
 * The contract's routes as the mock serves them: walked rather than listed, so that an operation
 * the contract gains is routed (and answers 404/405 with the right `Allow`) in the same release.
 */
import {
  type Contract,
  contract,
  type DeprecationHeaders,
  deprecationHeadersOf,
  type RouteMetadata,
} from '@animal-store/contract';
import { type AppRoute, isAppRoute } from '@ts-rest/core';

type Resource = Contract[keyof Contract];
/** An operation of the contract, e.g. `petsContract.getPet`. */
export type Operation = Resource[keyof Resource];

export interface ServedRoute {
  /** Its resource's name in the contract (`pets`) and its own (`getPet`). */
  readonly resource: keyof Contract;
  readonly name: string;
  readonly route: Operation & AppRoute;
  /** The headers every response of it carries because it is deprecated. */
  readonly deprecationHeaders: DeprecationHeaders | undefined;
  readonly pattern: RegExp;
  /** The names of its path parameters, in order (`petId`). */
  readonly parameters: readonly string[];
}

/** `/v1/pets/:petId` → a pattern that matches a path exactly, a parameter one whole segment. */
function patternOf(path: string): { pattern: RegExp; parameters: string[] } {
  const parameters: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameters.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), parameters };
}

export const SERVED_ROUTES: readonly ServedRoute[] = (
  Object.entries(contract) as [keyof Contract, Resource][]
).flatMap(([resource, routes]) =>
  Object.entries(routes)
    .filter(([, route]) => isAppRoute(route as AppRoute))
    .map(([name, route]) => ({
      resource,
      name,
      route: route as Operation & AppRoute,
      deprecationHeaders: deprecationHeadersOf(route as { metadata: RouteMetadata }),
      ...patternOf((route as AppRoute).path),
    })),
);

export interface RouteMatch {
  readonly served: ServedRoute;
  /** The path parameters as sent, not decoded: an id is its digits as sent. */
  readonly pathParams: Record<string, string>;
}

/** What a path and method come to: the operation, or the methods the path allows (none: 404). */
export type Routing =
  | { readonly kind: 'operation'; readonly match: RouteMatch }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] };

export function routeOf(method: string, path: string): Routing {
  const matches = SERVED_ROUTES.flatMap((served) => {
    const found = served.pattern.exec(path);
    if (!found) return [];
    const pathParams = Object.fromEntries(
      served.parameters.map((name, index) => [name, found[index + 1] as string]),
    );
    return [{ served, pathParams }];
  });
  if (matches.length === 0) return { kind: 'not-found' };
  // HEAD is answered wherever GET is (docs/interface.md, "Conventions").
  const wanted = method === 'HEAD' ? 'GET' : method;
  const match = matches.find(({ served }) => served.route.method === wanted);
  if (match) return { kind: 'operation', match };
  const allow = new Set(matches.map(({ served }) => served.route.method as string));
  if (allow.has('GET')) allow.add('HEAD');
  return { kind: 'method-not-allowed', allow: [...allow].sort() };
}
