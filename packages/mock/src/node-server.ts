/**
 * The mock on a real port (node:http), for tests of programs that make their own HTTP requests
 * and for the command. Its door answers as the server's does (docs/interface.md, "Requests at the
 * edges of HTTP"): Node's HTTP parser refuses what is not HTTP, as the server's does, and what a
 * WHATWG `Request` cannot carry is read here and told to the handler.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AnimalStoreMock, MockConnection } from './api-mock.js';
import { CONTROL_PATH, controlResponse } from './control.js';
import { MAX_HEADER_BYTES } from './limits.js';
import { createMock } from './mock.js';
import type { MockOptions } from './mock-options.js';
import { requestHeadOf } from './request-head.js';

/** The mock's options, and where to listen. */
export interface MockServerOptions extends MockOptions {
  /** The port to listen on; 0 (the default) for any free one. */
  readonly port?: number;
  /** The address to listen on; 127.0.0.1 unless given. */
  readonly host?: string;
}

/** The mock listening on a port. */
export interface MockServer {
  /** The origin it serves, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** The mock it serves: its clock, keys, faults and reset. */
  readonly mock: AnimalStoreMock;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

const BODYLESS_METHODS = new Set(['GET', 'HEAD']);

/** What Node's HTTP parser refuses, as the handler answers it. */
type ParserRefusal = NonNullable<MockConnection['refusedByParser']>;

/**
 * The most header lines that fit in 16 KiB as sent (`x:` and CRLF, four bytes each). Node keeps
 * the first 2,000 by default and drops the rest unseen, an `Authorization` among them.
 */
const MAX_HEADER_LINES = MAX_HEADER_BYTES / 4;

/** `::ffff:127.0.0.1` is 127.0.0.1 to the handler too; an IPv6 address counts by its /64 there. */
const addressOf = (socket: { remoteAddress?: string | undefined }): MockConnection =>
  socket.remoteAddress === undefined ? {} : { clientAddress: socket.remoteAddress };

/** The host this connection reached, for a request that names none (HTTP/1.0 without `Host`). */
function localHostOf(socket: Socket): string {
  const address = socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${socket.localPort}`;
}

/**
 * The headers as Node reads them for the server: a repeated `Content-Type`, `Content-Length`,
 * `User-Agent`… is its first line, other repeated headers joined.
 */
function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/**
 * The body as a stream the mock pulls from: it stops pulling past 16 KiB, so no more than that is
 * ever held, and Node discards the rest when the answer is sent.
 */
function bodyOf(request: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks = request[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value as Buffer));
    },
  });
}

/** The request as the handler reads it, and what its head told that a `Request` cannot carry. */
function fetchRequestOf(request: IncomingMessage): {
  fetchRequest: Request;
  connection: MockConnection;
} {
  const head = requestHeadOf(request);
  const method = request.method ?? 'GET';
  const host = head.host ?? localHostOf(request.socket);
  const path = head.path.startsWith('/') ? head.path : '/';
  const fetchRequest = new Request(`http://${host}${path}${head.search}`, {
    method,
    headers: headersOf(request),
    ...(!BODYLESS_METHODS.has(method.toUpperCase()) && { body: bodyOf(request), duplex: 'half' }),
  } as RequestInit);
  const connection: MockConnection = {
    ...addressOf(request.socket),
    path: head.path,
    ...(head.malformed !== undefined && { malformedHead: head.malformed }),
  };
  return { fetchRequest, connection };
}

/** The handler's answer, or a refusal of what not even a `Request` could be made of. */
async function answerOf(mock: AnimalStoreMock, request: IncomingMessage): Promise<Response> {
  if (request.httpVersionMajor !== 1) {
    // Node's parser reads `HTTP/2.0` and `HTTP/0.9` request lines as if they were HTTP/1.1.
    return refusalOf(mock, 'malformed_request', request.socket);
  }
  try {
    const { fetchRequest, connection } = fetchRequestOf(request);
    return await mock.handle(fetchRequest, connection);
  } catch {
    // A header the WHATWG Request refuses, though Node's parser took it.
    return refusalOf(mock, 'malformed_request', request.socket);
  }
}

/** What the server answers to bytes that are not a request it can read: uncounted, then closed. */
function refusalOf(
  mock: AnimalStoreMock,
  refusal: ParserRefusal,
  socket: { remoteAddress?: string | undefined },
): Promise<Response> {
  return mock.handle(new Request('http://unparsable.invalid/'), {
    ...addressOf(socket),
    refusedByParser: refusal,
  });
}

/** The answer's headers, with its body's length (a HEAD's, the handler's: its GET's length). */
function headersFor(answered: Response, body: Buffer, { head = false } = {}) {
  const headers: Record<string, string> = Object.fromEntries(answered.headers);
  if (!head) headers['content-length'] = String(body.byteLength);
  return headers;
}

