/** Answers as the interface shapes them: JSON in UTF-8, errors in the contract's Error body. */
import { type ErrorDetail, type ErrorMessage, errorBodyOf } from '@animal-store/contract';

const JSON_TYPE = 'application/json; charset=utf-8';

/** `body` as JSON; no body at all for `undefined` (a 204). */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  if (body === undefined) return new Response(null, { status, headers });
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': JSON_TYPE, ...headers },
  });
}

/** The Error body of `error` (an entry of `ERROR_MESSAGES`), at the status of its code. */
export function errorResponse(
  error: ErrorMessage,
  headers: Record<string, string> = {},
  details?: readonly ErrorDetail[],
): Response {
  const body = errorBodyOf(error, details);
  return jsonResponse(body.status, body, headers);
}
