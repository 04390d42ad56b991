/**
 * The bare baseline: the API's three operations by the same rules, on node:http with no
 * framework, on SQLite (libsql) or on PostgreSQL (pg), with rate limits in Redis (ioredis). The
 * bench measures the server against it. Run by the bench as `node dist/baseline/main.js` with
 * PORT, HOST, KEY_FILE, KEY_PER_MINUTE, KEY_PER_DAY and either DATABASE_PATH (a SQLite file) or
 * DATABASE_URL (a PostgreSQL database), REDIS_URL (optional: without it, rate limits count in
 * this process) and REDIS_KEY_PREFIX (optional); it writes the API key it creates to KEY_FILE before it listens.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createPageCursors } from './page-cursor.js';
import { openPetDatabase } from './pet-database.js';
import { createPetOperations } from './pet-operations.js';
import type { PetStore } from './pet-store.js';
import { openPostgresPetDatabase } from './postgres-pet-database.js';
import { createRateLimits, type RateLimits } from './rate-limits.js';
import { createRedisRateLimits } from './redis-rate-limits.js';
import { createRequestLog } from './request-log.js';
import { createRequestPipeline } from './request-pipeline.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

interface Backend {
  db: PetStore;
  admit: RateLimits;
  /** Writes the API key and returns its secret. */
  createKey(perMinute: number, perDay: number): string | Promise<string>;
  close(): Promise<void>;
}

/** Counts in Redis when REDIS_URL is set, as the server then does; else in this process. */
function openRateLimits(): { admit: RateLimits; close(): Promise<unknown> } {
  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) return { admit: createRateLimits(), close: async () => undefined };
  return createRedisRateLimits(redisUrl, process.env.REDIS_KEY_PREFIX || undefined);
}

async function openBackend(): Promise<Backend> {
  const databaseUrl = process.env.DATABASE_URL;
  const db = databaseUrl
    ? await openPostgresPetDatabase(databaseUrl)
    : openPetDatabase(required('DATABASE_PATH'));
  const counters = openRateLimits();
  return {
    db,
    admit: counters.admit,
    createKey: db.createKey,
    async close() {
      await counters.close();
      // libsql's synchronous database closes with the process.
      if ('close' in db) await db.close();
    },
  };
}

const backend = await openBackend();
const key = await backend.createKey(
  Number(required('KEY_PER_MINUTE')),
  Number(required('KEY_PER_DAY')),
);
writeFileSync(required('KEY_FILE'), JSON.stringify({ key }));

const pipeline = createRequestPipeline({
  db: backend.db,
  operations: createPetOperations(backend.db, createPageCursors()),
  admit: backend.admit,
  log: createRequestLog(),
});
// Node's own limit on request headers, as the server sets it.
const server = createServer({ maxHeaderSize: 16 * 1024 }, pipeline);
server.listen(Number(required('PORT')), process.env.HOST ?? '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    // Exits once the last connection is gone and the database and Redis connections are
    // closed; process.exit() can deadlock (nodejs/node#54918).
    server.close(() => void backend.close());
    server.closeIdleConnections();
  });
}
