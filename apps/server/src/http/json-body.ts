import { isUtf8 } from 'node:buffer';
import express, { type Request, type RequestHandler } from 'express';
import { ApiError } from './api-error.js';
import { MAX_BODY_BYTES } from './limits.js';

const parseJson = express.json({
  limit: MAX_BODY_BYTES,
  // Any JSON value parses; whether it is an acceptable body is the contract's call.
  strict: false,
  type: 'application/json',
  verify: (_req, _res, bytes) => {
    if (!isUtf8(bytes))
      throw new ApiError('malformed_json', 'The request body is not valid UTF-8.');
  },
});

/** `Content-Length: 0` announces an empty body, which needs no media type. */
function hasNonEmptyBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  );
}

/** Parses a JSON body, refusing any non-empty body that is not declared `application/json`. */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!hasNonEmptyBody(req)) return next();
  if (!req.is('application/json')) {
    return next(
      new ApiError(
        'unsupported_media_type',
        'Send the request body as JSON with Content-Type: application/json.',
      ),
    );
  }
  parseJson(req, res, next);
};
