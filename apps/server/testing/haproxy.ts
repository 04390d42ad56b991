/**
 * A real HAProxy in front of server instances, configured as docs/operations.md tells operators
 * to (`mode http`, `option forwardfor`, health checks on `/readyz`, `maxconn` per instance with a
 * queue and the interface's 503 for what it sheds), and steered and watched through its runtime
 * API. The bench puts servers under test behind it too (`pnpm bench --balancer`). The test
 * command brings HAProxy itself (`HAPROXY_PATH`, else Debian's `haproxy`, installed when
 * missing), as it brings Chromium.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@animal-store/local-ports';
import { BUSY_BODY } from '../src/overload/load-shedding.js';
import { findSystemTool } from './system-tool.js';

const findHaproxy = () =>
  findSystemTool({
    name: 'HAProxy',
    variable: 'HAPROXY_PATH',
    named: process.env.HAPROXY_PATH,
    debianPackage: 'haproxy',
    debianPath: '/usr/sbin/haproxy',
    neededBy: 'The load-balancer tests and `pnpm bench --balancer`',
  });

export interface BackendServer {
  name: string;
  port: number;
}

export interface HealthChecks {
  /** Between checks of a server (HAProxy's `inter`, also its `fastinter` and `downinter`). */
  intervalMs: number;
  /** Failed checks in a row that mark a server down. */
  fall: number;
  /** Passed checks in a row that bring it back. */
  rise: number;
}

/** One server's line of `show stat`, as far as the tests read it. */
export interface ServerStat {
  /** `UP`, `DOWN`, `MAINT`, or a transition such as `UP 1/3`. */
  status: string;
  /** How often it went from up to down. */
  downTransitions: number;
  /** Failed health checks. */
  failedChecks: number;
  /** Requests it is being sent now (`scur`): at most its `maxconn`. */
  current: number;
  /**
   * Requests the balancer had to rescue from this server or could not: connections it refused
   * or reset (`econ`, `eresp`), and the retries and redispatches they caused (`wretr`,
   * `wredis`). A server taken out before it closes causes none.
   */
  rescued: {
    connectionErrors: number;
    responseErrors: number;
    retries: number;
    redispatches: number;
  };
}

