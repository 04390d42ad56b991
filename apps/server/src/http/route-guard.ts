import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';

export interface KnownRoute {
  method: string;
  /** Express-style path, `:name` for a segment parameter. */
  path: string;
}

interface PathMethods {
  pattern: RegExp;
  allowed: Set<string>;
}

/** The pattern Express-style `path` matches, `:name` standing for one segment (trailing slash allowed). */
export function pathPattern(path: string): RegExp {
  const segments = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}/?$`);
}

function groupByPath(routes: readonly KnownRoute[]): PathMethods[] {
  const byPath = new Map<string, Set<string>>();
  for (const { method, path } of routes) {
    const allowed = byPath.get(path) ?? new Set<string>();
    allowed.add(method);
    if (method === 'GET') allowed.add('HEAD');
    byPath.set(path, allowed);
  }
  return [...byPath].map(([path, allowed]) => ({ pattern: pathPattern(path), allowed }));
}

/**
 * Answers unknown paths with 404 and known paths with a wrong method with 405 (and `Allow`),
 * before authentication runs, as the interface's order of checks requires.
 */
export function routeGuard(routes: readonly KnownRoute[]): RequestHandler {
  const paths = groupByPath(routes);
  return (req, _res, next) => {
    const known = paths.find(({ pattern }) => pattern.test(req.path));
    if (!known) {
      next(new ApiError('not_found', `No route matches ${req.path}.`));
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
