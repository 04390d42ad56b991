import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

/** Sends bytes exactly as given, for requests `fetch` refuses to build. */
export function sendRaw(port: number, request: string | Buffer): Promise<RawResponse> {
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
    socket.write(request);
  });
}
