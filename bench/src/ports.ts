import { once } from 'node:events';
import { createServer } from 'node:net';

/**
 * A port free on 127.0.0.1 right now. Chosen up front because the server's own "listening" log
 * line goes to stdout, which the bench discards.
 */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no free port found');
  return address.port;
}
