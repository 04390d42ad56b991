import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_MESSAGES } from '@animal-store/contract';
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
    ? new ApiError(ERROR_MESSAGES.headersTooLarge)
    : new ApiError(ERROR_MESSAGES.notHttp);
}

type RateLimitHeadersFor = (ip: string) => Promise<Record<string, string>>;

/**
 * What a request refused before the app gets: an Error body, a new `X-Request-Id` (its own is
 * not read), the browser headers of every answer, its IP's rate-limit headers (it is not
 * counted), and `Connection: close`, as what follows it on the connection cannot be read.
 */
async function refusal(
  apiError: ApiError,
  remoteAddress: string | undefined,
  rateLimitHeadersFor: RateLimitHeadersFor,
) {
  const rateLimitHeaders = await rateLimitHeadersFor(remoteAddress ?? 'unknown').catch(() => ({}));
  const body = JSON.stringify(apiError.toBody());
  const headers: Array<readonly [string, string]> = [
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', String(Buffer.byteLength(body))],
    ['X-Request-Id', randomUUID()],
    ...API_BROWSER_HEADERS,
    ...Object.entries(rateLimitHeaders),
    ['Connection', 'close'],
  ];
  return { status: apiError.status, headers, body };
}

/**
 * Answers a request that Node's HTTP parser rejected, so it never reached Express; the
 * connection is then closed because the request's framing is unknown.
 * @returns the status answered, or undefined when nobody was left to answer
 */
export async function answerParserError(
  error: Error & { code?: string },
  socket: Duplex & { remoteAddress?: string },
  rateLimitHeadersFor: RateLimitHeadersFor,
): Promise<number | undefined> {
  if (SILENT_CODES.has(error.code ?? '') || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const { status, headers, body } = await refusal(
    apiErrorFor(error.code),
    socket.remoteAddress,
    rateLimitHeadersFor,
  );
  if (!socket.writable) {
    socket.destroy();
    return undefined;
  }
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  return status;
}

/**
 * Whether a request is in a version of HTTP this server speaks. Node's parser refuses most
 * others, but reads `HTTP/2.0` and `HTTP/0.9` request lines and hands them on as if they were
 * HTTP/1.1.
 */
export const isHttp1 = (req: IncomingMessage) => req.httpVersionMajor === 1;

/**
 * Answers a request the parser let through in a version of HTTP other than 1.x as it answers
 * the versions it refuses itself (`HTTP/1.2`, `HTTP/3.0`), before the app sees it.
 * @returns the status answered
 */
export async function answerUnsupportedVersion(
  req: IncomingMessage,
  res: ServerResponse,
  rateLimitHeadersFor: RateLimitHeadersFor,
): Promise<number> {
  const { status, headers, body } = await refusal(
    apiErrorFor(undefined),
    req.socket.remoteAddress,
    rateLimitHeadersFor,
  );
  res.writeHead(status, headers.flat()).end(body);
  return status;
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
