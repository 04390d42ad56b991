/** Answers as the interface shapes them: JSON in UTF-8, errors in the contract's Error body. */
import {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
} from '@animal-store/contract';

const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': JSON_TYPE, ...headers },
  });
}

/** An Error body of `code`, at the status the contract fixes for it. */
export function errorResponse(
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
  details?: readonly ErrorDetail[],
): Response {
  const status = ERROR_STATUS[code];
  const body: ErrorBody = { code, message, status, ...(details && { details: [...details] }) };
  return jsonResponse(status, body, headers);
}

/** `validation_failed`, naming each invalid field once, in the order found. */
export function validationFailed(details: readonly ErrorDetail[]): Response {
  const paths = details.map((detail) => detail.path);
  return errorResponse(
    'validation_failed',
    `The request is invalid: ${paths.join(', ')}.`,
    {},
    details,
  );
}

/** Whole seconds, at least 1 (docs/interface.md, "Decisions": `Retry-After`). */
export const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));
