/**
 * A tiny HTTP server that answers what a test scripted, in order, and records what it was sent.
 * Only for the fixture contract's `widgets`, which the server serves in its own tests alone
 * (apps/server/test/served-contract.test.ts); the Animal Store's own operations are tested
 * against the live server.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { readAll } from './fault-proxy.js';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Sent as JSON; no body when absent. */
  readonly body?: unknown;
}

export interface ScriptedServer {
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[];
  /** Queues the answers to the next requests; a request with none queued is answered 500. */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const queue: ScriptedAnswer[] = [];
  const requests: ReceivedRequest[] = [];

  const server = createServer(async (incoming, response) => {
    requests.push({
      method: incoming.method ?? '',
      url: incoming.url ?? '',
      headers: incoming.headers,
      body: (await readAll(incoming)).toString('utf8'),
    });
    const answer = queue.shift() ?? { status: 500, body: { message: 'no answer scripted' } };
    if (answer.body === undefined) {
      response.writeHead(answer.status, answer.headers).end();
      return;
    }
    response
      .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
      .end(JSON.stringify(answer.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => queue.push(...answers),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
