import type { RequestHandler } from 'express';
import { ApiError } from '../http/api-error.js';
import { callerOf } from './caller.js';

const REALM = 'Bearer realm="animal-store"';

/** Lets through only requests that carry a valid API key; runs after routing, before validation. */
export const requireApiKey: RequestHandler = (_req, res, next) => {
  const caller = callerOf(res.locals);
  if (caller.kind === 'key') return next();
  if (caller.kind === 'unresolved') return next(caller.error);
  const sent = caller.credential === 'invalid';
  next(
    new ApiError(
      'unauthorized',
      sent
        ? 'The API key is not valid: send Authorization: Bearer <API key> with an active key.'
        : 'An API key is required: send Authorization: Bearer <API key>.',
      { headers: { 'WWW-Authenticate': sent ? `${REALM}, error="invalid_token"` : REALM } },
    ),
  );
};
