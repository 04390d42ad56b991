/**
 * A server under test behind its own HAProxy, configured as docs/operations.md has it (each
 * instance sent at most `maxconn` requests at once, the rest queued, the balancer's own 503):
 * what a crowd meets in production. The load goes to the balancer; the server's process is still
 * the one measured (its CPU and RSS), and the balancer's CPU is not counted.
 */
import { SERVER_MAXCONN, startBalancer } from '@animal-store/server/testing/haproxy';
import { onCleanup } from './cleanup.js';
import type { BenchTarget } from './targets.js';

/** Health checks of `/readyz` as docs/operations.md has them. */
const CHECKS = { intervalMs: 2_000, fall: 3, rise: 2 };

export function behindBalancer(target: BenchTarget): BenchTarget {
  return {
    ...target,
    description: `${target.description}, behind HAProxy (maxconn ${SERVER_MAXCONN}, as docs/operations.md has it)`,
    async start() {
      const started = await target.start();
      const { server } = started;
      const port = Number(new URL(server.origin).port);
      const balancer = await startBalancer([{ name: server.label, port }], CHECKS);
      const cleanup = onCleanup(`stop ${server.label}'s balancer`, () => balancer.stop());
      await balancer.waitFor(server.label, 'UP');
      const stop = async () => {
        await cleanup.now();
        await server.stop();
      };
      return { ...started, server: { ...server, origin: balancer.url, stop } };
    },
  };
}
