/**
 * The server started as a process, as users start it (`node main.js`): a bad setting refused,
 * where the API reference is logged, shutdown on SIGTERM and SIGINT, and the drain before it. What
 * it does with its database (created on start, nothing acknowledged lost to kill -9) is
 * process-database.test.ts's.
 *
 * @module-tag node-runtime: signals, and Node's HTTP server closing its connections
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { dropScratchDatabases, scratchDatabaseUrl } from '../../testing/test-database.js';
import { eventually } from '../support/eventually.js';
import {
  createPet,
  createRoomyKey,
  killLeftoverServers,
  runRefusedServer,
  startServerProcess,
} from '../support/server-process.js';

afterAll(async () => {
  killLeftoverServers();
  await dropScratchDatabases();
});

/** What a keep-alive load saw, once every one of its connections had closed. */
interface KeepAliveLoad {
  answered: number;
  /** Connections whose last answer said `Connection: close`. */
  closedByServer: number;
  /** Requests written on a connection that closed before answering them. */
  unanswered: number;
}

interface RunningKeepAliveLoad {
  /**
   * Resolves once every connection has had an answer, so that whatever ends one later is the
   * server's doing; rejects if one closes before its first. A fixed sleep proves no such thing on
   * a crowded machine: in CI, 2 of 30 connections once ended having sent nothing, that is
   * without ever having opened before the listener closed.
   */
  everyClientAnswered: Promise<void>;
  /** Resolves once every connection has closed. */
  finished: Promise<KeepAliveLoad>;
}

/**
 * `clients` connections, each sending its next request as soon as the answer to the last one
 * has arrived, over raw sockets so that a request sent and never answered is seen (a client
 * library would retry it or report a plain connection error). A connection ends when an
 * answer says `Connection: close`, or when the server closes it.
 */
