import type { Server } from 'node:http';

/**
 * Closes the listener; `done` runs once every connection has ended. `http.Server#close` first
 * destroys each connection idle between two requests (through the server's own
 * `closeIdleConnections`), and with it any request its client has already sent but the server
 * has not read yet: reset, never answered. That one step is skipped; the rest of `close` (the
 * end of its timeout checks, then the listener) runs as Node has it. An idle connection then
 * ends as it always does: with its next answer, sent with `Connection: close`, or at its
 * keep-alive timeout, which its `Keep-Alive` header announced, and at the end of the grace
 * period at the latest.
 */
export function stopListening(server: Server, done: () => void) {
  server.closeIdleConnections = () => {};
  try {
    server.close(() => done());
  } finally {
    Reflect.deleteProperty(server, 'closeIdleConnections');
  }
}
