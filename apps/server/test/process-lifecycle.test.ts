import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'animal-store-process-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  return typeof address === 'object' && address ? address.port : 0;
}

interface RunningServer {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<number | null>;
}

/** Starts `main.ts` as users do, on the database file given, and waits until it serves. */
async function startMain(databaseFile: string): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `file:${databaseFile}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const ready = await fetch(`${baseUrl}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return { child, baseUrl, exited };
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

describe('Server process', () => {
  it('creates and migrates a fresh embedded database on start', async () => {
    const server = await startMain(join(folder, 'nested', 'fresh.db'));
    const res = await fetch(`${server.baseUrl}/v1/pets`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('a pet is durable before the 201 leaves: kill -9 right after loses nothing acknowledged', async () => {
    const databaseFile = join(folder, 'durable.db');
    const acknowledged: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const server = await startMain(databaseFile);
      for (let i = 0; i < 10; i += 1) {
        const res = await fetch(`${server.baseUrl}/v1/pets`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Survivor ${round}-${i}`, categoryId: 1 }),
        });
        expect(res.status).toBe(201);
        acknowledged.push(((await res.json()) as { id: number }).id);
      }
      server.child.kill('SIGKILL');
      await server.exited;
    }
    const server = await startMain(databaseFile);
    const pets = (await (await fetch(`${server.baseUrl}/v1/pets?limit=100`)).json()) as Array<{
      id: number;
    }>;
    expect(pets.map((pet) => pet.id)).toEqual(acknowledged);
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('SIGTERM and SIGINT shut down gracefully: in-flight requests finish, then the process exits 0', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const server = await startMain(join(folder, `graceful-${signal}.db`));
      const inFlight = Array.from({ length: 20 }, (_, i) =>
        fetch(`${server.baseUrl}/v1/pets`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `In flight ${i}`, categoryId: 1 }),
        }).then(
          (res) => res.status,
          () => 'refused',
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      server.child.kill(signal);
      const statuses = await Promise.all(inFlight);
      expect(await server.exited).toBe(0);
      // Every request either completed or was never accepted; none was cut off half-way.
      for (const status of statuses) expect([201, 'refused']).toContain(status);
    }
  });
});