function keepAliveLoad(port: number, key: string, clients: number): RunningKeepAliveLoad {
  const load: KeepAliveLoad = { answered: 0, closedByServer: 0, unanswered: 0 };
  let clientsAnswered = 0;
  let everyClientAnswered = () => {};
  let aClientWasNeverAnswered = (_error: Error) => {};
  const answeredOnce = new Promise<void>((resolve, reject) => {
    everyClientAnswered = resolve;
    aClientWasNeverAnswered = reject;
  });
  const request = `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  const client = () =>
    new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let awaiting = false;
      let answeredHere = 0;
      let received = Buffer.alloc(0);
      const send = () => {
        awaiting = true;
        socket.write(request);
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const headEnd = received.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = received.subarray(0, headEnd).toString('latin1');
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (received.length < headEnd + 4 + length) return;
        received = received.subarray(headEnd + 4 + length);
        awaiting = false;
        load.answered += 1;
        answeredHere += 1;
        if (answeredHere === 1 && ++clientsAnswered === clients) everyClientAnswered();
        if (/\r\nconnection: close/i.test(head)) load.closedByServer += 1;
        else send();
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        if (awaiting) load.unanswered += 1;
        if (answeredHere === 0) {
          aClientWasNeverAnswered(new Error('a connection closed before its first answer'));
        }
        resolve();
      });
    });
  return {
    everyClientAnswered: answeredOnce,
    finished: Promise.all(Array.from({ length: clients }, client)).then(() => load),
  };
}

/** True once nothing listens on `port`; a connection that still gets in is closed at once. */
function listenerRefuses(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => {
      probe.destroy();
      resolve(undefined);
    });
    probe.once('error', () => resolve(true));
  });
}

describe('Server process', () => {
  it('a bad setting stops the start: exit 1, every problem listed on stderr, no stack trace', async () => {
    const refused = await runRefusedServer({
      PORT: '0x1269',
      DATABASE_URL: 'mysql://db/pets',
      LOG_LEVEL: 'loud',
      // Set to nothing: unset, so not among the problems.
      SHUTDOWN_DRAIN_MS: '',
    });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    const lines = refused.stderr.trim().split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines.slice(1).map((line) => line.trim().split(':')[0])).toEqual([
      'PORT',
      'DATABASE_URL',
      'LOG_LEVEL',
    ]);
    expect(refused.stderr).not.toMatch(/^\s+at /m);
  });

  it('logs where to open the API reference: the public origin when set, else the address it listens on', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    for (const [env, expected] of [
      [{ PUBLIC_URL: 'https://api.animal-store.test' }, () => 'https://api.animal-store.test/docs'],
      [{}, (baseUrl: string) => `${baseUrl}/docs`],
    ] as const) {
      const server = await startServerProcess(
        { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', ...env },
        { stdout: 'pipe' },
      );
      let logged = '';
      server.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        logged += chunk;
      });
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      if (server.child.stdout && !server.child.stdout.readableEnded) {
        await once(server.child.stdout, 'end');
      }
      const listening = logged
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .find((line) => line.msg === 'Animal Store API listening');
      expect(listening?.docs).toBe(expected(server.baseUrl));
    }
  });

  it('SIGTERM and SIGINT shut down gracefully: in-flight requests finish, then the process exits 0', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const databaseUrl = await scratchDatabaseUrl();
      const key = await createRoomyKey(databaseUrl);
      const server = await startServerProcess({ DATABASE_URL: databaseUrl });
      const inFlight = Array.from({ length: 20 }, (_, i) =>
        createPet(server.baseUrl, key, `In flight ${i}`).then(
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

  it('SIGTERM closes a keep-alive connection after the request it is reading, instead of serving it on', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    const port = Number(new URL(server.baseUrl).port);
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    const body = JSON.stringify({ name: 'Last one in', categoryId: 1 });
    // Half a request is in progress when the signal comes: the connection is not idle.
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
        body.slice(0, 10),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill('SIGTERM');
    // The rest is sent once the server has acted on the signal (its listener closed), not after
    // a fixed wait: on a busy machine the signal and the rest can reach it in the same turn, and
    // a request it finishes before it knows of the signal is rightly answered keep-alive.
    await eventually(() => listenerRefuses(port), 10_000, 'the listener to close');
    socket.write(body.slice(10));

    await once(socket, 'end');
    expect(received).toMatch(/^HTTP\/1\.1 201 /);
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    // Nothing held the server open until its grace period ran out.
    const exitedAt = Date.now();
    expect(await server.exited).toBe(0);
    expect(Date.now() - exitedAt).toBeLessThan(5_000);
    socket.destroy();
  });
});

describe('Shutdown drain', () => {
  const DRAIN_MS = 3_000;

  /** Requests sent one after another from SIGTERM until the port is closed, and what they got. */
  async function probeUntilClosed(baseUrl: string, key: string) {
    const seen: Array<{ path: string; status: number; code?: string; message?: string }> = [];
    const paths = ['/readyz', '/v1/pets', '/healthz'];
    for (let i = 0; ; i += 1) {
      const path = paths[i % paths.length] as string;
      try {
        const res = await fetch(`${baseUrl}${path}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const body = (await res.json()) as { code?: string; message?: string };
        seen.push({ path, status: res.status, code: body.code, message: body.message });
      } catch {
        return seen;
      }
      if (i % 30 === 29) {
        const created = await createPet(baseUrl, key, `Drained ${i}`);
        seen.push({ path: 'create', status: created.status });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('on SIGTERM /readyz answers 503 for the drain period while every other request is served; then the listener closes and the process exits 0', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const server = await startServerProcess(
      { DATABASE_URL: databaseUrl, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) },
      { stdout: 'pipe' },
    );
    let logged = '';
    server.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      logged += chunk;
    });
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    const signalledAt = performance.now();
    server.child.kill('SIGTERM');
    const seen = await probeUntilClosed(server.baseUrl, key);
    const closedAfterMs = performance.now() - signalledAt;
    expect(await server.exited).toBe(0);
    // The process may exit before its last lines are read.
    if (server.child.stdout && !server.child.stdout.readableEnded) {
      await once(server.child.stdout, 'end');
    }

    // The listener stayed open for the whole drain.
    expect(closedAfterMs).toBeGreaterThanOrEqual(DRAIN_MS);
    // Answered 200 only until the signal is handled (the first request may come before), then
    // 503 until the port closes.
    const readiness = seen.filter(({ path }) => path === '/readyz');
    const draining = readiness.slice(readiness.findIndex(({ status }) => status === 503));
    expect(draining.length).toBeGreaterThan(10);
    for (const answer of draining) {
      expect(answer).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(answer.message).toMatch(/shutting down/);
    }
    const served = seen.filter(({ path }) => path !== '/readyz');
    expect(served.some(({ path }) => path === 'create')).toBe(true);
    for (const answer of served) expect(answer.status, answer.path).toBeLessThan(300);
    // A planned drain is no failure: the 503s of /readyz log no error (LOG_LEVEL is warn).
    const lines = logged.split('\n').filter((line) => line.trim() !== '');
    expect(lines.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
  });

  it('busy keep-alive clients lose no request when the listener closes: each is answered, the last with Connection: close', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const server = await startServerProcess({
      DATABASE_URL: databaseUrl,
      SHUTDOWN_DRAIN_MS: '500',
    });
    const port = Number(new URL(server.baseUrl).port);
    const load = keepAliveLoad(port, key, 30);
    await load.everyClientAnswered;
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const { answered, closedByServer, unanswered } = await load.finished;
    // Requests went on through the drain, and every connection was let go with Connection: close.
    expect(answered).toBeGreaterThan(100);
    expect(closedByServer).toBe(30);
    // A request the server had not read yet when the listener closed was reset with it before.
    expect(unanswered).toBe(0);
  });

  it('after SIGTERM, a request read on an idle keep-alive connection is answered with Connection: close, one with an Expect the server ignores too', async () => {
    const databaseUrl = await scratchDatabaseUrl();
    const key = await createRoomyKey(databaseUrl);
    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    const port = Number(new URL(server.baseUrl).port);
    const request = (extraHeaders: string) =>
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n${extraHeaders}\r\n`;
    const clients = await Promise.all(
      ['', 'Expect: something\r\n'].map(async (extraHeaders) => {
        const socket = connect(port, '127.0.0.1');
        await once(socket, 'connect');
        // Listened for from the start: the connection may end before the test awaits it.
        const ended = once(socket, 'end');
        const client = { socket, extraHeaders, received: '', ended };
        socket.setEncoding('utf8').on('data', (chunk: string) => {
          client.received += chunk;
        });
        socket.write(request(extraHeaders));
        return client;
      }),
    );
    // Idle: each first request answered whole (the pets' page is `[]`) before the signal, however
    // slow the machine.
    await eventually(
      async () => clients.every(({ received }) => received.endsWith('\r\n\r\n[]')) || undefined,
      30_000,
      'the first answers',
    );
    server.child.kill('SIGTERM');
    await eventually(() => listenerRefuses(port), 10_000, 'the listener to close');
    for (const client of clients) client.socket.write(request(client.extraHeaders));
    const startedAt = Date.now();
    await Promise.all(clients.map((client) => client.ended));
    for (const { received, extraHeaders } of clients) {
      const answers = received.split(/(?=HTTP\/1\.1 \d{3} )/);
      expect(
        answers.map((answer) => answer.slice(0, 12)),
        extraHeaders,
      ).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
      expect(answers[1], extraHeaders).toMatch(/\r\nconnection: close\r\n/i);
    }
    // Closed with their answers, not at the keep-alive timeout (5 s).
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(await server.exited).toBe(0);
  });

  it('a second SIGTERM cuts the drain short, and SIGINT (Ctrl-C) skips it', async () => {
    for (const signals of [['SIGTERM', 'SIGTERM'], ['SIGINT']] as const) {
      const databaseUrl = await scratchDatabaseUrl();
      const server = await startServerProcess({
        DATABASE_URL: databaseUrl,
        SHUTDOWN_DRAIN_MS: '600000',
      });
      const signalledAt = performance.now();
      const [first, second] = signals;
      server.child.kill(first);
      if (second) {
        // The drain has begun (readiness fails) before the second signal comes.
        while ((await fetch(`${server.baseUrl}/readyz`)).status !== 503) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        server.child.kill(second);
      }
      expect(await server.exited).toBe(0);
      // Far less than the ten minutes the drain would have taken.
      expect(performance.now() - signalledAt, signals.join(' ')).toBeLessThan(60_000);
    }
  });
});
