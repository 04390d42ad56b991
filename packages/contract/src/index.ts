import { initContract } from '@ts-rest/core';
import { COMMON_RESPONSES } from './common-responses.js';
import { deprecationHeaders } from './deprecation.js';
import { GET_PET_DEPRECATION, petsRoutes } from './pets.js';

const c = initContract();

/** Interface version, carried in the `/v1` prefix and the OpenAPI `info.version`. */
export const API_VERSION = '1.0.0';

/** The headers every getPet response carries, as the server sends them. */
export const GET_PET_DEPRECATION_HEADERS = deprecationHeaders(GET_PET_DEPRECATION);

/**
 * How the resources of v1 are combined into the contract: their paths under `/v1`, answering only
 * the statuses their routes declare, each route with the error responses every operation may give.
 */
export const V1_ROUTER_OPTIONS = {
  pathPrefix: '/v1',
  strictStatusCodes: true,
  commonResponses: COMMON_RESPONSES,
} as const;

/**
 * The whole v1 API. Every operation may also answer 401, 429, 431, 500 and 503 with an Error
 * body, and 400 `malformed_request` (a request the server refuses before reading it as an
 * operation: a missing or repeated `Host`, a `#` in the target, not valid HTTP).
 */
export const contract = c.router({ pets: petsRoutes }, V1_ROUTER_OPTIONS);

/**
 * The pets resource as the contract serves it: its routes under `/v1`, each with the responses
 * every operation may give. What a server implements for it (`initServer().router(petsContract, …)`).
 */
export const petsContract: Contract['pets'] = contract.pets;

export type Contract = typeof contract;

export { type CrossOriginRules, crossOriginRulesOf } from './cross-origin.js';
export {
  type Deprecation,
  type DeprecationHeaders,
  deprecationHeaders,
} from './deprecation.js';
export type {
  HeaderDocumentation,
  HeadersDocumentation,
  OptionalHeaderDocumentation,
  RequiredHeaderDocumentation,
  SchemaDocumentation,
} from './documentation.js';
export {
  ERROR_MESSAGES,
  type ErrorMessage,
  errorBodyOf,
  resourceNamedBy,
} from './error-messages.js';
export {
  ERROR_STATUS,
  type ErrorBody,
  ErrorBodySchema,
  type ErrorCode,
  ErrorCodeSchema,
  type ErrorDetail,
  ErrorDetailSchema,
  type ErrorExample,
  type ErrorResponseDocumentation,
  errorBodyWith,
  errorResponse,
} from './errors.js';
export { MAX_INTEGER_ID, PAGE_SIZE, PET_NAME_MAX_LENGTH } from './fields.js';
export {
  type ContractOperation,
  declaresBody,
  type OperationsOf,
  operationsOf,
} from './operations.js';
export {
  GET_PET_DEPRECATION,
  ListPetsQuerySchema,
  type NewPet,
  NewPetSchema,
  PET_STATUSES,
  type Pet,
  PetSchema,
  type PetStatus,
  PetStatusSchema,
} from './pets.js';
export {
  ANONYMOUS_QUOTA,
  PLAN_NAMES,
  PLAN_QUOTAS,
  type PlanName,
  type Quota,
} from './plans.js';
export {
  deprecationHeadersOf,
  type RouteMetadata,
  type Stability,
  type SuccessResponseDocumentation,
} from './route-metadata.js';
