import { ERROR_MESSAGES } from './error-messages.js';
import { errorResponse } from './errors.js';

/**
 * The error responses every operation may give, whatever it is: the key is checked, the request
 * counted against the rate limit, its head bounded, and the database may be away.
 */
export const COMMON_RESPONSES = {
  401: errorResponse({
    name: 'Unauthorized',
    description: 'The API key is missing, unknown or revoked, or the scheme is not Bearer',
    examples: {
      unauthorized: { message: ERROR_MESSAGES.keyRequired.message },
    },
    headers: {
      'WWW-Authenticate': {
        required: true,
        component: 'WwwAuthenticate',
        description:
          'The challenge: `Bearer realm="animal-store"`, with `error="invalid_token"` when a key was sent but is not valid',
        schema: { type: 'string' },
        example: 'Bearer realm="animal-store", error="invalid_token"',
      },
    },
  }),
  429: errorResponse({
    name: 'TooManyRequests',
    description:
      "Over the plan's rate limit (`rate_limited`), or the key or IP is temporarily banned (`temporarily_banned`)",
    examples: {
      rate_limited: {
        message: ERROR_MESSAGES.rateLimited.message,
      },
      temporarily_banned: {
        message: ERROR_MESSAGES.banned.message,
      },
    },
    headers: {
      'Retry-After': {
        required: true,
        component: 'RetryAfter',
        description:
          'Seconds until a request would be accepted again (for `temporarily_banned`, the seconds left in the ban)',
        schema: { type: 'integer', minimum: 1 },
        example: 30,
      },
    },
  }),
  431: errorResponse({
    name: 'HeadersTooLarge',
    description: 'The request headers are larger than 16 KiB',
    examples: { headers_too_large: { message: ERROR_MESSAGES.headersTooLarge.message } },
  }),
  500: errorResponse({
    name: 'InternalError',
    description: 'An unexpected error; the message reveals no internals',
    examples: {
      internal_error: {
        message: ERROR_MESSAGES.internal.message,
      },
    },
  }),
  503: errorResponse({
    name: 'ServiceUnavailable',
    description:
      'The database cannot be reached, or the server is over its capacity and the request waited too long for room: then before any other check, with `Retry-After`, and counted against no rate limit',
    examples: {
      service_unavailable: {
        message: ERROR_MESSAGES.databaseUnreachable.message,
      },
    },
    headers: {
      'Retry-After': {
        description:
          'When the server is over its capacity: seconds to wait before trying again (at least 1); wait a random part of it more, so as not to come back with every other client',
        schema: { type: 'integer', minimum: 1 },
        example: 1,
      },
    },
  }),
};
