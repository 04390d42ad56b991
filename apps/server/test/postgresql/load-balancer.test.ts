/**
 * The server as production runs it: three instances, started by their start script, on one
 * PostgreSQL database and one Redis, behind a real HAProxy that checks `/readyz` of each and
 * forwards client addresses (`option forwardfor`, `TRUST_PROXY` set to the balancer's address).
 * Clients bind addresses of their own on loopback (127.0.0.2, 127.0.0.3…), so per-IP limits
 * see them apart.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createPrismaClient } from '@animal-store/db';
import { freePort } from '@animal-store/local-ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BalancedDeployment,
  startBalancedDeployment,
} from '../../testing/balanced-deployment.js';
import type { Balancer } from '../../testing/haproxy.js';
import { type LiveServer, ROOMY } from '../../testing/live-server.js';
import { SYSTEM_TOOL_INSTALL_MS } from '../../testing/system-tool.js';
import { counterSum } from '../support/counter-sum.js';
import { awayFromMinuteEnd } from '../support/minute-window.js';

/**
 * Checks ten times a second: three instances make 30 checks a second from the balancer's one
 * address, past the Free plan's minute (60) in two seconds and its day (1,000) in 34.
 */
const CHECKS = { intervalMs: 100, fall: 3, rise: 2 };

/**
 * The drain outlasts the balancer's noticing (3 failed checks 100 ms apart, and up to one more
 * interval before the first), with room for a busy machine.
 */
const DRAIN_MS = 2_000;

/** Health checks run at least this long before the tests judge them: past a whole minute. */
const CHECKED_FOR_MS = 65_000;

interface Answer {
  status: number;
  body: string;
}

/**
 * HTTP from one loopback address, with keep-alive connections as a real client keeps them.
 * A connection that fails rejects, as it would for any client.
 */
