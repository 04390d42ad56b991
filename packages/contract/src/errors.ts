import { z } from 'zod';
import { documented, type HeadersDocumentation } from './documentation.js';

/** Every error code v1 can answer with; the HTTP status each one travels with is fixed. */
export const ERROR_STATUS = {
  validation_failed: 400,
  malformed_json: 400,
  malformed_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  temporarily_banned: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ErrorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

export const ErrorDetailSchema = documented(
  z.object({
    path: z
      .string()
      .describe(
        'The invalid field: `name`, `limit`, `idempotency-key`…; `body` for the body as a whole',
      ),
    message: z.string(),
  }),
  { title: 'ErrorDetail', description: 'One invalid field of a `validation_failed` request' },
);

export const ErrorBodySchema = documented(
  z.object({
    code: ErrorCodeSchema.describe(
      'Machine-readable error code; each travels with one HTTP status (see the responses). Clients should treat a code they do not know as an error of its status.',
    ),
    message: z.string().describe('Human-readable description'),
    status: z.number().int().describe('The HTTP status code of the response'),
    details: z
      .array(ErrorDetailSchema)
      .optional()
      .describe('One entry per invalid field; sent with `validation_failed` (400) only'),
  }),
  {
    title: 'Error',
    description: 'The body of every error response',
    example: { code: 'not_found', message: 'No pet has id 42.', status: 404 },
  },
);

export type ErrorBody = z.infer<typeof ErrorBodySchema>;
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

/** The Error body narrowed to the codes one response status can carry. */
export function errorBodyWith<const Code extends ErrorCode>(...codes: [Code, ...Code[]]) {
  return ErrorBodySchema.extend({ code: ErrorCodeSchema.extract(codes) });
}

/** An error body as the OpenAPI document shows it; its code and status are where it is used. */
export interface ErrorExample {
  readonly message: string;
  readonly details?: readonly ErrorDetail[];
}

/**
 * How the OpenAPI document describes an error response: a `components.responses` entry over the
 * one Error schema, which every route answering these codes shares.
 */
export interface ErrorResponseDocumentation<Code extends ErrorCode = ErrorCode> {
  /** Its key in `components.responses`, e.g. `NotFound`. */
  readonly name: string;
  readonly description: string;
  /** An example of each code the response can carry: its keys are those codes. */
  readonly examples: { readonly [C in Code]?: ErrorExample };
  /** The headers it carries besides those every response does. */
  readonly headers?: HeadersDocumentation;
}

/** Where an error body keeps the documentation of its response. */
interface DocumentedErrorBody {
  openApiResponse?: ErrorResponseDocumentation;
}

/**
 * An error response of a route: the Error body narrowed to the codes its documentation gives
 * examples of, and documented as a response shared by every route that answers them.
 */
export function errorResponse<const Code extends ErrorCode>(
  documentation: ErrorResponseDocumentation<Code>,
) {
  const codes = Object.keys(documentation.examples) as [Code, ...Code[]];
  const body = errorBodyWith(...codes);
  Object.assign(body, { openApiResponse: documentation } satisfies DocumentedErrorBody);
  return body;
}

/** The documentation of an error response made by `errorResponse`; undefined for any other. */
export function errorResponseDocumentationOf(
  response: unknown,
): ErrorResponseDocumentation | undefined {
  return (response as DocumentedErrorBody | null | undefined)?.openApiResponse;
}
