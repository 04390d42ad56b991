/** Requests sent as bytes, as no `fetch` sends them, and the answers read as bytes too. */
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  /** By lower-case name; a repeated header's values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface SendOptions {
  /** How many answers the bytes ask for (more than one when they hold several requests). */
  readonly answers?: number;
  /** Whether the first request is a HEAD, whose answer has no body whatever its length says. */
  readonly head?: boolean;
  /** Ends our side of the connection once the bytes are sent, as a client with no more to say. */
  readonly halfClose?: boolean;
}

/** The complete answers at the start of `bytes`; an answer cut off is left out. */
function answersIn(bytes: Buffer, head: boolean): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset);
    if (headEnd === -1) return answers;
    const [statusLine = '', ...lines] = bytes
      .subarray(offset, headEnd)
      .toString('latin1')
      .split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const status = Number(statusLine.split(' ')[1]);
    const bodyless = (head && answers.length === 0) || status === 204 || status === 304;
    const length = bodyless ? 0 : Number(headers['content-length'] ?? 0);
    const end = headEnd + 4 + length;
    if (end > bytes.length) return answers;
    answers.push({ status, headers, body: bytes.subarray(headEnd + 4, end).toString('utf8') });
    offset = end;
  }
}

/**
 * Sends `request` to 127.0.0.1:`port` on a connection of its own and reads until the answers it
 * asks for have come (then closes it) or the server closes it.
 */
export function sendRaw(
  port: number,
  request: string | Buffer,
  { answers: wanted = 1, head = false, halfClose = false }: SendOptions = {},
): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const done = () => {
      socket.destroy();
      resolve(answersIn(received, head));
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (answersIn(received, head).length >= wanted) done();
    });
    socket.on('close', done);
    // The server may close while bytes it will never read are still on their way.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    if (halfClose) socket.end(request);
    else socket.write(request);
  });
}
