/**
 * Runs a command with the test services, PostgreSQL and Redis, reached on ports other than their
 * defaults: a forwarder on a free loopback port carries every connection to each, and
 * TEST_POSTGRES_URL and TEST_REDIS_URL name the forwarders. A test that ignored its variable, or
 * a task runner that did not hand it on, would still find the service on its default port and
 * pass, but would leave a forwarder unused: that fails the run.
 *
 *   node .ci/services-on-other-ports.mjs <command> [arguments…]
 *
 * Plain Node with no dependencies: it starts before the workspace is installed. (The tests' own
 * proxy, apps/server/test/support/tcp-fault-proxy.ts, needs the installed workspace to run.)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';

/** Where the test command finds each service (as the README says) unless its variable is set. */
const SERVICES = [
  { variable: 'TEST_POSTGRES_URL', defaultUrl: 'postgresql://postgres@127.0.0.1:5432/postgres' },
  { variable: 'TEST_REDIS_URL', defaultUrl: 'redis://127.0.0.1:6379' },
];

/** A forwarder on a free loopback port to `target`, counting the connections it carries. */
async function startForwarder(target) {
  let connections = 0;
  const server = createServer((client) => {
    connections += 1;
    const upstream = connect(target.port, target.host);
    client.pipe(upstream).pipe(client);
    const endBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', endBoth);
      socket.on('close', endBoth);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  return { port: server.address().port, connections: () => connections };
}

/** The service's address for the command: its forwarder's, with the same user and database. */
async function forward({ variable, defaultUrl }) {
  const url = new URL(process.env[variable] || defaultUrl);
  const forwarder = await startForwarder({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || new URL(defaultUrl).port),
  });
  url.hostname = '127.0.0.1';
  url.port = String(forwarder.port);
  return { variable, url: url.toString(), forwarder };
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node .ci/services-on-other-ports.mjs <command> [arguments…]');
  process.exit(2);
}
const services = await Promise.all(SERVICES.map(forward));
for (const { variable, url } of services)
  console.error(`services-on-other-ports: ${variable}=${url}`);

const child = spawn(command, args, {
  stdio: 'inherit',
  env: {
    ...process.env,
    ...Object.fromEntries(services.map(({ variable, url }) => [variable, url])),
  },
});
// Ctrl-C reaches the command from the terminal; a signal sent to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
const [code] = await once(child, 'exit');

for (const { variable, forwarder } of services) {
  console.error(
    `services-on-other-ports: ${forwarder.connections()} connections through ${variable}`,
  );
}
// Killed by a signal, the command has no exit code: that is a failure too.
if (code !== 0) process.exit(code ?? 1);
const unused = services.filter(({ forwarder }) => forwarder.connections() === 0);
if (unused.length > 0) {
  const names = unused.map(({ variable }) => variable).join(' and ');
  console.error(
    `services-on-other-ports: no test connected through ${names}: the variable did not reach the tests, or they ignore it.`,
  );
  process.exit(1);
}
