import { contract, ErrorBodySchema, type ErrorDetail } from '@animal-store/contract';
import { tsRestFetchApi } from '@ts-rest/core';
import { initTsrReactQuery } from '@ts-rest/react-query/v5';
import { confirmKey, keyStore, recordRateLimit, refuseKey } from './session';

/** When each response arrived, so `Retry-After` (relative seconds) is read from that moment. */
const receivedAt = new WeakMap<Headers, number>();

/**
 * The contract's hooks, on the page's own origin: `/v1` is proxied to the API server (by Vite in
 * development, by whatever serves the built app otherwise), so no CORS is involved.
 */
export const tsr = initTsrReactQuery(contract, {
  baseUrl: '',
  baseHeaders: {
    authorization: () => `Bearer ${keyStore.get().key ?? ''}`,
  },
  async api(args) {
    const response = await tsRestFetchApi(args);
    receivedAt.set(response.headers, Date.now());
    if (response.status === 401) {
      refuseKey('The server did not accept that API key. Check it and enter it again.');
      return response;
    }
    recordRateLimit(response.headers);
    if (response.status < 300) confirmKey();
    return response;
  },
});

/** A response the server answered with a status outside 2xx. */
export interface HttpError {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

export function isHttpError(error: unknown): error is HttpError {
  return (
    typeof error === 'object' &&
    error !== null &&
    'status' in error &&
    typeof error.status === 'number' &&
    'headers' in error &&
    error.headers instanceof Headers
  );
}

/** The per-field problems of a 400, keyed by field name. */
export function fieldDetails(error: unknown): Record<string, string> {
  if (!isHttpError(error)) return {};
  const parsed = ErrorBodySchema.safeParse(error.body);
  if (!parsed.success) return {};
  const fields: Record<string, string> = {};
  for (const detail of parsed.data.details ?? ([] as ErrorDetail[])) {
    fields[detail.path] ??= detail.message;
  }
  return fields;
}

export function isUnauthorized(error: unknown): boolean {
  return isHttpError(error) && error.status === 401;
}

/**
 * For a 429: the moment (epoch milliseconds) a request may be sent again, from `Retry-After`
 * counted from when the response arrived; null for any other failure.
 */
export function retryAt(error: unknown): number | null {
  if (!isHttpError(error) || error.status !== 429) return null;
  const seconds = Number(error.headers.get('retry-after'));
  if (!Number.isFinite(seconds) || seconds <= 0) return null;
  return (receivedAt.get(error.headers) ?? Date.now()) + seconds * 1000;
}

export function formatTime(date: Date): string {
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * Explains any failure of a request in plain words, for the people at the shop's counter. A 429's
 * countdown is added by the component that shows it (see ProblemNotice).
 */
export function describeError(error: unknown): string {
  if (!isHttpError(error)) {
    return 'The API could not be reached. Check the connection, then try again.';
  }
  const requestId = error.headers.get('x-request-id');
  const reference = requestId ? ` (request id ${requestId})` : '';
  const body = ErrorBodySchema.safeParse(error.body);
  // A 5xx without the API's own error body came from something in between (a proxy, a gateway).
  if (error.status >= 500 && !body.success) {
    return `The API could not be reached. Try again in a moment${reference}.`;
  }
  switch (error.status) {
    case 400:
      return body.success
        ? `The store refused the request: ${body.data.message}${reference}.`
        : `The store refused the request as invalid${reference}.`;
    case 401:
      return 'The server did not accept the API key.';
    case 429:
      return body.success && body.data.code === 'temporarily_banned'
        ? 'Too many refused requests: this key is blocked for a while.'
        : 'Too many requests for this key.';
    case 503:
      return `The store is temporarily unavailable. Try again in a little while${reference}.`;
    default:
      if (error.status >= 500) {
        return `The store’s server failed to answer. Try again; if it keeps happening, tell your administrator${reference}.`;
      }
      return `The store answered with an unexpected error (HTTP ${error.status})${reference}.`;
  }
}

/** Only failures that may pass by themselves are retried: network errors and 5xx. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (isHttpError(error) && error.status < 500) return false;
  return failureCount < 2;
}

/** The `cursor` of the `Link: <…>; rel="next"` header (RFC 8288), if there is a next page. */
export function nextCursor(headers: Headers): string | undefined {
  const link = headers.get('link');
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match?.[1] || !/;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?/i.test(match[2] ?? '')) continue;
    const cursor = new URL(match[1], window.location.origin).searchParams.get('cursor');
    if (cursor) return cursor;
  }
  return undefined;
}
