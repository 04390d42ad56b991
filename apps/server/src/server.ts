import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { MAX_HEADER_BYTES } from './http/limits.js';
import { answerParserError } from './http/parser-errors.js';

/** How long in-flight requests get to finish after a shutdown signal before connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

export function createHttpServer(app: Express): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
  server.on('clientError', answerParserError);
  return server;
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops accepting, lets in-flight requests finish (up to a grace period), then resolves. */
export function closeGracefully(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    deadline.unref();
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}
