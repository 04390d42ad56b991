import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Each open connection's latest response and the one before it. HTTP/1.1 answers a connection's
 * requests in order, so these two tell what a connection is still owed (parser-errors.ts) and
 * which answers a shutdown must still mark to close their connection (server.ts). Every request
 * costs two map writes.
 */
export interface ConnectionResponses {
  latest(socket: Duplex): ServerResponse | undefined;
  before(res: ServerResponse): ServerResponse | undefined;
  /** The latest response of every open connection. */
  latestOfAll(): Iterable<ServerResponse>;
}

export function trackConnectionResponses(server: Server): ConnectionResponses {
  const latest = new Map<Duplex, ServerResponse>();
  const before = new WeakMap<ServerResponse, ServerResponse>();
  const track = (req: IncomingMessage, res: ServerResponse) => {
    const { socket } = req;
    const previous = latest.get(socket);
    if (previous) {
      before.delete(previous);
      before.set(res, previous);
    } else {
      socket.once('close', () => latest.delete(socket));
    }
    latest.set(socket, res);
  };
  server.on('request', track);
  server.on('checkExpectation', track);
  return {
    latest: (socket) => latest.get(socket),
    before: (res) => before.get(res),
    latestOfAll: () => latest.values(),
  };
}
