import type { Socket } from 'node:net';

/**
 * Node's HTTP server reads a connection for as long as its answers do not back up, however many
 * of its requests are already waiting: a client pipelining requests into the line beyond the
 * concurrency limit had every one of them parsed and held, thousands from one connection
 * (docs/performance.md). A connection is held unread here instead, and stays so until it is let
 * go, although Node resumes a connection's socket whenever a request reads its body (which the
 * server does at once for those without one, `readBodilessRequestsAtOnce`), and once its answers
 * have drained when it paused it for them. It relies on Node's server reading a socket exactly
 * while it is flowing: `pause()` stops the reads and a `'resume'` event starts them again
 * (`onSocketPause` and `onSocketResume` in Node's `_http_server.js`).
 */
const HELD = Symbol('held unread');

type HeldSocket = Socket & { [HELD]?: boolean };

/** Runs after Node's own `'resume'` listener has started the reads, before any read is made. */
function staysPausedWhileHeld(this: HeldSocket) {
  if (this[HELD] === true) this.pause();
}

/**
 * Reads nothing more of the connection than it has read already (at most one chunk, which the
 * parser finishes). What the client sends meanwhile stays in the kernel's buffers, and TCP holds
 * the client back once they are full.
 */
export function holdUnread(socket: Socket): void {
  const held = socket as HeldSocket;
  if (held[HELD] === undefined) held.on('resume', staysPausedWhileHeld);
  held[HELD] = true;
  held.pause();
}

/** Reads the connection again, unless Node's server holds it too (its answers backing up). */
export function letRead(socket: Socket): void {
  const held = socket as HeldSocket;
  if (held[HELD] !== true) return;
  held[HELD] = false;
  if (!held.destroyed) held.resume();
}
