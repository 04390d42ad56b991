import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Each open connection's latest response not yet answered, and the one before it if that is not
 * answered either. HTTP/1.1 answers a connection's requests in order, so these two tell what a
 * connection is still owed (parser-errors.ts) and which answers a shutdown must still mark to
 * close their connection (server.ts).
 *
 * An answered response is let go at once: a keep-alive connection between requests, or a client
 * asleep on a 503's `Retry-After`, would otherwise keep its last request and response alive
 * (about 8 KB of the heap each, with Express's objects), and a crowd of thousands of them grows
 * the old generation by tens of megabytes.
 */
export interface ConnectionResponses {
  latest(socket: Duplex): ServerResponse | undefined;
  before(res: ServerResponse): ServerResponse | undefined;
  /** The latest unanswered response of every open connection. */
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
  // A connection has an entry from its first request to its close; its value is undefined
  // while nothing on it is unanswered.
  const latest = new Map<Duplex, TrackedResponse | undefined>();
  // One listener for every response, not a closure each.
  function forgetAnswered(this: TrackedResponse) {
    const { socket } = this.req;
    const newest = latest.get(socket);
    if (newest === this) latest.set(socket, undefined);
    else if (newest?.[PREVIOUS] === this) newest[PREVIOUS] = undefined;
  }
  const track = (req: IncomingMessage, res: TrackedResponse) => {
    const { socket } = req;
    const previous = latest.get(socket);
    // Set on every response, the first of a connection too, before any other listener sees it:
    // so all responses have the same shape wherever they are used.
    res[PREVIOUS] = previous;
    if (previous) previous[PREVIOUS] = undefined;
    else if (!latest.has(socket)) socket.once('close', () => latest.delete(socket));
    latest.set(socket, res);
    res.on('finish', forgetAnswered);
  };
  server.prependListener('request', track);
  server.prependListener('checkExpectation', track);
  return {
    latest: (socket) => latest.get(socket),
    before: (res) => (res as TrackedResponse)[PREVIOUS],
    latestOfAll: function* () {
      for (const res of latest.values()) if (res) yield res;
    },
  };
}
