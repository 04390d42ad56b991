/**
 * A crowd belongs in the balancer's queue, not in an instance (docs/operations.md, "Behind a
 * load balancer"): HAProxy sends each instance at most its `maxconn` requests at once, and
 * answers a request that waited `timeout queue` for a free slot itself, with the interface's 503.
 * One instance (on the run's database) behind the documented configuration, its `maxconn`
 * lowered to 1 so that one request can take the only slot.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { freePort } from '@animal-store/local-ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSY_BODY } from '../../src/overload/load-shedding.js';
import {
  type BalancedDeployment,
  startBalancedDeployment,
} from '../../testing/balanced-deployment.js';
import { type LiveServer, ROOMY } from '../../testing/live-server.js';
import { SYSTEM_TOOL_INSTALL_MS } from '../../testing/system-tool.js';
import { TEST_PROVIDER } from '../../testing/test-database.js';
import { counterSum } from '../support/counter-sum.js';

const CHECKS = { intervalMs: 200, fall: 3, rise: 2 };

const PET = JSON.stringify({ name: 'Held', categoryId: 1 });

/**
 * A create whose body is still on its way: the balancer has sent its head to the instance, so
 * it holds the instance's one slot until `finish` sends the rest.
 */
function createStillSending(url: string, key: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${PET.length}\r\n\r\n${PET.slice(0, 5)}`,
  );
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    answer += chunk;
  });
  return {
    async finish(): Promise<string> {
      socket.end(PET.slice(5));
      await once(socket, 'close');
      return answer;
    },
  };
}

/** Requests of `operation` the instance has counted, whatever their status. */
async function requestsCounted(metricsPort: number, operation: string): Promise<number> {
  const exposition = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return counterSum(exposition, 'animal_store_http_requests_total', `operation="${operation}"`);
}

describe('Behind the balancer, a request that finds no free slot waits in its queue', () => {
  let deployment: BalancedDeployment;
  let metricsPort: number;
  let key: string;

  beforeAll(async () => {
    metricsPort = await freePort();
    deployment = await startBalancedDeployment({
      names: ['solo'],
      checks: CHECKS,
      database: TEST_PROVIDER,
      serverMaxconn: 1,
      settings: () => ({ METRICS_PORT: String(metricsPort) }),
    });
    key = await (deployment.instances[0] as LiveServer).createKey(ROOMY);
    // On a fresh machine startBalancedDeployment installs HAProxy first (apt-get).
  }, SYSTEM_TOOL_INSTALL_MS);

  afterAll(async () => {
    await deployment?.stop();
  });

  it('and one that waited too long gets the 503 with Retry-After and the request id from the balancer, never reaching the instance', async () => {
    const held = createStillSending(deployment.url, key);
    const { balancer } = deployment;
    await expect
      .poll(async () => (await balancer.serverStats()).get('solo')?.current, {
        message: 'the held create never took the instance’s slot',
        timeout: 10_000,
      })
      .toBe(1);

    const headers = { authorization: `Bearer ${key}` };
    const queued = await fetch(`${deployment.url}/v1/pets/1`, {
      headers: { ...headers, 'x-request-id': 'queued:1' },
    });
    expect(queued.status).toBe(503);
    expect(queued.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(queued.headers.get('x-request-id')).toBe('queued:1');
    expect(queued.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body: unknown = await queued.json();
    expect(body).toEqual({
      code: 'service_unavailable',
      message: expect.stringContaining('busy'),
      status: 503,
    });
    // The instances' own 503 body, word for word.
    expect(body).toEqual(JSON.parse(BUSY_BODY.toString()));

    // An id the interface does not take back is replaced, as the instances replace it.
    const unreadableId = await fetch(`${deployment.url}/v1/pets/1`, {
      headers: { ...headers, 'x-request-id': 'not an id' },
    });
    expect(unreadableId.status).toBe(503);
    expect(unreadableId.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await unreadableId.arrayBuffer();

    expect(await requestsCounted(metricsPort, 'getPet')).toBe(0);
    expect((await balancer.serverStats()).get('solo')?.status).toBe('UP');

    // The slot comes free once the create is sent: it is stored, and the queue lets the next in.
    expect(await held.finish()).toMatch(/^HTTP\/1\.1 201 /);
    const served = await fetch(`${deployment.url}/v1/pets/1`, { headers });
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    expect(await requestsCounted(metricsPort, 'getPet')).toBe(1);
  });
});