async function answer(
  mock: AnimalStoreMock,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const answered = request.url?.startsWith(CONTROL_PATH)
    ? await controlResponse(mock, request)
    : await answerOf(mock, request);
  if (answered.type === 'error') {
    request.socket.destroy();
    return;
  }
  const head = request.method?.toUpperCase() === 'HEAD';
  const body = Buffer.from(await answered.arrayBuffer());
  const headers = headersFor(answered, body, { head });
  // What follows a request not in HTTP/1 on its connection cannot be read.
  if (request.httpVersionMajor !== 1) headers.connection = 'close';
  response.writeHead(answered.status, headers);
  response.end(head ? undefined : body);
}

/** The reason phrases of the statuses a refusal answers: node:http is imported only to listen. */
const REFUSAL_STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  431: 'Request Header Fields Too Large',
};

/**
 * The answer to bytes Node's HTTP parser refused (or a `CONNECT`), written on the socket itself:
 * there is no request to answer through. It goes out after the answers the connection is owed
 * for requests read in full before those bytes, and the connection is then closed.
 */
async function refuseUnparsable(
  mock: AnimalStoreMock,
  refusal: ParserRefusal,
  socket: Duplex & { remoteAddress?: string },
  owed: Promise<void>,
): Promise<void> {
  await owed;
  const answered = await refusalOf(mock, refusal, socket);
  const body = Buffer.from(await answered.arrayBuffer());
  const head = [
    `HTTP/1.1 ${answered.status} ${REFUSAL_STATUS_TEXT[answered.status]}`,
    ...Object.entries(headersFor(answered, body)).map(([name, value]) => `${name}: ${value}`),
    'connection: close',
  ];
  if (socket.writable)
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]));
  else socket.destroy();
}

/** Node's parser codes for a request whose headers are over its limit. */
const HEADER_OVERFLOW_CODES = new Set([
  'HPE_HEADER_OVERFLOW',
  'ERR_HTTP_REQUEST_HEADERS_TOO_LARGE',
]);
/** Codes that mean the client went quiet or away: there is nobody to answer. */
const SILENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ERR_HTTP_REQUEST_TIMEOUT', 'ETIMEDOUT']);

/**
 * The answer owed on each connection for its latest request read in full: HTTP/1.1 answers a
 * connection's requests in order, so a refusal of bytes after it waits for it.
 */
function owedAnswers(server: Server): (socket: Duplex) => Promise<void> {
  const latest = new WeakMap<Duplex, ServerResponse>();
  const track = (request: IncomingMessage, response: ServerResponse) =>
    latest.set(request.socket, response);
  server.prependListener('request', track);
  server.prependListener('checkExpectation', track);
  return async (socket) => {
    const response = latest.get(socket);
    // A request still being read is the one the refused bytes belong to: it is owed nothing.
    if (response === undefined || response.writableFinished || !response.req.complete) return;
    await new Promise((settled) => {
      response.once('finish', settled);
      response.once('close', settled);
    });
  };
}

/** Starts a new mock on node:http; `close()` stops it. */
export function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const { port, host, ...mockOptions } = options;
  return serveMock(createMock(mockOptions), { port, host });
}

/** Serves `mock`, a mock of any API (`createApiMock`), on node:http; `close()` stops it. */
export async function serveMock(
  mock: AnimalStoreMock,
  { port = 0, host = '127.0.0.1' }: Pick<MockServerOptions, 'port' | 'host'>,
): Promise<MockServer> {
  const { createServer } = await import('node:http');
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    answer(mock, request, response).catch(() => request.socket.destroy());
  };
  // A missing Host is the mock's to answer, with an Error body, rather than Node's bare 400.
  const server = createServer({ requireHostHeader: false, maxHeaderSize: MAX_HEADER_BYTES }, serve);
  server.maxHeadersCount = MAX_HEADER_LINES;
  // A client may end its side once it has sent its request: it is still answered, as by the
  // server (Node's long-standing switch, undeclared in its types).
  Object.assign(server, { httpAllowHalfOpen: true });
  const owed = owedAnswers(server);
  const refuse = (refusal: ParserRefusal, socket: Duplex & { remoteAddress?: string }) => {
    refuseUnparsable(mock, refusal, socket, owed(socket)).catch(() => socket.destroy());
  };
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (SILENT_CODES.has(error.code ?? '') || !socket.writable) return socket.destroy();
    refuse(
      HEADER_OVERFLOW_CODES.has(error.code ?? '') ? 'headers_too_large' : 'malformed_request',
      socket,
    );
  });
  // Expectations other than 100-continue are ignored, as the server ignores them.
  server.on('checkExpectation', serve);
  // CONNECT names no path of the API: refused as bytes the parser refuses.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) =>
    refuse('malformed_request', socket),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    mock,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
