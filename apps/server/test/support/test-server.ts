import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrismaClient } from '@animal-store/db';
import { type Logger, pino } from 'pino';
import { inject } from 'vitest';
import { createApp } from '../../src/app.js';
import { closeGracefully, createHttpServer, listen } from '../../src/server.js';

/** Tests probe response bodies of every shape, so `json()` is untyped here. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface TestServer {
  baseUrl: string;
  port: number;
  databaseUrl: string;
  /** `fetch` relative to the server, JSON-encoding `json` when given. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<TestResponse>;
  close(): Promise<void>;
}

/** A real server on a real SQLite database of its own, listening on a free port. */
export async function startTestServer(
  options: { publicUrl?: string; logger?: Logger } = {},
): Promise<TestServer> {
  const folder = await mkdtemp(join(tmpdir(), 'animal-store-test-'));
  const databaseFile = join(folder, 'test.db');
  await copyFile(inject('templateDatabaseFile'), databaseFile);
  const databaseUrl = `file:${databaseFile}`;
  const db = createPrismaClient(databaseUrl);
  const logger = options.logger ?? pino({ level: 'silent' });
  const server = createHttpServer(createApp({ db, logger, publicUrl: options.publicUrl }));
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    port,
    databaseUrl,
    request(path, { json, ...init } = {}) {
      if (json === undefined) return fetch(`${baseUrl}${path}`, init) as Promise<TestResponse>;
      const headers = new Headers(init.headers);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(`${baseUrl}${path}`, {
        ...init,
        headers,
        body: JSON.stringify(json),
      }) as Promise<TestResponse>;
    },
    async close() {
      await closeGracefully(server);
      await db.$disconnect();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
