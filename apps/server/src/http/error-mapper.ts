import { isDatabaseFault, isRecordNotFound } from '@animal-store/db';
import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler } from 'express';
import type { ZodError } from 'zod';
import type { Logger } from '../logger.js';
import { ApiError } from './api-error.js';

type RequestPart = 'pathParams' | 'headers' | 'query' | 'body';

const PART_NAMES: Record<RequestPart, string> = {
  pathParams: 'path',
  headers: 'headers',
  query: 'query',
  body: 'body',
};

/**
 * Field path of a zod issue inside its request part: `name`, `limit`, `idempotency-key`.
 * An issue about the part as a whole (an empty or non-object body) is reported under the part's
 * name; an unknown field under its own, even an empty one (`{"": 1}` has a field named "").
 */
function detailsOf(part: RequestPart, error: ZodError) {
  const details = new Map<string, string>();
  for (const issue of error.issues) {
    const fields =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => [...issue.path, key].join('.'))
        : [issue.path.length === 0 ? PART_NAMES[part] : issue.path.join('.')];
    for (const field of fields) {
      if (!details.has(field)) details.set(field, issue.message);
    }
  }
  return [...details].map(([path, message]) => ({ path, message }));
}

function fromValidationError(error: RequestValidationError): ApiError {
  // A path that names no possible resource is a resource that does not exist.
  if (error.pathParams) return new ApiError('not_found', 'No resource exists at this path.');
  const parts: RequestPart[] = ['headers', 'query', 'body'];
  const details = parts.flatMap((part) => {
    const partError = error[part];
    return partError ? detailsOf(part, partError) : [];
  });
  const fields = details.map((detail) => detail.path).join(', ');
  return new ApiError('validation_failed', `The request is invalid: ${fields}.`, { details });
}

/** Turns anything thrown in the pipeline into the ApiError the client sees. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RequestValidationError) return fromValidationError(error);
  // A record a statement required is missing (an update of a pet that is not there): the
  // resource the request names does not exist.
  if (error instanceof URIError || isRecordNotFound(error)) {
    return new ApiError('not_found', 'No resource exists at this path.');
  }
  if (isDatabaseFault(error)) {
    return new ApiError(
      'service_unavailable',
      'The service cannot reach its database. Try again shortly.',
    );
  }
  return toInternalError();
}

function toInternalError(): ApiError {
  return new ApiError(
    'internal_error',
    'Something went wrong on our side. The request ID identifies it in our logs.',
  );
}

/** The one final error middleware: every failure leaves as an Error body, nothing internal leaks. */
export function errorMapper(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      // A trace shows every 5xx as failed, as its status does. The log keeps error lines for
      // what went wrong: an ApiError is an answer the server chose (/readyz while draining or
      // without its database), which the request's own log line already says.
      res.locals.context?.trace.failed(error);
      if (!(error instanceof ApiError)) {
        logger.error({ err: error, reqId: res.locals.context?.requestId }, 'request failed');
      }
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.set(apiError.headers).status(apiError.status).json(apiError.toBody());
  };
}
