// @module-tag node-runtime: Node's HTTP server keeps the connections
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectionResponses, trackConnectionResponses } from './connection-responses.js';

/** A server whose requests wait, unanswered, until the test answers them. */
async function startServer() {
  const unanswered: ServerResponse[] = [];
  const arrivals: (() => void)[] = [];
  const server = createServer((_req, res) => {
    unanswered.push(res);
    arrivals.shift()?.();
  });
  const responses = trackConnectionResponses(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const arrived = async (count: number) => {
    while (unanswered.length < count) await new Promise<void>((resolve) => arrivals.push(resolve));
  };
  return { server, responses, unanswered, arrived };
}

let server: Server | undefined;
const clients: Socket[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  const stopping = server;
  server = undefined;
  if (!stopping) return;
  stopping.closeAllConnections();
  await new Promise((resolve) => stopping.close(resolve));
});

async function keepAliveClient(port: number): Promise<Socket> {
  const client = connect(port, '127.0.0.1');
  clients.push(client);
  await once(client, 'connect');
  client.resume();
  return client;
}

const GET = 'GET / HTTP/1.1\r\nHost: test\r\n\r\n';

async function answer(res: ServerResponse): Promise<void> {
  res.end('ok');
  await once(res, 'finish');
}

const latestOfAll = (responses: ConnectionResponses) => [...responses.latestOfAll()];

describe("a connection's responses", () => {
  it('are held while unanswered, and let go once answered, the connection still open', async () => {
    const started = await startServer();
    server = started.server;
    const { responses, unanswered, arrived } = started;
    const client = await keepAliveClient((server.address() as AddressInfo).port);

    client.write(GET);
    await arrived(1);
    const [first] = unanswered as [ServerResponse];
    const socket: Duplex = first.req.socket;
    expect(responses.latest(socket)).toBe(first);
    expect(latestOfAll(responses)).toEqual([first]);
    const closeListeners = socket.listenerCount('close');

    await answer(first);
    expect(responses.latest(socket)).toBeUndefined();
    expect(latestOfAll(responses)).toEqual([]);

    // The next request on the same connection is tracked as the first was, and adds no
    // listener to the connection: a long keep-alive connection gathers none.
    client.write(GET);
    await arrived(2);
    const second = unanswered[1] as ServerResponse;
    expect(second.req.socket).toBe(socket);
    expect(responses.latest(socket)).toBe(second);
    expect(responses.before(second)).toBeUndefined();
    expect(socket.listenerCount('close')).toBe(closeListeners);
    await answer(second);
    expect(latestOfAll(responses)).toEqual([]);
  });

  it('of pipelined requests: the one before the latest is held until it is answered', async () => {
    const started = await startServer();
    server = started.server;
    const { responses, unanswered, arrived } = started;
    const client = await keepAliveClient((server.address() as AddressInfo).port);

    client.write(GET + GET);
    await arrived(2);
    const [first, second] = unanswered as [ServerResponse, ServerResponse];
    const socket: Duplex = first.req.socket;
    expect(responses.latest(socket)).toBe(second);
    expect(responses.before(second)).toBe(first);

    await answer(first);
    expect(responses.latest(socket)).toBe(second);
    expect(responses.before(second)).toBeUndefined();

    await answer(second);
    expect(responses.latest(socket)).toBeUndefined();
  });
});
