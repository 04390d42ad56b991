import { initContract } from '@ts-rest/core';
import { errorBodyWith } from './errors.js';
import { petsContract } from './pets.js';

const c = initContract();

/** Interface version, carried in the `/v1` prefix and the OpenAPI `info.version`. */
export const API_VERSION = '1.0.0';

/** getPet's deprecation and removal, as the `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers carry them. */
export const GET_PET_DEPRECATION = {
  deprecatedAt: new Date('2025-01-01T00:00:00Z'),
  sunsetAt: new Date('2030-12-05T00:00:00Z'),
  successor: '/v1/pets',
} as const;

/** The headers every getPet response carries, as the server sends them. */
export const GET_PET_DEPRECATION_HEADERS = {
  /** RFC 9745: `@` and the Unix time in seconds since when the operation is deprecated. */
  Deprecation: `@${GET_PET_DEPRECATION.deprecatedAt.getTime() / 1000}`,
  /** RFC 8594: the HTTP date of removal. */
  Sunset: GET_PET_DEPRECATION.sunsetAt.toUTCString(),
  /** RFC 8288: where to go instead. */
  Link: `<${GET_PET_DEPRECATION.successor}>; rel="successor-version"`,
} as const;

/**
 * The whole v1 API. Every operation may also answer 401, 429, 431, 500 and 503 with an Error
 * body, and 400 `malformed_request` (a request the server refuses before reading it as an
 * operation: a missing or repeated `Host`, a `#` in the target, not valid HTTP).
 */
export const contract = c.router(
  { pets: petsContract },
  {
    pathPrefix: '/v1',
    strictStatusCodes: true,
    commonResponses: {
      401: errorBodyWith('unauthorized'),
      429: errorBodyWith('rate_limited', 'temporarily_banned'),
      431: errorBodyWith('headers_too_large'),
      500: errorBodyWith('internal_error'),
      503: errorBodyWith('service_unavailable'),
    },
  },
);

export type Contract = typeof contract;

export {
  ERROR_STATUS,
  type ErrorBody,
  ErrorBodySchema,
  type ErrorCode,
  ErrorCodeSchema,
  type ErrorDetail,
  ErrorDetailSchema,
  errorBodyWith,
} from './errors.js';
export { MAX_INTEGER_ID, PAGE_SIZE, PET_NAME_MAX_LENGTH } from './fields.js';
export {
  ListPetsQuerySchema,
  type NewPet,
  NewPetSchema,
  PET_STATUSES,
  type Pet,
  PetSchema,
  type PetStatus,
  PetStatusSchema,
  type RouteMetadata,
  type Stability,
} from './pets.js';
