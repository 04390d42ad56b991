import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Each open connection's latest response and the one before it. HTTP/1.1 answers a connection's
 * requests in order, so these two tell what a connection is still owed (parser-errors.ts) and
 * which answers a shutdown must still mark to close their connection (server.ts).
 */
export interface ConnectionResponses {
  latest(socket: Duplex): ServerResponse | undefined;
  before(res: ServerResponse): ServerResponse | undefined;
  /** The latest response of every open connection. */
  latestOfAll(): Iterable<ServerResponse>;
}

/**
 * The response before this one on its connection, kept on the response itself: a `WeakMap` from
 * each response to the one before costs every keep-alive request a delete and a set in an
 * ephemeron table, which every scavenge then walks. Only the latest
 * response of a connection holds one, so a connection's answers never form a chain.
 */
const PREVIOUS = Symbol('the response before this one on its connection');

type TrackedResponse = ServerResponse & { [PREVIOUS]?: ServerResponse | undefined };

export function trackConnectionResponses(server: Server): ConnectionResponses {
  const latest = new Map<Duplex, TrackedResponse>();
  const track = (req: IncomingMessage, res: TrackedResponse) => {
    const { socket } = req;
    const previous = latest.get(socket);
    // Set on every response, the first of a connection too, before any other listener sees it:
    // so all responses have the same shape wherever they are used.
    res[PREVIOUS] = previous;
    if (previous) previous[PREVIOUS] = undefined;
    else socket.once('close', () => latest.delete(socket));
    latest.set(socket, res);
  };
  server.prependListener('request', track);
  server.prependListener('checkExpectation', track);
  return {
    latest: (socket) => latest.get(socket),
    before: (res) => (res as TrackedResponse)[PREVIOUS],
    latestOfAll: () => latest.values(),
  };
}
