import { once } from 'node:events';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Linux says its ephemeral range starts; 32768 is its default, and below macOS's 49152. */
const EPHEMERAL_RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
const DEFAULT_EPHEMERAL_START = 32_768;
/** Above the ports of the services a test meets (PostgreSQL, Redis, an OTLP receiver). */
const LOWEST = 20_000;
const ATTEMPTS = 200;
/** Where every process on this machine records the ports it was given: a file per port. */
const RESERVATIONS = join(tmpdir(), 'animal-store-port-reservations');
/** Longer than any process takes to bind the port it was given (a start may take 50 s). */
const RESERVATION_MS = 5 * 60_000;

/** Read once per process: a test file asks for many ports, the range does not change meanwhile. */
let ephemeralStart: Promise<number> | undefined;
/** Made once per process, before its first reservation. */
let reservationsFolder: Promise<unknown> | undefined;

/**
 * A port on 127.0.0.1, free now, for a process the caller starts next (or restarts on the same
 * port, behind a balancer that knows it).
 *
 * Relies on the port lying below the kernel's ephemeral range: the kernel hands ports of that
 * range to every `listen(0)` and every outgoing connection, so a port taken from `listen(0)` and
 * closed can go to any client socket of a test running in parallel before the server binds it (a
 * CI run lost an instance so, with EADDRINUSE). Below the range, only another caller of this
 * function could pick it before its process binds; so each port given is reserved, on this
 * machine, for five minutes, and no caller in any process is given it meanwhile. (Without that, a
 * CI run's server lost its port to another test's, whose `/healthz` answered for it; its test met
 * a closed port once the other server stopped.)
 */
export async function freePort(): Promise<number> {
  ephemeralStart ??= ephemeralRangeStart();
  const end = await ephemeralStart;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if ((await canListen(port)) && (await reserve(port))) return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${LOWEST} and ${end}`);
}

async function ephemeralRangeStart(): Promise<number> {
  const range = await readFile(EPHEMERAL_RANGE, 'utf8').catch(() => '');
  const start = Number(range.trim().split(/\s+/)[0]);
  return Number.isInteger(start) && start > LOWEST + 1_000 ? start : DEFAULT_EPHEMERAL_START;
}

async function canListen(port: number): Promise<boolean> {
  const probe = createServer();
  try {
    await once(probe.listen(port, '127.0.0.1'), 'listening');
  } catch {
    return false;
  }
  await new Promise((resolve) => probe.close(resolve));
  return true;
}

/** True when this caller now holds the port's reservation: there was none, or it had run out. */
async function reserve(port: number): Promise<boolean> {
  reservationsFolder ??= mkdir(RESERVATIONS, { recursive: true });
  await reservationsFolder;
  const file = join(RESERVATIONS, String(port));
  if (await createExclusively(file)) return true;
  const reservedAt = await stat(file).then(
    ({ mtimeMs }) => mtimeMs,
    () => 0,
  );
  if (Date.now() - reservedAt < RESERVATION_MS) return false;
  await rm(file, { force: true });
  return createExclusively(file);
}

async function createExclusively(file: string): Promise<boolean> {
  try {
    await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
