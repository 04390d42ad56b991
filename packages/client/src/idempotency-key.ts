import { type AppRoute, extractZodObjectShape, isZodObject } from '@ts-rest/core';

/**
 * The request header that makes a call safe to repeat: the server answers a retry carrying the
 * same key with the first answer instead of acting again. Lower case, as ts-rest hands the
 * transport its headers.
 */
export const IDEMPOTENCY_KEY = 'idempotency-key';

/**
 * Whether `route` declares an `Idempotency-Key` request header, in any letter case. Only a
 * route's zod headers can be read at run time; a header declared as a plain type is not seen.
 */
export function declaresIdempotencyKey(route: AppRoute): boolean {
  if (!isZodObject(route.headers)) return false;
  return Object.keys(extractZodObjectShape(route.headers)).some(
    (name) => name.toLowerCase() === IDEMPOTENCY_KEY,
  );
}

/**
 * The headers of one call: the caller's `Idempotency-Key` when given, else, for a route that
 * declares the header, a new UUID. Made once per call, so every retry of it sends the same key.
 */
export function withIdempotencyKey(
  route: AppRoute,
  headers: Record<string, string>,
): Record<string, string> {
  if (headers[IDEMPOTENCY_KEY] !== undefined || !declaresIdempotencyKey(route)) return headers;
  return { ...headers, [IDEMPOTENCY_KEY]: crypto.randomUUID() };
}
