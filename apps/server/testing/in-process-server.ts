/**
 * For other packages' tests whose rule is about time (`@animal-store/server/testing/in-process-server`):
 * the server started in the test's own process on a clock the test moves, as the server's own
 * tests start it, so that a rate-limit window, a ban or the key recheck period ends when the test
 * says. A server process reads the system's clocks, and nothing lets a process take another
 * (src/clock.ts): the tests that need none start the process (`@animal-store/server/testing`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPrismaClient, migrateDatabase } from '@animal-store/db';
import { pino } from 'pino';
import { animalStoreApi } from '../src/animal-store-api.js';
import { resumingRepliesTogether } from '../src/batching/replies-together.js';
import { MemoryRateLimitStore } from '../src/limits/memory-store.js';
import { closeGracefully, createApiServer, listen } from '../src/server.js';
import type { TestClock } from './test-clock.js';

export interface InProcessServer {
  /** The origin, e.g. `http://127.0.0.1:41234` (the contract's paths add `/v1`). */
  readonly baseUrl: string;
  /** The server's time, which stands still until the test moves it. */
  readonly clock: TestClock;
  /** Stops listening and closes its database client; the database stays, the caller's. */
  stop(): Promise<void>;
}

/**
 * The Animal Store API on `databaseUrl` (migrated first, as `main.ts` does), its counts in
 * memory, listening on a free port of 127.0.0.1.
 */
export async function startInProcessServer(options: {
  databaseUrl: string;
  clock: TestClock;
}): Promise<InProcessServer> {
  await migrateDatabase(options.databaseUrl);
  const db = createPrismaClient(options.databaseUrl, {
    continueReplies: resumingRepliesTogether(),
  });
  const rateLimits = new MemoryRateLimitStore();
  const server: Server = createApiServer({
    api: animalStoreApi,
    db,
    logger: pino({ level: 'warn' }),
    rateLimits,
    // As main.ts does outside production, which a test never is.
    validateResponses: true,
    clock: options.clock,
  });
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    clock: options.clock,
    stop() {
      stopped ??= (async () => {
        // A browser's keep-alive connections are idle between its requests: not waited for.
        const closed = closeGracefully(server, 1_000);
        server.closeIdleConnections();
        await closed;
        await rateLimits.close();
        await db.$disconnect();
      })();
      return stopped;
    },
  };
}
