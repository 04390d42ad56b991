import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

/** A TCP proxy in front of PostgreSQL that can cut every connection and refuse new ones. */
class SwitchableProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #up = true;

  constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      if (!this.#up) return client.destroy();
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<number> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return (this.#server.address() as { port: number }).port;
  }

  down() {
    this.#up = false;
    for (const socket of this.#sockets) socket.destroy();
  }

  up() {
    this.#up = true;
  }

  close() {
    this.down();
    this.#server.close();
  }
}

describe('Database outage (PostgreSQL)', () => {
  let proxy: SwitchableProxy;
  let api: TestServer;

  beforeAll(async () => {
    const postgres = new URL(
      process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
    );
    proxy = new SwitchableProxy({ host: postgres.hostname, port: Number(postgres.port || 5432) });
    const port = await proxy.listen();
    api = await startTestServer({
      databaseUrlFor: (url) => {
        const proxied = new URL(url);
        proxied.port = String(port);
        return proxied.toString();
      },
    });
  });
  afterAll(async () => {
    proxy.close();
    await api.close();
  });

  it('while the database is down, /v1 answers 503 service_unavailable and /readyz 503; then it recovers without a restart', async () => {
    const created = await api.request('/v1/pets', {
      method: 'POST',
      json: { name: 'Before', categoryId: 1 },
    });
    expect(created.status).toBe(201);
    const pet = await created.json();

    proxy.down();
    const ready = await api.request('/readyz', { apiKey: null });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ code: 'service_unavailable', status: 503 });
    for (const attempt of [
      api.request('/v1/pets'),
      api.request('/v1/pets', { method: 'POST', json: { name: 'During', categoryId: 1 } }),
    ]) {
      const res = await attempt;
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|Prisma|pg/i);
    }

    proxy.up();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
      status = (await api.request('/readyz', { apiKey: null })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    const listed = (await (await api.request('/v1/pets?limit=100')).json()) as Array<{
      id: number;
    }>;
    // Nothing acknowledged was lost; nothing refused was stored.
    expect(listed.map((entry) => entry.id)).toEqual([pet.id]);
  });
});
