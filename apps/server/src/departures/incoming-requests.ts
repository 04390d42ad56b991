import type { IncomingMessage, Server } from 'node:http';

/**
 * A client may end its side of the connection once it has sent its request. By default Node
 * then abandons the requests in progress, so a pet could be stored with its 201 never sent; with
 * `httpAllowHalfOpen` (long-standing in Node, though undeclared in its types) it answers them,
 * then closes.
 */
export function answerHalfClosedConnections(server: Server): void {
  Object.assign(server, { httpAllowHalfOpen: true });
}

/**
 * A request whose head announces no body (no `Content-Length`, no `Transfer-Encoding`) is read to
 * its end at once. Node otherwise drains it only once it is answered, and adds a listener to each
 * such request to let go of it afterwards.
 */
export function readBodilessRequestsAtOnce(server: Server): void {
  server.on('request', (req: IncomingMessage) => {
    const { headers } = req;
    if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      req.resume();
    }
  });
}
