import { ERROR_STATUS, type ErrorCode, type ErrorDetail, type ErrorExample } from './errors.js';

/** An error the service answers: its code, and what it says to the person reading the body. */
export interface ErrorMessage<Code extends ErrorCode = ErrorCode> {
  readonly code: Code;
  readonly message: string;
}

const says = <const Code extends ErrorCode>(code: Code, message: string): ErrorMessage<Code> => ({
  code,
  message,
});

/**
 * `petId` names a `pet`: the resource a path parameter identifies, as a message names it. A
 * parameter not named `<resource>Id` names a resource all the same.
 */
export function resourceNamedBy(parameter: string): string {
  return /^(.+)Id$/.exec(parameter)?.[1] ?? 'resource';
}

/**
 * What the service says of every error it answers, in one table that the server, the mock and
 * the contract's examples all read: a message is written once, so the implementations cannot
 * say it differently. Entries take what the message names (a path, a field); each carries its
 * code, whose HTTP status is `ERROR_STATUS`'s.
 */
export const ERROR_MESSAGES = {
  // 400
  invalidFields: (fields: readonly string[]) =>
    says('validation_failed', `The request is invalid: ${fields.join(', ')}.`),
  bodyNotJson: says('malformed_json', 'The request body could not be read as JSON.'),
  bodyNotUtf8: says('malformed_json', 'The request body is not valid UTF-8.'),
  notHttp: says('malformed_request', 'The request is not valid HTTP.'),
  fragmentInTarget: says('malformed_request', 'The request target must not contain "#".'),
  hostNotValid: says('malformed_request', 'The request needs exactly one valid Host header.'),
  authorizationRepeated: says(
    'malformed_request',
    'The request must carry at most one Authorization header.',
  ),
  targetSchemeNotHttp: says('malformed_request', 'The request target must be http or https.'),
  targetHostNotValid: says('malformed_request', "The request target's host is not valid."),
  // 401
  keyRequired: says(
    'unauthorized',
    'An API key is required: send Authorization: Bearer <API key>.',
  ),
  keyNotValid: says(
    'unauthorized',
    'The API key is not valid: send Authorization: Bearer <API key> with an active key.',
  ),
  // 404
  noRoute: (path: string) => says('not_found', `No route matches ${path}.`),
  /** `noSuchResource('petId', '42')`: `No pet has id 42.`, also for an id that cannot be one. */
  noSuchResource: (parameter: string, id: string | number) =>
    says('not_found', `No ${resourceNamedBy(parameter)} has id ${id}.`),
  // 405
  methodNotAllowed: (method: string, path: string, allow: string) =>
    says('method_not_allowed', `${method} is not allowed on ${path}; use ${allow}.`),
  // 409
  idempotencyKeyReused: says(
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different body.',
  ),
  // 413
  bodyTooLarge: says('payload_too_large', 'The request body is larger than 16 KiB.'),
  // 415
  bodyNotDeclaredJson: says(
    'unsupported_media_type',
    'Send the request body as JSON with Content-Type: application/json.',
  ),
  charsetNotUtf8: says('unsupported_media_type', 'The request body must be JSON encoded as UTF-8.'),
  encodingUnsupported: says(
    'unsupported_media_type',
    'The request body uses an unsupported Content-Encoding.',
  ),
  // 429
  rateLimited: says(
    'rate_limited',
    'Rate limit exceeded. Wait as Retry-After says, then back off exponentially.',
  ),
  banned: says(
    'temporarily_banned',
    'Too many requests over the limit: this client is banned for a while.',
  ),
  // 431
  headersTooLarge: says('headers_too_large', 'The request headers are larger than 16 KiB.'),
  // 500
  internal: says(
    'internal_error',
    'Something went wrong on our side. The request ID identifies it in our logs.',
  ),
  // 503
  busy: says(
    'service_unavailable',
    'The server is busy. Try again after the seconds Retry-After gives.',
  ),
  databaseUnreachable: says(
    'service_unavailable',
    'The service cannot reach its database. Try again shortly.',
  ),
  databaseSilent: says('service_unavailable', 'The database does not answer.'),
  shuttingDown: says(
    'service_unavailable',
    'The server is shutting down: it serves the requests it gets, but send new ones elsewhere.',
  ),
} as const;

/** The Error body of `error`, at the status its code travels with, naming `details` when given. */
export function errorBodyOf<const Code extends ErrorCode>(
  error: ErrorMessage<Code>,
  details?: readonly ErrorDetail[],
) {
  return {
    code: error.code,
    message: error.message,
    status: ERROR_STATUS[error.code],
    ...(details && { details: [...details] }),
  };
}

/** What every operation's 400 may carry: a request the server refuses before reading it as one. */
export const MALFORMED_REQUEST_EXAMPLE: ErrorExample = {
  message: ERROR_MESSAGES.fragmentInTarget.message,
};
