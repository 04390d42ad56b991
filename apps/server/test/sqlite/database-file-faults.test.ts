/**
 * SQLite's file going bad under a running server is a fault like a database that is down: API
 * operations answer 503 service_unavailable with nothing internal in the message, /readyz turns
 * 503 while /healthz stays 200, and once the file is whole again the server serves again,
 * without a restart and with every acknowledged pet still there.
 */
import { execFile } from 'node:child_process';
import { copyFile, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { ErrorBody, Pet } from '@animal-store/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropScratchDatabases, scratchDatabaseUrl } from '../../testing/test-database.js';
import { limitFileSize } from '../support/file-size-limit.js';
import {
  createRoomyKey,
  killLeftoverServers,
  type ServerProcess,
  startServerProcess,
} from '../support/server-process.js';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

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

describe('SQLite file deleted or replaced', () => {
  let api: TestServer;
  let file: string;
  const acknowledged: Pet[] = [];

  const create = async (name: string) => {
    const res = await api.request('/v1/pets', { method: 'POST', json: { name, categoryId: 1 } });
    if (res.status === 201) acknowledged.push((await res.json()) as Pet);
    return res;
  };
  const listedPets = async () => (await (await api.request('/v1/pets?limit=100')).json()) as Pet[];
  /** A one-file copy of the database as it is now, as `VACUUM INTO` makes a backup. */
  const backUp = async (to: string) => {
    await rm(to, { force: true });
    await api.db.$executeRawUnsafe(`VACUUM INTO '${to}'`);
  };

  beforeAll(async () => {
    api = await startTestServer();
    file = api.databaseUrl.slice('file:'.length);
  });
  afterAll(() => api?.close());

  it('answers 503 while the database file is deleted, tells /readyz, and serves again once a backup is back in place, nothing lost', async () => {
    for (const name of ['Rex', 'Tom']) expect((await create(name)).status).toBe(201);
    const backup = `${file}.backup`;
    await backUp(backup);
    await rm(file);

    for (const res of [
      await api.request('/v1/pets'),
      await api.request(`/v1/pets/${acknowledged[0]?.id}`),
      await create('Lost'),
    ]) {
      expect(res.status).toBe(503);
      const body = (await res.json()) as ErrorBody;
      expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(body.message).not.toMatch(/sqlite|file|gone|open|prisma/i);
    }
    expect((await api.request('/readyz', { apiKey: null })).status).toBe(503);
    expect((await api.request('/healthz', { apiKey: null })).status).toBe(200);

    await copyFile(backup, file);
    expect((await api.request('/readyz', { apiKey: null })).status).toBe(200);
    expect(await listedPets()).toEqual(acknowledged);
    expect((await create('Back')).status).toBe(201);
    expect(await listedPets()).toEqual(acknowledged);
  });

  it('follows a database file replaced by rename: it serves the file now at the path, and writes go there', async () => {
    const backup = `${file}.backup`;
    await backUp(backup);
    const inBackup = [...acknowledged];
    expect((await create('After the backup')).status).toBe(201);

    await rename(backup, file);
    expect(await listedPets()).toEqual(inBackup);
    expect((await create('Into the restored file')).status).toBe(201);
    expect(await listedPets()).toEqual([...inBackup, acknowledged.at(-1)]);
  });
});

/**
 * Read-only for the server's open descriptors too: `chmod` is checked only when a file is
 * opened, but writes through any descriptor of a file with the immutable attribute fail
 * (EPERM). Setting that attribute takes root (CAP_LINUX_IMMUTABLE), as CI runs.
 */
async function setImmutable(files: string[], immutable: boolean): Promise<void> {
  await promisify(execFile)('chattr', [immutable ? '+i' : '-i', ...files]);
}

describe.runIf(process.getuid?.() === 0)('SQLite file made read-only', () => {
  let api: TestServer;

  beforeAll(async () => {
    api = await startTestServer();
  });
  afterAll(() => api?.close());

  it('answers 503 to writes while the file is read-only, keeps serving reads, and writes again once it is writable, nothing lost', async () => {
    const acknowledged: Pet[] = [];
    const create = async (name: string) => {
      const res = await api.request('/v1/pets', { method: 'POST', json: { name, categoryId: 1 } });
      if (res.status === 201) acknowledged.push((await res.json()) as Pet);
      return res;
    };
    expect((await create('Rex')).status).toBe(201);
    expect((await api.request('/v1/pets')).status).toBe(200);
    const file = api.databaseUrl.slice('file:'.length);
    const files = [file, `${file}-wal`];

    await setImmutable(files, true);
    try {
      const res = await create('Lost');
      expect(res.status).toBe(503);
      const body = (await res.json()) as ErrorBody;
      expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(body.message).not.toMatch(/sqlite|read-?only|permi|disk|prisma/i);
      const list = await api.request('/v1/pets');
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual(acknowledged);
      expect((await api.request('/healthz', { apiKey: null })).status).toBe(200);
    } finally {
      await setImmutable(files, false);
    }

    expect((await create('Back')).status).toBe(201);
    expect(await (await api.request('/v1/pets')).json()).toEqual(acknowledged);
  });
});

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
    const acknowledged: Pet[] = [];
    for (const name of ['Rex', 'Tom']) {
      const res = await create(name);
      expect(res.status).toBe(201);
      acknowledged.push((await res.json()) as Pet);
    }
    // Serving the first list stores the database's cursor key: a write, made once per database.
    expect((await call('/v1/pets')).status).toBe(200);
    const pid = server.child.pid as number;
    await limitFileSize(pid, 1);
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const res = await create(`Lost ${attempt}`);
        expect(res.status).toBe(503);
        const body = (await res.json()) as ErrorBody;
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
    acknowledged.push((await res.json()) as Pet);
    const list = await call('/v1/pets');
    expect(await list.json()).toEqual(acknowledged);
    expect((await call('/readyz')).status).toBe(200);
  });
});
