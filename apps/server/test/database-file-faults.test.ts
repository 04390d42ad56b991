/**
 * SQLite's file going bad under a running server is a fault like a database that is down: API
 * operations answer 503 service_unavailable with nothing internal in the message, /readyz turns
 * 503 while /healthz stays 200, and once the file is whole again the server serves again,
 * without a restart and with every acknowledged pet still there.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRoomyKey,
  killLeftoverServers,
  type ServerProcess,
  startServerProcess,
} from './support/server-process.js';
import { dropScratchDatabases, scratchDatabaseUrl } from './support/test-database.js';
import { startTestServer, type TestResponse, type TestServer } from './support/test-server.js';

/** The database file and the WAL files beside it, as SQLite keeps them. */
const FILE_SUFFIXES = ['', '-wal', '-shm'];

async function snapshot(file: string): Promise<Map<string, Buffer>> {
  const copies = new Map<string, Buffer>();
  for (const suffix of FILE_SUFFIXES) {
    const content = await readFile(`${file}${suffix}`).catch(() => undefined);
    if (content) copies.set(`${file}${suffix}`, content);
  }
  return copies;
}

/** Overwrites each file in place (same inode, same size) with bytes that are no database. */
async function garble(copies: Map<string, Buffer>): Promise<void> {
  for (const [path, content] of copies) await writeFile(path, Buffer.alloc(content.length, 0x41));
}

async function restore(copies: Map<string, Buffer>): Promise<void> {
  for (const [path, content] of copies) await writeFile(path, content);
}

describe('SQLite file faults', () => {
  let api: TestServer;
  const created: number[] = [];

  beforeAll(async () => {
    api = await startTestServer();
    for (const name of ['Rex', 'Tom', 'Kit']) {
      const res = await api.request('/v1/pets', { method: 'POST', json: { name, categoryId: 1 } });
      expect(res.status).toBe(201);
      created.push((await res.json()).id);
    }
  });
  afterAll(() => api?.close());

  it('answers 503 while the file is corrupt, tells /readyz, and serves again once it is whole, nothing lost', async () => {
    const file = api.databaseUrl.slice('file:'.length);
    const whole = await snapshot(file);
    await garble(whole);
    try {
      const responses = [
        await api.request('/v1/pets'),
        await api.request(`/v1/pets/${created[0]}`),
        await api.request('/v1/pets', { method: 'POST', json: { name: 'Lost', categoryId: 1 } }),
      ];
      for (const res of responses) {
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
        expect(body.message).not.toMatch(/sqlite|database disk|not a database|prisma/i);
      }
      expect((await api.request('/readyz', { apiKey: null })).status).toBe(503);
      expect((await api.request('/healthz', { apiKey: null })).status).toBe(200);
    } finally {
      await restore(whole);
    }

    expect((await api.request('/readyz', { apiKey: null })).status).toBe(200);
    const list = await api.request('/v1/pets');
    expect(list.status).toBe(200);
    expect((await list.json()).map((pet: { id: number }) => pet.id)).toEqual(created);
    const res = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Back', categoryId: 1 },
    });
    expect(res.status).toBe(201);
  });
});

/**
 * A full disk, for one process: with its file size limit (RLIMIT_FSIZE, set from outside with
 * util-linux's `prlimit`) at 1 byte, every write that would grow a file past it fails with
 * EFBIG, as writes on a full disk fail with ENOSPC. The soft limit alone changes, so any user
 * may lift it again.
 */
async function limitFileSize(pid: number, bytes: number | 'unlimited'): Promise<void> {
  await promisify(execFile)('prlimit', [`--pid=${pid}`, `--fsize=${bytes}:`]);
}

describe('SQLite on a full disk', () => {
  let server: ServerProcess;
  let key: string;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    }) as Promise<TestResponse>;
  const create = (name: string) =>
    call('/v1/pets', { method: 'POST', body: JSON.stringify({ name, categoryId: 1 }) });

  beforeAll(async () => {
    const databaseUrl = await scratchDatabaseUrl();
    key = await createRoomyKey(databaseUrl);
    server = await startServerProcess({ DATABASE_URL: databaseUrl });
  });
  afterAll(async () => {
    killLeftoverServers();
    await dropScratchDatabases();
  });

  it('answers 503 to writes while the disk is full, keeps serving reads, and writes again once there is room, nothing lost', async () => {
    const acknowledged: Array<{ id: number; name: string }> = [];
    for (const name of ['Rex', 'Tom']) {
      const res = await create(name);
      expect(res.status).toBe(201);
      acknowledged.push(await res.json());
    }
    // Serving the first list stores the database's cursor key: a write, made once per database.
    expect((await call('/v1/pets')).status).toBe(200);
    const pid = server.child.pid as number;
    await limitFileSize(pid, 1);
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const res = await create(`Lost ${attempt}`);
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
        expect(body.message).not.toMatch(/sqlite|disk|full|prisma|EFBIG/i);
      }
      const list = await call('/v1/pets');
      expect(list.status).toBe(200);
      expect(await list.json()).toMatchObject(acknowledged);
      expect((await call(`/v1/pets/${acknowledged[0]?.id}`)).status).toBe(200);
      expect((await call('/healthz')).status).toBe(200);
    } finally {
      await limitFileSize(pid, 'unlimited');
    }

    const res = await create('Back');
    expect(res.status).toBe(201);
    acknowledged.push(await res.json());
    const list = await call('/v1/pets');
    expect(await list.json()).toEqual(acknowledged);
    expect((await call('/readyz')).status).toBe(200);
  });
});
