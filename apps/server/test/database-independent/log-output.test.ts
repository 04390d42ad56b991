/**
 * Request logs stay on under load, but they never hold the process's memory hostage: while
 * stdout does not keep up, log output beyond a bounded buffer is shed, and what was shed is
 * counted and reported once the output flows again.
 *
 * @module-tag node-runtime: a process's stdout when it does not keep up
 */
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { dropScratchDatabases, scratchDatabaseUrl } from '../../testing/test-database.js';
import { limitFileSize } from '../support/file-size-limit.js';
import {
  createRoomyKey,
  killLeftoverServers,
  startServerProcess,
} from '../support/server-process.js';

afterAll(async () => {
  killLeftoverServers();
  await dropScratchDatabases();
});

const REQUESTS = 2_000;

/** Collects stdout's JSON lines from now on, until `done` says enough. */
async function readLogLines(
  stdout: Readable,
  done: (lines: Array<Record<string, unknown>>) => boolean,
) {
  const lines: Array<Record<string, unknown>> = [];
  for await (const line of createInterface({ input: stdout })) {
    lines.push(JSON.parse(line) as Record<string, unknown>);
    if (done(lines)) break;
  }
  return lines;
}

const shedCount = (lines: Array<Record<string, unknown>>) =>
  lines.reduce((sum, line) => sum + (typeof line.shedLines === 'number' ? line.shedLines : 0), 0);

describe('Log output', () => {
  it('sheds request log lines beyond its buffer while stdout is stalled, and reports how many', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const server = await startServerProcess(
      { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', LOG_BUFFER_BYTES: '65536' },
      { stdout: 'pipe' },
    );
    const stdout = server.child.stdout as Readable;
    // Nobody reads stdout: the pipe fills, and the server's writes stall.
    stdout.pause();

    for (let sent = 0; sent < REQUESTS; sent += 50) {
      const batch = Array.from({ length: 50 }, () =>
        fetch(`${server.baseUrl}/v1/pets?limit=1`, {
          headers: { authorization: `Bearer ${key}` },
        }).then((res) => res.status),
      );
      expect(new Set(await Promise.all(batch))).toEqual(new Set([200]));
    }

    // Reading again: what was buffered arrives, then the reports of what was shed, until every
    // request's line was either written or counted as shed (a count lost would time out here).
    const requestLines = (lines: Array<Record<string, unknown>>) =>
      lines.filter((line) => line.msg === 'request completed').length;
    const lines = await readLogLines(
      stdout,
      (seen) => requestLines(seen) + shedCount(seen) >= REQUESTS,
    );
    expect(shedCount(lines)).toBeGreaterThan(0);
    expect(requestLines(lines)).toBeLessThan(REQUESTS);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('keeps serving while stdout cannot be written (a log file on a full disk), logs again once it can, and still exits cleanly', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'animal-store-log-'));
    try {
      const databaseUrl = await scratchDatabaseUrl();
      const key = await createRoomyKey(databaseUrl);
      const logFile = join(folder, 'server.log');
      const descriptor = openSync(logFile, 'w');
      const server = await startServerProcess(
        { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' },
        { stdout: descriptor },
      );
      closeSync(descriptor);
      const list = () =>
        fetch(`${server.baseUrl}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
      // The first list stores the database's cursor key: a write the full disk would refuse.
      expect((await list()).status).toBe(200);
      const pid = server.child.pid as number;

      await limitFileSize(pid, 1);
      for (let i = 0; i < 20; i += 1) expect((await list()).status).toBe(200);
      await limitFileSize(pid, 'unlimited');
      const sizeBefore = (await readFile(logFile)).length;
      expect((await list()).status).toBe(200);
      await expect
        .poll(async () => (await readFile(logFile)).length, { timeout: 10_000 })
        .toBeGreaterThan(sizeBefore);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
