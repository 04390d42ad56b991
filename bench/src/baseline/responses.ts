import type { ServerResponse } from 'node:http';
import type { Detail } from './validation.js';

const ERROR_STATUS = {
  validation_failed: 400,
  malformed_json: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A failure the client is meant to see, answered as the server's Error body. */
export class ClientError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Detail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** A body already written as JSON (by JSON.stringify, or by the database). */
export function sendJsonText(res: ServerResponse, status: number, payload: string): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/** `{code, message, status, details?}` with the status the code travels with. */
export function sendError(res: ServerResponse, error: ClientError): void {
  const status = ERROR_STATUS[error.code];
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  const body: Record<string, unknown> = { code: error.code, message: error.message, status };
  if (error.details) body.details = error.details;
  sendJson(res, status, body);
}

export function validationFailed(details: Detail[], message?: string): ClientError {
  const fields = details.map((detail) => detail.path).join(', ');
  return new ClientError(
    'validation_failed',
    message ?? `The request is invalid: ${fields}.`,
    details,
  );
}
