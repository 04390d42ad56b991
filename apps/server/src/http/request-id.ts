import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:]{1,128}$/;

/** The caller's `X-Request-Id` when it is sane, else a fresh one. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
