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

/** Prisma's "cannot reach / lost the database" codes, and the socket errors under them. */
const DATABASE_UNAVAILABLE_CODES = new Set([
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: a statement ran past statement_timeout; the server is shutting down, was told
  // to end this backend, or is starting up.
  '57014',
  '57P01',
  '57P02',
  '57P03',
]);
/**
 * Driver-adapter error kinds for the same conditions. A table that does not exist means the
 * database under the server was replaced or emptied: a fault of the deployment, not a bug.
 */
const DATABASE_UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TableDoesNotExist',
]);
/**
 * SQLite's primary result codes for a file that cannot serve: no permission, read-only,
 * out of memory, I/O error, corrupt, disk full, cannot open, lock protocol, not a database.
 */
const SQLITE_FAULT_CODES = new Set([3, 7, 8, 10, 11, 13, 14, 15, 26]);

function isSqliteFault(kind: unknown, extendedCode: unknown): boolean {
  // SQLite's extended codes carry the primary code in their low byte.
  return (
    kind === 'sqlite' &&
    typeof extendedCode === 'number' &&
    SQLITE_FAULT_CODES.has(extendedCode & 0xff)
  );
}
/** node-postgres reports a dropped connection, and its own deadlines, only in its message. */
const CONNECTION_LOST =
  /Connection terminated|Connection ended|timeout exceeded when trying to connect|Query read timeout|not queryable/i;

/**
 * Whether `error`, or anything under it (its `cause` chain, the driver-adapter error Prisma
 * keeps in `meta`), says the database cannot be reached or cannot serve.
 */
function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== 'object') return false;
    const { code, name, kind, extendedCode, message, cause, meta } = current as Record<
      string,
      unknown
    >;
    if (
      typeof code === 'string' &&
      (DATABASE_UNAVAILABLE_CODES.has(code) || code.startsWith('08'))
    ) {
      return true;
    }
    if (typeof kind === 'string' && DATABASE_UNAVAILABLE_KINDS.has(kind)) return true;
    if (isSqliteFault(kind, extendedCode)) return true;
    if (name === 'PrismaClientInitializationError') return true;
    if (typeof message === 'string' && CONNECTION_LOST.test(message)) return true;
    current = cause ?? (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  }
  return false;
}

/** Turns anything thrown in the pipeline into the ApiError the client sees. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RequestValidationError) return fromValidationError(error);
  if (error instanceof URIError)
    return new ApiError('not_found', 'No resource exists at this path.');
  if (isDatabaseUnavailable(error)) {
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
