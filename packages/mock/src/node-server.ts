/**
 * The mock on a real port (node:http), for tests of programs that make their own HTTP requests
 * and for the command. Node's HTTP parser refuses what is not HTTP, as the real server's does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type AnimalStoreMock, createMock, type MockOptions } from './mock.js';

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

/** What the request's raw head shows that a WHATWG Request cannot carry. */
function malformedHeadOf(request: IncomingMessage): string | undefined {
  if (request.url?.includes('#')) return 'The request target must not contain a fragment (#).';
  const names = request.rawHeaders
    .filter((_, index) => index % 2 === 0)
    .map((name) => name.toLowerCase());
  const count = (name: string) => names.filter((sent) => sent === name).length;
  const hosts = count('host');
  if (hosts > 1 || (hosts === 0 && request.httpVersion !== '1.0')) {
    return 'The request needs exactly one valid Host header.';
  }
  if (count('authorization') > 1) return 'The request must carry at most one Authorization header.';
  return undefined;
}

/** The request's headers as sent, repeated ones included (`Headers` joins those). */
function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    headers.append(request.rawHeaders[index] as string, request.rawHeaders[index + 1] as string);
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

/** The URL the request addressed: its absolute-form target, else its `Host` and path. */
function urlOf(request: IncomingMessage, fallbackHost: string): string {
  const target = request.url ?? '/';
  if (/^https?:\/\//i.test(target)) return target;
  // `OPTIONS *` asks about the server as a whole: it names no path, so it finds nothing (404).
  if (target === '*') return `http://${request.headers.host ?? fallbackHost}/*`;
  return `http://${request.headers.host ?? fallbackHost}${target.split('#')[0]}`;
}

/** `::ffff:127.0.0.1` counts as 127.0.0.1 (docs/interface.md, "Who is counted"). */
const addressOf = (socket: Socket) =>
  socket.remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

async function answer(
  mock: AnimalStoreMock,
  request: IncomingMessage,
  response: ServerResponse,
  fallbackHost: string,
): Promise<void> {
  const method = request.method ?? 'GET';
  const hasBody = !BODYLESS_METHODS.has(method.toUpperCase());
  const malformedHead = malformedHeadOf(request);
  const clientAddress = addressOf(request.socket);
  let answered: Response;
  try {
    const fetchRequest = new Request(urlOf(request, fallbackHost), {
      method,
      headers: headersOf(request),
      ...(hasBody && { body: bodyOf(request), duplex: 'half' }),
    } as RequestInit);
    answered = await mock.handle(fetchRequest, {
      ...(clientAddress !== undefined && { clientAddress }),
      ...(malformedHead !== undefined && { malformedHead }),
    });
  } catch {
    // A target or header the WHATWG Request refuses: what the interface calls a malformed request.
    answered = await mock.handle(new Request(`http://${fallbackHost}/`), {
      ...(clientAddress !== undefined && { clientAddress }),
      malformedHead: 'The request could not be read.',
    });
  }
  if (answered.type === 'error') {
    request.socket.destroy();
    return;
  }
  const headers: Record<string, string> = Object.fromEntries(answered.headers);
  // A body left unread (past 16 KiB) is not waited for: the connection closes after the answer.
  if (hasBody && !request.complete) headers.connection = 'close';
  response.writeHead(answered.status, headers);
  if (answered.body === null || method.toUpperCase() === 'HEAD') {
    response.end();
    return;
  }
  response.end(Buffer.from(await answered.arrayBuffer()));
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  431: 'Request Header Fields Too Large',
};

/**
 * The answer to bytes Node's HTTP parser refused, written on the socket itself: there is no
 * request to answer through. Its head is the mock's, with `Connection: close`.
 */
async function refuseUnparsable(
  mock: AnimalStoreMock,
  error: NodeJS.ErrnoException,
  socket: Socket,
): Promise<void> {
  const clientAddress = addressOf(socket);
  const answered = await mock.handle(new Request('http://unparsable.invalid/'), {
    ...(clientAddress !== undefined && { clientAddress }),
    refusedByParser:
      error.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'malformed_request',
  });
  const body = Buffer.from(await answered.arrayBuffer());
  const head = [
    `HTTP/1.1 ${answered.status} ${STATUS_TEXT[answered.status] ?? ''}`,
    ...[...answered.headers].map(([name, value]) => `${name}: ${value}`),
    `content-length: ${body.byteLength}`,
    'connection: close',
  ];
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]));
}

/** Starts a new mock on node:http; `close()` stops it. */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const { createServer } = await import('node:http');
  const { port = 0, host = '127.0.0.1', ...mockOptions } = options;
  const mock = createMock(mockOptions);
  let fallbackHost = host;
  // A missing Host is the mock's to answer, with an Error body, rather than Node's bare 400.
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    answer(mock, request, response, fallbackHost).catch(() => request.socket.destroy());
  });
  // What Node's HTTP parser refuses: answered by the mock, then the connection closes.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    refuseUnparsable(mock, error, socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  fallbackHost = `${shownHost}:${address.port}`;
  return {
    url: `http://${fallbackHost}`,
    mock,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
