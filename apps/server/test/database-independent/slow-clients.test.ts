/**
 * Slow and hostile clients cannot hold the server: a client that trickles its headers, or its
 * body, is cut off at the configured deadline, while everyone else is served meanwhile.
 *
 * @module-tag node-runtime: Node's HTTP server keeps the deadlines
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer({ clientTimeouts: { headersMs: 1_500, requestMs: 3_000 } });
});
afterAll(() => api.close());

/** A connection that sends `first`, then one more `line` every `everyMs` until it is closed. */
async function trickle(first: string, line: (i: number) => string, everyMs: number) {
  const socket = connect(api.port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(first);
  let i = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(line(i++));
  }, everyMs);
  const closed = once(socket, 'close').then(() => performance.now());
  return { socket, closed, stop: () => clearInterval(timer) };
}

async function closedWithin(
  connection: { socket: Socket; closed: Promise<number>; stop(): void },
  ms: number,
  started: number,
) {
  const timeout = new Promise<number>((resolve) =>
    setTimeout(() => resolve(Number.POSITIVE_INFINITY), ms),
  );
  const closedAt = await Promise.race([connection.closed, timeout]);
  connection.stop();
  connection.socket.destroy();
  return closedAt - started;
}

describe('Slow clients', () => {
  it('a client trickling one header line at a time is cut off at the headers deadline while others are served', async () => {
    const started = performance.now();
    const slow = await trickle(
      'GET /v1/pets HTTP/1.1\r\nHost: localhost\r\n',
      (i) => `X-Slow-${i}: 1\r\n`,
      300,
    );
    // Meanwhile a normal request is answered at once.
    const res = await api.request('/v1/pets');
    expect(res.status).toBe(200);
    const elapsed = await closedWithin(slow, 6_000, started);
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    expect(elapsed).toBeLessThan(4_000);
  });

  it('a client trickling its body is cut off at the request deadline', async () => {
    const started = performance.now();
    const slow = await trickle(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"`,
      () => 'a',
      300,
    );
    const elapsed = await closedWithin(slow, 8_000, started);
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(6_000);
    expect((await api.request('/v1/pets')).status).toBe(200);
  });
});