export interface Balancer {
  /** The balancer's front end, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Each backend server's state, by name. */
  serverStats(): Promise<Map<string, ServerStat>>;
  /** What HAProxy has said of its servers (up, down and why), its latest 64 KiB. */
  log(): string;
  /** Resolves once `server` has `status` (say, `UP` after a restart). */
  waitFor(server: string, status: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const BACKEND = 'api';
const LOG_TAIL_CHARS = 64 * 1024;

/** Requests each server is sent at once, as docs/operations.md has it; the rest queue. */
export const SERVER_MAXCONN = 100;

/**
 * What holds a crowd in the balancer and answers what it sheds by the interface, by section:
 * docs/operations.md has each line (operations-document.test.ts checks that it does).
 */
export const CROWD_DIRECTIVES = {
  global: ['tune.pool-low-fd-ratio 90', 'tune.pool-high-fd-ratio 95'],
  defaults: ['timeout queue 500ms'],
  frontend: [
    'http-request set-var(txn.request_id) req.fhdr(x-request-id) if { req.fhdr(x-request-id) -m reg ^[A-Za-z0-9._:-]{1,128}$ }',
    'http-request set-var(txn.request_id) uuid() unless { var(txn.request_id) -m found }',
  ],
  backend: [
    `http-error status 503 content-type "application/json; charset=utf-8" string '${BUSY_BODY.toString()}' hdr Retry-After 1 hdr X-Request-Id "%[var(txn.request_id)]"`,
  ],
} as const;

const indented = (lines: readonly string[]) => lines.map((line) => `  ${line}`).join('\n');

function configuration(
  frontPort: number,
  socket: string,
  servers: readonly BackendServer[],
  checks: HealthChecks,
  serverMaxconn: number,
): string {
  const inter = `${checks.intervalMs}ms`;
  return `global
  stats socket ${socket} mode 600 level admin
${indented(CROWD_DIRECTIVES.global)}

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
${indented(CROWD_DIRECTIVES.defaults)}
  # A check answered late is not a failed one: by default HAProxy waits only one interval.
  timeout check 2s
  option forwardfor
  option redispatch
  retries 3

frontend public
  bind 127.0.0.1:${frontPort}
${indented(CROWD_DIRECTIVES.frontend)}
  default_backend ${BACKEND}

backend ${BACKEND}
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host api.internal
  http-check expect status 200
${indented(CROWD_DIRECTIVES.backend)}
  default-server maxconn ${serverMaxconn} inter ${inter} fastinter ${inter} downinter ${inter} fall ${checks.fall} rise ${checks.rise} observe layer4 error-limit 1 on-error mark-down
${servers.map(({ name, port }) => `  server ${name} 127.0.0.1:${port} check`).join('\n')}
`;
}

/** One command to the runtime API, and its whole answer. */
async function runtimeCommand(socket: string, command: string): Promise<string> {
  const connection = connect(socket);
  let answer = '';
  connection.setEncoding('utf8').on('data', (chunk: string) => {
    answer += chunk;
  });
  connection.end(`${command}\n`);
  await once(connection, 'close');
  return answer;
}

function parseServerStats(csv: string): Map<string, ServerStat> {
  const [header = '', ...rows] = csv.trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  const column = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
  const stats = new Map<string, ServerStat>();
  for (const row of rows.map((line) => line.split(','))) {
    const server = column(row, 'svname');
    if (column(row, 'pxname') !== BACKEND || server === 'BACKEND') continue;
    stats.set(server, {
      status: column(row, 'status'),
      downTransitions: Number(column(row, 'chkdown')),
      failedChecks: Number(column(row, 'chkfail')),
      current: Number(column(row, 'scur')),
      rescued: {
        connectionErrors: Number(column(row, 'econ')),
        responseErrors: Number(column(row, 'eresp')),
        retries: Number(column(row, 'wretr')),
        redispatches: Number(column(row, 'wredis')),
      },
    });
  }
  return stats;
}

/**
 * HAProxy in the foreground, balancing over `servers` (which need not be up yet), sending each
 * at most `serverMaxconn` requests at once.
 */
export async function startBalancer(
  servers: readonly BackendServer[],
  checks: HealthChecks,
  serverMaxconn = SERVER_MAXCONN,
): Promise<Balancer> {
  const haproxy = await findHaproxy();
  const folder = await mkdtemp(join(tmpdir(), 'animal-store-haproxy-'));
  const socket = join(folder, 'admin.sock');
  const config = join(folder, 'haproxy.cfg');
  const frontPort = await freePort();
  await writeFile(config, configuration(frontPort, socket, servers, checks, serverMaxconn));
  await promisify(execFile)(haproxy, ['-c', '-q', '-f', config]);

  const child: ChildProcess = spawn(haproxy, ['-db', '-f', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    log = (log + chunk).slice(-LOG_TAIL_CHARS);
  });
  const exited = once(child, 'exit');
  const serverStats = async () => parseServerStats(await runtimeCommand(socket, 'show stat'));

  const deadline = Date.now() + 10_000;
  for (;;) {
    const ready = await serverStats().then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`HAProxy did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    url: `http://127.0.0.1:${frontPort}`,
    serverStats,
    log: () => log,
    async waitFor(server, status, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      let last: string | undefined;
      while (Date.now() < until) {
        last = (await serverStats()).get(server)?.status;
        if (last === status) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(
        `${server} did not become ${status} within ${timeoutMs} ms (last: ${last}):\n${log}`,
      );
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(folder, { recursive: true, force: true });
    },
  };
}
