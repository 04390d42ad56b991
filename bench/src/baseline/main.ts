/**
 * The bare baseline: the API's three operations by the same rules, on node:http and libsql with
 * no framework. The bench measures the server against it. Run by the bench as
 * `node dist/baseline/main.js` with PORT, HOST, DATABASE_PATH, KEY_FILE, KEY_PER_MINUTE and
 * KEY_PER_DAY; it writes the API key it creates to KEY_FILE before it listens.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createPageCursors } from './page-cursor.js';
import { openPetDatabase } from './pet-database.js';
import { createPetOperations } from './pet-operations.js';
import { createRateLimits } from './rate-limits.js';
import { createRequestLog } from './request-log.js';
import { createRequestPipeline } from './request-pipeline.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const db = openPetDatabase(required('DATABASE_PATH'));
const key = db.createKey(Number(required('KEY_PER_MINUTE')), Number(required('KEY_PER_DAY')));
writeFileSync(required('KEY_FILE'), JSON.stringify({ key }));

const pipeline = createRequestPipeline({
  db,
  operations: createPetOperations(db, createPageCursors()),
  admit: createRateLimits(),
  log: createRequestLog(),
});
// Node's own limit on request headers, as the server sets it.
const server = createServer({ maxHeaderSize: 16 * 1024 }, pipeline);
server.listen(Number(required('PORT')), process.env.HOST ?? '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    // Exits once the last connection is gone; process.exit() can deadlock (nodejs/node#54918).
    server.close();
    server.closeIdleConnections();
  });
}
