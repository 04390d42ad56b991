import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '@animal-store/contract';
import { ApiError } from './api-error.js';

/** Node's HTTP parser codes that mean the client sent too many header bytes. */
const HEADER_OVERFLOW_CODES = new Set([
  'HPE_HEADER_OVERFLOW',
  'ERR_HTTP_REQUEST_HEADERS_TOO_LARGE',
]);
/** Codes that mean the client went quiet or away: there is nobody to answer. */
const SILENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ERR_HTTP_REQUEST_TIMEOUT', 'ETIMEDOUT']);

function errorCodeFor(nodeCode: string | undefined): ErrorCode {
  return nodeCode && HEADER_OVERFLOW_CODES.has(nodeCode)
    ? 'headers_too_large'
    : 'malformed_request';
}

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  headers_too_large: 'The request headers are larger than 16 KiB.',
  malformed_request: 'The request is not valid HTTP.',
};

/**
 * Answers a request that Node's HTTP parser rejected, so it never reached Express. It still gets
 * an Error body and an `X-Request-Id`; the connection is closed because its framing is unknown.
 */
export function answerParserError(error: Error & { code?: string }, socket: Duplex): void {
  if (SILENT_CODES.has(error.code ?? '') || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = errorCodeFor(error.code);
  const apiError = new ApiError(code, MESSAGES[code] ?? 'Bad request.');
  const body = JSON.stringify(apiError.toBody());
  const head = [
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
