import { contract, ErrorBodySchema, type ErrorDetail } from '@animal-store/contract';
import { tsRestFetchApi } from '@ts-rest/core';
import { initTsrReactQuery } from '@ts-rest/react-query/v5';
import { forgetKey, keyStore, recordRateLimit } from './session';

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
    recordRateLimit(response.headers);
    if (response.status === 401) {
      forgetKey('The server did not accept that API key. Check it and enter it again.');
    }
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

function formatTime(date: Date): string {
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

/** Explains any failure of a request in plain words. */
export function describeError(error: unknown): string {
  if (!isHttpError(error)) {
    return 'The server could not be reached. Check your connection and try again.';
  }
  const requestId = error.headers.get('x-request-id');
  const reference = requestId ? ` (reference ${requestId})` : '';
  switch (error.status) {
    case 400: {
      const parsed = ErrorBodySchema.safeParse(error.body);
      return parsed.success
        ? `The request was refused: ${parsed.data.message}`
        : 'The request was refused as invalid.';
    }
    case 401:
      return 'The server did not accept the API key.';
    case 429: {
      const seconds = Number(error.headers.get('retry-after'));
      if (!Number.isFinite(seconds) || seconds <= 0) {
        return 'Too many requests. Wait a moment, then try again.';
      }
      const at = new Date(Date.now() + seconds * 1000);
      const unit = seconds === 1 ? 'second' : 'seconds';
      return `Too many requests for this key. Try again in ${seconds} ${unit} (at ${formatTime(at)}).`;
    }
    case 503:
      return `The store is temporarily unavailable. Try again in a little while${reference}.`;
    default:
      if (error.status >= 500) {
        return `Something went wrong on the server. Try again; if it keeps happening, report it${reference}.`;
      }
      return `The server answered with an unexpected error (HTTP ${error.status})${reference}.`;
  }
}

export { formatTime };

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