function clientAt(localAddress: string) {
  const agent = new Agent({ keepAlive: true });
  const send = (
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request(
        url,
        { method: init.method ?? 'GET', headers: init.headers, agent, localAddress },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(init.body);
    });
  return { send, close: () => agent.destroy() };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function newPet(key: string, name: string, idempotencyKey?: string) {
  return {
    method: 'POST',
    headers: {
      ...bearer(key),
      'content-type': 'application/json',
      ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
    },
    body: JSON.stringify({ name, categoryId: 1 }),
  };
}

describe('Behind a load balancer (HAProxy, three instances, PostgreSQL and Redis)', () => {
  const names = ['one', 'two', 'three'];
  const metricsPorts: number[] = [];
  let deployment: BalancedDeployment;
  let instances: readonly LiveServer[];
  let databaseUrl: string;
  let balancer: Balancer;
  let checksBeganAt: number;
  let roomyKey: string;

  /** A keyed client asking all along, from the first health check to the storm test's end. */
  const steadyClient = { statuses: [] as Array<number | string>, stop: () => {} };

  beforeAll(async () => {
    for (const _ of names) metricsPorts.push(await freePort());
    deployment = await startBalancedDeployment({
      names,
      checks: CHECKS,
      settings: (index) => ({
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        METRICS_PORT: String(metricsPorts[index]),
      }),
    });
    ({ instances, databaseUrl, balancer } = deployment);
    roomyKey = await (instances[0] as LiveServer).createKey(ROOMY);
    checksBeganAt = Date.now();

    const client = clientAt('127.0.0.2');
    let running = true;
    steadyClient.stop = () => {
      running = false;
    };
    void (async () => {
      while (running) {
        const answer = await client
          .send(`${balancer.url}/v1/pets?limit=5`, { headers: bearer(roomyKey) })
          .then(
            ({ status }) => status,
            (error: Error) => error.message,
          );
        steadyClient.statuses.push(answer);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      client.close();
    })();
    // On a fresh machine startBalancedDeployment installs HAProxy first (apt-get), after waiting
    // for any other suite's apt-get (the web suite's Chromium) to finish.
  }, SYSTEM_TOOL_INSTALL_MS);

  afterAll(async () => {
    steadyClient.stop();
    await deployment?.stop();
  });

  it('limits stay exact across instances: a Free key gets exactly 60 requests in a minute through the balancer', async () => {
    const freeKey = await (instances[0] as LiveServer).createKey({ plan: 'free' });
    const client = clientAt('127.0.0.3');
    // Processes read the wall clock (only an in-process server takes a test's); within the 65 s below.
    await awayFromMinuteEnd(20);
    const statuses: number[] = [];
    for (let i = 0; i < 75; i += 1) {
      statuses.push(
        (await client.send(`${balancer.url}/v1/pets`, { headers: bearer(freeKey) })).status,
      );
    }
    client.close();
    expect(statuses.slice(0, 60)).toEqual(Array(60).fill(200));
    expect(statuses.slice(60)).toEqual(Array(15).fill(429));
  });

  it('a forged X-Forwarded-For does not escape the limit, through the balancer or straight to an instance', async () => {
    // Processes read the wall clock (only an in-process server takes a test's); within the 65 s below.
    await awayFromMinuteEnd(20);
    const targets = [
      { from: '127.0.0.4', url: `${balancer.url}/v1/pets` },
      { from: '127.0.0.5', url: `${(instances[1] as LiveServer).baseUrl}/v1/pets` },
    ];
    for (const { from, url } of targets) {
      const client = clientAt(from);
      const statuses: number[] = [];
      for (let i = 0; i < 70; i += 1) {
        const forged = { 'x-forwarded-for': `198.51.100.${i}` };
        statuses.push((await client.send(url, { headers: forged })).status);
      }
      client.close();
      // Keyless, each request is counted against the client's own address: 60 reach
      // authentication (401), the rest are refused.
      expect(statuses.slice(0, 60), from).toEqual(Array(60).fill(401));
      expect(statuses.slice(60), from).toEqual(Array(10).fill(429));
    }
  });

  it('health checks at 30 a second for over a minute, past the minute and day limits, never mark a healthy server down, and a keyed client sees no 503', async () => {
    const left = CHECKED_FOR_MS - (Date.now() - checksBeganAt);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    steadyClient.stop();

    // No check was refused (the servers' own counts below say so), and none failed often
    // enough in a row to take a server out.
    for (const [name, stat] of await balancer.serverStats()) {
      expect(stat, `${name}:\n${balancer.log()}`).toMatchObject({
        status: 'UP',
        downTransitions: 0,
      });
    }
    let checksAnswered = 0;
    for (const port of metricsPorts) {
      const exposition = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const readyz = (statusClass: string) =>
        counterSum(
          exposition,
          'animal_store_http_requests_total',
          `operation="readyz",status_class="${statusClass}"`,
        );
      for (const refused of ['4xx', '5xx']) expect(readyz(refused), refused).toBe(0);
      checksAnswered += readyz('2xx');
    }
    // Well past the Free plan's day of 1,000 from the balancer's one address.
    expect(checksAnswered).toBeGreaterThan(1_200);
    expect(steadyClient.statuses.length).toBeGreaterThan(100);
    expect(steadyClient.statuses.filter((status) => status !== 200)).toEqual([]);
  });

  /**
   * Clients creating and listing pets one request after another, over keep-alive connections,
   * until stopped; each failed request (an error status or a broken connection) is recorded.
   */
  function steadyLoad(clients: number, label: string) {
    const acknowledged = new Set<string>();
    const failures: Array<number | string> = [];
    let running = true;
    const loops = Array.from({ length: clients }, async (_, index) => {
      const client = clientAt(`127.0.0.${10 + index}`);
      for (let i = 0; running; i += 1) {
        const name = `${label} ${index}-${i}`;
        try {
          const created = await client.send(`${balancer.url}/v1/pets`, newPet(roomyKey, name));
          if (created.status === 201) acknowledged.add(name);
          else failures.push(created.status);
          const listed = await client.send(`${balancer.url}/v1/pets?limit=5`, {
            headers: bearer(roomyKey),
          });
          if (listed.status !== 200) failures.push(listed.status);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
      client.close();
    });
    return {
      acknowledged,
      failures,
      async stop() {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  /** What the balancer has had to rescue, by server (testing/haproxy.ts, `rescued`). */
  async function rescuedByServer() {
    const stats = await balancer.serverStats();
    return Object.fromEntries([...stats].map(([name, { rescued }]) => [name, rescued]));
  }

  /** Names of the pets stored whose names start with `label`. */
  async function storedNames(label: string): Promise<string[]> {
    const db = createPrismaClient(databaseUrl);
    try {
      const pets = await db.pet.findMany({
        where: { name: { startsWith: label } },
        select: { name: true },
      });
      return pets.map((pet) => pet.name);
    } finally {
      await db.$disconnect();
    }
  }

  it('a rolling restart under a steady read and create load fails no client request, nor makes the balancer retry one: every acknowledged pet is stored, nothing else', async () => {
    const rescuedBefore = await rescuedByServer();
    const load = steadyLoad(6, 'Rolling');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const [index, name] of names.entries()) {
      const stopped = await (instances[index] as LiveServer).stop();
      expect(stopped, name).toBe(0);
      await deployment.startInstance(index);
      await balancer.waitFor(name, 'UP');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await load.stop();

    expect(load.failures).toEqual([]);
    expect(load.acknowledged.size).toBeGreaterThan(100);
    expect(new Set(await storedNames('Rolling'))).toEqual(load.acknowledged);
    // Nor did the balancer have to rescue one: each instance was out of its rotation before it
    // closed, so no connection was refused or reset and nothing was retried elsewhere. (Without
    // the drain, HAProxy's retries hide most of the refusals from clients, but not from this.)
    expect(await rescuedByServer()).toEqual(rescuedBefore);
  });

  it('kill -9 of one instance under a create load: every acknowledged pet is stored, and clients retrying with their Idempotency-Key got exactly one pet each', async () => {
    const acknowledged = new Map<string, number>();
    let failedAttempts = 0;
    let killed = false;
    const victim = instances[2] as LiveServer;
    const createUntilAcknowledged = async (client: ReturnType<typeof clientAt>, name: string) => {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const answer = await client
          .send(`${balancer.url}/v1/pets`, newPet(roomyKey, name, name))
          .catch(() => undefined);
        if (answer?.status === 201) {
          acknowledged.set(name, (JSON.parse(answer.body) as { id: number }).id);
          return;
        }
        failedAttempts += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${name} was never acknowledged`);
    };
    await Promise.all(
      Array.from({ length: 6 }, async (_, index) => {
        const client = clientAt(`127.0.0.${20 + index}`);
        for (let i = 0; i < 60; i += 1) {
          await createUntilAcknowledged(client, `Killed-${index}-${i}-${randomUUID()}`);
          if (!killed && acknowledged.size >= 100) {
            killed = true;
            victim.kill('SIGKILL');
          }
        }
        client.close();
      }),
    );
    expect(await victim.exited).toBeNull();
    expect(acknowledged.size).toBe(360);

    const stored = await storedNames('Killed');
    // Exactly one pet for each create, retried or not, and each with the id its client was told.
    expect(stored.length).toBe(360);
    expect(new Set(stored)).toEqual(new Set(acknowledged.keys()));
    const db = createPrismaClient(databaseUrl);
    try {
      const pets = await db.pet.findMany({
        where: { name: { startsWith: 'Killed' } },
        select: { id: true, name: true },
      });
      for (const pet of pets) expect(Number(pet.id), pet.name).toBe(acknowledged.get(pet.name));
    } finally {
      await db.$disconnect();
    }
    // The kill did cost some clients their answer: they are the ones the retries saved.
    expect(failedAttempts).toBeGreaterThan(0);
  });
});
