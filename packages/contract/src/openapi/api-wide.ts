import type { InfoObject, ParameterObject, SecuritySchemeObject } from 'openapi3-ts';
import type { HeadersDocumentation } from '../documentation.js';
import { API_VERSION, type Contract } from '../index.js';

/*
 * What holds for every operation of the API, so that no route declares it: the server's
 * middleware does it for all of them (authentication, rate limiting, request ids).
 */

export const INFO: InfoObject = {
  title: 'Animal Store API',
  version: API_VERSION,
  description:
    'The catalogue of animals offered in a store. Every operation needs an API key sent as a bearer token; every response carries the `X-RateLimit-*` headers and an `X-Request-Id`.',
  license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
};

export const SERVER_DESCRIPTION = 'Animal Store API (paths carry the `/v1` prefix)';

/** The operations of each group of the contract (its tag), described. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  pets: 'Animals offered in the store',
} satisfies Record<keyof Contract, string>;

export const SECURITY_SCHEME_NAME = 'bearerAuth';

export const SECURITY_SCHEME: SecuritySchemeObject = {
  type: 'http',
  scheme: 'bearer',
  description: 'The API key as a bearer token: `Authorization: Bearer <API_KEY>`',
};

const REQUEST_ID_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9._:-]+$',
} as const;

/** `components.parameters.RequestId`: a request header every operation takes. */
export const REQUEST_ID_PARAMETER = {
  name: 'RequestId',
  definition: {
    name: 'X-Request-Id',
    in: 'header',
    description:
      'Your id for the request (1 to 128 letters, digits and `-_.:`), echoed in the response and logged by the server',
    schema: { ...REQUEST_ID_SCHEMA },
  } satisfies ParameterObject,
};

/** The headers of every response, whatever the operation and the status. */
export const EVERY_RESPONSE_HEADERS: HeadersDocumentation = {
  'X-RateLimit-Limit': {
    required: true,
    component: 'RateLimitLimit',
    description:
      "The request limit of the binding window (the UTC calendar minute or day) of the caller's plan",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    required: true,
    component: 'RateLimitRemaining',
    description: 'Requests remaining in the binding window; never below 0',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    required: true,
    component: 'RateLimitReset',
    description: 'When the binding window resets, as a Unix time in seconds',
    schema: { type: 'integer', format: 'int64', minimum: 0 },
    example: 1767225600,
  },
  'X-Request-Id': {
    required: true,
    component: 'RequestId',
    description:
      'The `X-Request-Id` of the request when it is 1 to 128 letters, digits and `-_.:`, else a new id; the server logs it with the request',
    schema: REQUEST_ID_SCHEMA,
  },
};

/** `components.responses.UnexpectedError`: a response of a status the operation does not declare. */
export const UNEXPECTED_ERROR = {
  name: 'UnexpectedError',
  description:
    'Any other error, e.g. 405 `method_not_allowed` (with `Allow`) for a method the path does not serve',
};

/**
 * Appended to the description of a deprecated operation: its error responses are shared with
 * the other operations, so they cannot list the deprecation headers themselves.
 */
export const DEPRECATION_HEADERS_NOTE =
  'Its responses, errors included, carry the `Deprecation`, `Sunset` and `Link: rel="successor-version"` headers.';
