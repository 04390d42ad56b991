import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

/**
 * Sends bytes exactly as given, for requests `fetch` refuses to build. With `halfClose`, the
 * client then ends its side of the connection, as a client with nothing more to send may.
 */
export function sendRaw(
  port: number,
  request: string | Buffer,
  { halfClose = false } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed: true });
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    if (halfClose) socket.end(request);
    else socket.write(request);
  });
}

/** Every response in `bytes`, in order; a response is cut off where the bytes end. */
export function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset);
    if (headEnd === -1) break;
    const [statusLine = '', ...headerLines] = bytes
      .subarray(offset, headEnd)
      .toString('latin1')
      .split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const bodyStart = headEnd + 4;
    const bodyEnd = bodyStart + Number(headers['content-length'] ?? 0);
    const body = bytes.subarray(bodyStart, bodyEnd).toString('utf8');
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body, closed: true });
    offset = bodyEnd;
  }
  return responses;
}

/**
 * Sends bytes exactly as given and reads every response the server writes until it closes: none,
 * one, or several when the bytes held more than one request. With `endInput` it then ends its side
 * of the connection, so a request whose body never comes still ends (Node closes a connection its
 * client half-closed, and an answer not yet written is lost, so only then).
 */
export function exchangeRaw(
  port: number,
  request: string | Buffer,
  { endInput = false } = {},
): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close while bytes it will never read are still on their way.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks))));
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer within 20 s')));
    if (endInput) socket.end(request);
    else socket.write(request);
  });
}

const codes = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** Whether Node's HTTP parser refuses this header value: a control character but tab (RFC 9110 §5.5). */
export function refusedInHeaderValue(value: string): boolean {
  return codes(value).some((code) => (code < 0x20 && code !== 0x09) || code === 0x7f);
}

/** Whether Node's HTTP parser refuses this request target: a space, a control or a non-ASCII byte. */
export function refusedInTarget(target: string): boolean {
  return codes(target).some((code) => code <= 0x20 || code >= 0x7f);
}

/** Text as the bytes it spells, one per character: anything beyond latin1 would be cut silently. */
export function bytesOf(text: string): Buffer {
  if (codes(text).some((code) => code > 0xff))
    throw new Error(`not bytes, encode it first: ${JSON.stringify(text.slice(0, 80))}`);
  return Buffer.from(text, 'latin1');
}

/** Connections to `port`, one per request, and the answer each will get once it is sent. */
function connectionsFor(port: number, count: number) {
  const sockets = Array.from({ length: count }, () => connect(port, '127.0.0.1'));
  const answers = sockets.map(
    (socket) =>
      new Promise<RawResponse>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const [response] = parseResponses(Buffer.concat(chunks));
          if (response) resolve(response);
          else reject(new Error('the server closed the connection without an answer'));
        });
      }),
  );
  return { sockets, answers };
}

/**
 * Sends each request to `server` on a connection of its own, all written in one go once the
 * server has accepted every connection (it accepts one per turn of its event loop), so that it
 * reads them in one turn (or in as few as a busy machine allows). Each request must ask the
 * server to close its connection (`Connection: close`).
 */
export async function sendTogether(
  server: Server,
  requests: readonly string[],
): Promise<RawResponse[]> {
  let accepted = 0;
  const allAccepted = new Promise<void>((resolve) => {
    const onConnection = () => {
      accepted += 1;
      if (accepted < requests.length) return;
      server.off('connection', onConnection);
      resolve();
    };
    server.on('connection', onConnection);
  });
  const { port } = server.address() as AddressInfo;
  const { sockets, answers } = connectionsFor(port, requests.length);
  await allAccepted;
  for (const [index, socket] of sockets.entries()) socket.write(requests[index] as string);
  return Promise.all(answers);
}

/**
 * As `sendTogether`, to a server in another process: the connections are written to once all
 * are open and the server has had `settleMs` to accept them.
 */
export async function sendTogetherTo(
  port: number,
  requests: readonly string[],
  settleMs = 200,
): Promise<RawResponse[]> {
  const { sockets, answers } = connectionsFor(port, requests.length);
  await Promise.all(sockets.map((socket) => once(socket, 'connect')));
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  for (const [index, socket] of sockets.entries()) socket.write(requests[index] as string);
  return Promise.all(answers);
}
