import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { freePort } from './free-port.js';

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(
    held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

async function listenOn(port: number): Promise<Server> {
  const server = createServer();
  await once(server.listen(port, '127.0.0.1'), 'listening');
  held.push(server);
  return server;
}

it("gives ports below the kernel's ephemeral range, which listen(0) and outgoing connections never get", async () => {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(
    () => '32768',
  );
  const ephemeralStart = Number(range.trim().split(/\s+/)[0]);
  for (let index = 0; index < 50; index += 1) {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(ephemeralStart);
  }
  const kernelsChoice = await listenOn(0);
  const address = kernelsChoice.address();
  expect(typeof address === 'object' && address ? address.port : 0).toBeGreaterThanOrEqual(
    ephemeralStart,
  );
});

it('never gives a port that something listens on', async () => {
  const ports = new Set<number>();
  for (let index = 0; index < 300; index += 1) {
    const port = await freePort();
    expect(ports.has(port)).toBe(false);
    ports.add(port);
    await listenOn(port);
  }
});

it('gives no port twice, though nothing listens on it yet: in this process or any other, each is reserved', async () => {
  // 400 ports at random from the ~12,000 below the range would repeat one ~99.8 % of the time.
  const batches = await Promise.all(
    [1, 2].map(async () => {
      const ports: number[] = [];
      for (let index = 0; index < 200; index += 1) ports.push(await freePort());
      return ports;
    }),
  );
  expect(new Set(batches.flat()).size).toBe(400);
});
