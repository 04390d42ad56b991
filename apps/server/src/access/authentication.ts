import { ERROR_MESSAGES } from '@animal-store/contract';
import type { RequestHandler } from 'express';
import { ApiError } from '../http/api-error.js';
import { contextOf } from '../http/request-context.js';

const REALM = 'Bearer realm="animal-store"';

/**
 * Lets through to an operation only requests that carry a valid API key; runs after routing,
 * before validation. Probes and documents need none.
 */
export const requireApiKey: RequestHandler = (_req, res, next) => {
  const { target, caller } = contextOf(res);
  if (target.kind !== 'operation' || caller.kind === 'key') return next();
  if (caller.kind === 'unresolved') return next(caller.error);
  const sent = caller.credential === 'invalid';
  next(
    new ApiError(sent ? ERROR_MESSAGES.keyNotValid : ERROR_MESSAGES.keyRequired, {
      headers: { 'WWW-Authenticate': sent ? `${REALM}, error="invalid_token"` : REALM },
    }),
  );
};
