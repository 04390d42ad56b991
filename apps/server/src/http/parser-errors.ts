import { randomUUID } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error.js';
import { API_BROWSER_HEADERS } from './browser-policy.js';
import type { ConnectionResponses } from './connection-responses.js';

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
 * gets an Error body, an `X-Request-Id`, the browser headers of every answer and its IP's
 * rate-limit headers; the connection is then closed because the request's framing is unknown.
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
    ...API_BROWSER_HEADERS.map(([name, value]) => `${name}: ${value}`),
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

const settled = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    if (res.writableFinished || res.destroyed) return resolve();
    res.once('finish', resolve);
    res.once('close', resolve);
  });

/**
 * The answers a connection is still owed: requests on it that were read in full before bytes the
 * parser refused, and are not answered yet. HTTP/1.1 answers a connection's requests in order, so
 * the refusal must wait for them: written first, it would be read as the answer to the earlier
 * request (a create the client is told was refused, though it was stored), and closing the
 * connection would lose that request's own answer.
 *
 * Since answers go out in order, waiting for the last request read in full waits for all before
 * it, so a connection's latest response and the one before are all it takes; nothing waits
 * unless bytes are refused.
 * @returns a function giving the promise that a connection's owed answers have gone out
 */
export function owedAnswers(responses: ConnectionResponses): (socket: Duplex) => Promise<void> {
  return async (socket) => {
    const last = responses.latest(socket);
    // A request still being read is the one the refused bytes belong to: it is owed nothing.
    const owed = last && !last.req.complete ? responses.before(last) : last;
    if (owed) await settled(owed);
  };
}
