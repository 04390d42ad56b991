/**
 * A tiny HTTP proxy in front of the live server that misbehaves on purpose, the way a network
 * or an overloaded gateway does: it can answer in place of the server, or forward a request and
 * then drop the connection without passing the answer on.
 */
import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export interface ForwardedAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * What to do with one request: `forward` passes it on and back; `answer` replies without the
 * server; `drop-after-forward` lets the server handle it, then closes the client's connection.
 */
export type FaultAction =
  | { kind: 'forward' }
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: unknown }
  | { kind: 'drop-after-forward' };

export interface FaultProxy {
  readonly baseUrl: string;
  /** Every request that reached the proxy, in order. */
  readonly requests: SeenRequest[];
  /** Every answer the server gave through the proxy, dropped ones included. */
  readonly answers: ForwardedAnswer[];
  /** Queues actions for the next requests; after the queue, requests are forwarded. */
  plan(...actions: FaultAction[]): void;
  close(): Promise<void>;
}

/** Every byte of `stream`, once it has ended. */
export async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  const queue: FaultAction[] = [];
  const requests: SeenRequest[] = [];
  const answers: ForwardedAnswer[] = [];

  async function forward(incoming: IncomingMessage, body: Buffer) {
    const outgoing = request({
      host: targetUrl.hostname,
      port: targetUrl.port,
      method: incoming.method,
      path: incoming.url,
      headers: { ...incoming.headers, host: targetUrl.host },
    });
    outgoing.end(body);
    const [reply] = (await once(outgoing, 'response')) as [IncomingMessage];
    const replyBody = await readAll(reply);
    answers.push({
      status: reply.statusCode ?? 0,
      headers: reply.headers,
      body: replyBody.toString('utf8'),
    });
    return { reply, replyBody };
  }

  async function handle(incoming: IncomingMessage, response: ServerResponse) {
    const body = await readAll(incoming);
    requests.push({
      method: incoming.method ?? '',
      url: incoming.url ?? '',
      headers: incoming.headers,
    });
    const action = queue.shift() ?? { kind: 'forward' };
    if (action.kind === 'answer') {
      response.writeHead(action.status, {
        'content-type': 'application/json; charset=utf-8',
        ...action.headers,
      });
      response.end(JSON.stringify(action.body));
      return;
    }
    const { reply, replyBody } = await forward(incoming, body);
    if (action.kind === 'drop-after-forward') {
      // The server has answered (and committed); the client never hears of it.
      response.socket?.destroy();
      return;
    }
    const { 'transfer-encoding': _chunked, connection: _connection, ...headers } = reply.headers;
    response.writeHead(reply.statusCode ?? 502, headers);
    response.end(replyBody);
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch(() => response.socket?.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    answers,
    plan: (...actions) => queue.push(...actions),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
