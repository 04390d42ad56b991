import { ERROR_MESSAGES } from '@animal-store/contract';
import type { Request, RequestHandler } from 'express';
import { ApiError } from './api-error.js';
import { contextOf } from './request-context.js';

/** The answer to a path no route serves. */
export function routeNotFound(req: Request): ApiError {
  return new ApiError(ERROR_MESSAGES.noRoute(req.path));
}

/**
 * Answers unknown paths with 404 and known paths with a wrong method with 405 (and `Allow`),
 * before authentication runs, as the interface's order of checks requires.
 */
export const routeGuard: RequestHandler = (req, res, next) => {
  const { target } = contextOf(res);
  if (target.kind === 'unknown-path') return next(routeNotFound(req));
  if (target.kind === 'wrong-method') {
    return next(
      new ApiError(ERROR_MESSAGES.methodNotAllowed(req.method, req.path, target.allow), {
        headers: { Allow: target.allow },
      }),
    );
  }
  next();
};
