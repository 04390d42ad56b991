import { z } from 'zod';

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

export const ErrorDetailSchema = z.object({
  path: z
    .string()
    .describe(
      'The invalid field: `name`, `limit`, `idempotency-key`…; `body` for the body as a whole',
    ),
  message: z.string(),
});

export const ErrorBodySchema = z.object({
  code: ErrorCodeSchema.describe('Machine-readable error code'),
  message: z.string().describe('Human-readable description'),
  status: z.number().int().describe('The HTTP status code of the response'),
  details: z.array(ErrorDetailSchema).optional().describe('One entry per invalid field'),
});

export type ErrorBody = z.infer<typeof ErrorBodySchema>;
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

/** The Error body narrowed to the codes one response status can carry. */
export function errorBodyWith<const Code extends ErrorCode>(...codes: [Code, ...Code[]]) {
  return ErrorBodySchema.extend({ code: ErrorCodeSchema.extract(codes) });
}
