import type { Request, RequestHandler } from 'express';
import { ApiError } from './api-error.js';

export interface KnownRoute {
  method: string;
  /** Express-style path, `:name` for a segment parameter. */
  path: string;
}

/** The pattern an Express-style `path` matches exactly, `:name` standing for one segment. */
export function pathPattern(path: string): RegExp {
  const segments = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}$`);
}

interface PathMethods {
  pattern: RegExp;
  allowed: Set<string>;
}

function groupByPath(routes: readonly KnownRoute[]): PathMethods[] {
  const byPath = new Map<string, Set<string>>();
  for (const { method, path } of routes) {
    const allowed = byPath.get(path) ?? new Set<string>();
    allowed.add(method);
    // Express answers HEAD with the GET handler.
    if (method === 'GET') allowed.add('HEAD');
    byPath.set(path, allowed);
  }
  return [...byPath].map(([path, allowed]) => ({ pattern: pathPattern(path), allowed }));
}

function matcher(routes: readonly KnownRoute[]): (req: Request) => PathMethods | undefined {
  const paths = groupByPath(routes);
  return (req) => paths.find(({ pattern }) => pattern.test(req.path));
}

/** Whether a request is for one of `routes`, method included. */
export function routeMatcher(routes: readonly KnownRoute[]): (req: Request) => boolean {
  const match = matcher(routes);
  return (req) => match(req)?.allowed.has(req.method) ?? false;
}

/**
 * Which of `routes` a request is for, by name, method included (HEAD counts as GET), or
 * undefined for none.
 */
export function routeNamer<Name extends string>(
  routes: ReadonlyArray<readonly [Name, KnownRoute]>,
): (req: Request) => Name | undefined {
  const named = routes.map(([name, { method, path }]) => ({
    name,
    method,
    pattern: pathPattern(path),
  }));
  return (req) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return named.find((route) => route.method === method && route.pattern.test(req.path))?.name;
  };
}

/** The answer to a path no route serves. */
export function routeNotFound(req: Request): ApiError {
  return new ApiError('not_found', `No route matches ${req.path}.`);
}

/**
 * Answers unknown paths with 404 and known paths with a wrong method with 405 (and `Allow`),
 * before authentication runs, as the interface's order of checks requires.
 */
export function routeGuard(routes: readonly KnownRoute[]): RequestHandler {
  const match = matcher(routes);
  return (req, _res, next) => {
    const known = match(req);
    if (!known) {
      next(routeNotFound(req));
    } else if (!known.allowed.has(req.method)) {
      const allow = [...known.allowed].sort().join(', ');
      next(
        new ApiError(
          'method_not_allowed',
          `${req.method} is not allowed on ${req.path}; use ${allow}.`,
          {
            headers: { Allow: allow },
          },
        ),
      );
    } else {
      next();
    }
  };
}

/**
 * Runs `handler` only for requests to one of `routes`. Matched by hand rather than mounted as
 * an Express route, which would fail on an undecodable path parameter before running.
 */
export function onlyOn(routes: readonly KnownRoute[], handler: RequestHandler): RequestHandler {
  const matches = routeMatcher(routes);
  return (req, res, next) => (matches(req) ? handler(req, res, next) : next());
}
