import { ERROR_MESSAGES } from '@animal-store/contract';
import { isDatabaseFault, isRecordNotFound } from '@animal-store/db';
import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler } from 'express';
import type { ZodError } from 'zod';
import type { Logger } from '../logger.js';
import { ApiError } from './api-error.js';
import type { PathParams } from './routes.js';

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

/** What a 404 names of the request: its path, and its route's parameters as sent. */
interface NotFoundTarget {
  readonly path: string;
  readonly params: PathParams;
}

/**
 * The 404 of a request whose path names no resource: the first of its route's parameters names
 * the resource (`petId`: `No pet has id 42.`), as the route's handler says of an id no record has.
 */
function noSuchResource({ path, params }: NotFoundTarget): ApiError {
  const [parameter] = Object.entries(params);
  return new ApiError(
    parameter ? ERROR_MESSAGES.noSuchResource(...parameter) : ERROR_MESSAGES.noRoute(path),
  );
}

function fromValidationError(error: RequestValidationError, target: NotFoundTarget): ApiError {
  // A path that names no possible resource is a resource that does not exist.
  if (error.pathParams) return noSuchResource(target);
  const parts: RequestPart[] = ['headers', 'query', 'body'];
  const details = parts.flatMap((part) => {
    const partError = error[part];
    return partError ? detailsOf(part, partError) : [];
  });
  const fields = details.map((detail) => detail.path);
  return new ApiError(ERROR_MESSAGES.invalidFields(fields), { details });
}

/** Turns anything thrown in the pipeline into the ApiError the client sees. */
export function toApiError(error: unknown, target: NotFoundTarget): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RequestValidationError) return fromValidationError(error, target);
  // A record a statement required is missing (an update of a pet that is not there): the
  // resource the request names does not exist.
  if (error instanceof URIError || isRecordNotFound(error)) return noSuchResource(target);
  if (isDatabaseFault(error)) return new ApiError(ERROR_MESSAGES.databaseUnreachable);
  return toInternalError();
}

function toInternalError(): ApiError {
  return new ApiError(ERROR_MESSAGES.internal);
}

/** The one final error middleware: every failure leaves as an Error body, nothing internal leaks. */
export function errorMapper(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const target = res.locals.context?.target;
    const params = target && 'params' in target ? target.params : {};
    const apiError = toApiError(error, { path: req.path, params });
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
