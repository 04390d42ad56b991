import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error.js';

/** Node's HTTP parser codes that mean the client sent too many header bytes. */
const HEADER_OVERFLOW_CODES = new Set([
  'HPE_HEADER_OVERFLOW',
  'ERR_HTTP_REQUEST_HEADERS_TOO_LARGE',
]);
/** Codes that mean the client went quiet or away: there is nobody to answer. */
const SILENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ERR_HTTP_REQUEST_TIMEOUT', 'ETIMEDOUT']);

function apiErrorFor(nodeCode: string | undefined): ApiError {
  return nodeCode && HEADER_OVERFLOW_CODES.has(nodeCode)
    ? new ApiError('headers_too_large', 'The request headers are larger than 16 KiB.')
    : new ApiError('malformed_request', 'The request is not valid HTTP.');
}

/**
 * Answers a request that Node's HTTP parser rejected, so it never reached Express. It still
 * gets an Error body, an `X-Request-Id` and its IP's rate-limit headers; the connection is
 * then closed because the request's framing is unknown.
 * @returns the status answered, or undefined when nobody was left to answer
 */
export async function answerParserError(
  error: Error & { code?: string },
  socket: Duplex & { remoteAddress?: string },
  rateLimitHeadersFor: (ip: string) => Promise<Record<string, string>>,
): Promise<number | undefined> {
  if (SILENT_CODES.has(error.code ?? '') || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const apiError = apiErrorFor(error.code);
  const rateLimitHeaders = await rateLimitHeadersFor(socket.remoteAddress ?? 'unknown').catch(
    () => ({}),
  );
  const body = JSON.stringify(apiError.toBody());
  const head = [
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    ...Object.entries(rateLimitHeaders).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  if (!socket.writable) {
    socket.destroy();
    return undefined;
  }
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  return apiError.status;
}
