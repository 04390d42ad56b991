/**
 * The overload mode's load generator, in the bench's own process (the servers under test are
 * child processes of their own). autocannon cannot give one connection a pause of its own, which
 * a client honouring Retry-After needs, nor send on a schedule regardless of answers, which an
 * open loop needs: this does both, with the same deadline for every request, on plain sockets
 * (deadline-connection.ts) because node:http's client made the generator the limit of a crowd.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { admitArrivals, arrivalsDueBy, arrivalTimeMs } from './arrival-schedule.js';
import { onCleanup } from './cleanup.js';
import { type ClientBehaviour, pauseBeforeNext } from './client-behaviour.js';
import { DeadlineConnection, endpointOf } from './deadline-connection.js';
import { type DeadlineTally, emptyTally, type RequestEnd, recordEnd } from './deadline-tally.js';

export interface DeadlineTarget {
  origin: string;
  apiKey: string;
  /** The path of the next request. */
  nextPath: () => string;
}

export interface GeneratorLoad {
  /** The bench process's CPU time over the level's wall time: 100 is one core. */
  cpuPercent: number;
  /** p99 of the generator's event-loop delay: how late it sent and read. */
  loopDelayP99Ms: number;
}

export interface DeadlineRun {
  tally: DeadlineTally;
  /** Requests sent during the measured seconds; those still outstanding at the end are not in the tally. */
  sent: number;
  /** Open loop: arrivals not sent because the cap of outstanding requests was reached. */
  skipped: number;
  seconds: number;
  generator: GeneratorLoad;
}

/** A level's first second, when a closed loop's clients all send at once, is told apart. */
const ARRIVAL_MS = 1_000;

/**
 * The measured seconds of a level. Only what ends within them is counted, as autocannon does:
 * requests still outstanding when they are over are abandoned uncounted, so that a level's
 * rates are over exactly its seconds. The generator watches itself meanwhile, so that a level it
 * could not drive is seen as such.
 */
function measuredWindow(durationSeconds: number) {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const endsAt = startedAt + durationSeconds * 1000;
  const tally = emptyTally();
  let open = true;
  return {
    tally,
    startedAt,
    isOpen: () => open && performance.now() < endsAt,
    elapsedMs: () => performance.now() - startedAt,
    remainingMs: () => Math.max(0, endsAt - performance.now()),
    /** @param sentAt when the request was sent (performance.now()) */
    record(end: RequestEnd, sentAt: number) {
      if (open) recordEnd(tally, end, sentAt - startedAt >= ARRIVAL_MS);
    },
    close(): GeneratorLoad {
      open = false;
      loop.disable();
      const cpu = process.cpuUsage(cpuBefore);
      const wallMs = performance.now() - startedAt;
      return {
        cpuPercent: wallMs > 0 ? ((cpu.user + cpu.system) / 1000 / wallMs) * 100 : 0,
        loopDelayP99Ms: loop.percentile(99) / 1e6,
      };
    },
  };
}

export interface ClosedLoopShape {
  connections: number;
  durationSeconds: number;
  deadlineMs: number;
  behaviour: ClientBehaviour;
}

/** Longest wait for a crowd's connections to open before its level starts without the rest. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens the crowd's connections before its level is measured, so that the level measures a crowd
 * that is there rather than one arriving: 4,000 connections opened at once overflow the server's
 * listen backlog (511 in Node), and the kernel retries the dropped ones after 1 s, which would
 * put the arrival's cost, a deadline missed per dropped connection, into the first second of
 * every level. Reconnections after a deadline, within the level, are counted as they come.
 */
async function connectAll(connections: readonly DeadlineConnection[]): Promise<void> {
  const timeout = new AbortController();
  await Promise.race([
    Promise.all(connections.map((connection) => connection.connect())),
    delay(CONNECT_TIMEOUT_MS, undefined, { signal: timeout.signal }).catch(() => {}),
  ]);
  timeout.abort();
}

/**
 * `connections` clients, each with one request outstanding at a time: the next goes when the
 * last has ended (answered, given up at the deadline or failed), after the pause its behaviour
 * asks for.
 */
export async function closedLoop(
  target: DeadlineTarget,
  shape: ClosedLoopShape,
): Promise<DeadlineRun> {
  const endpoint = endpointOf(target.origin, target.apiKey);
  const connections = Array.from(
    { length: shape.connections },
    () => new DeadlineConnection(endpoint, shape.deadlineMs),
  );
  const cleanup = onCleanup('stop the overload load', () => {
    for (const connection of connections) connection.close();
  });
  await connectAll(connections);
  const window = measuredWindow(shape.durationSeconds);
  let sent = 0;
  const client = async (connection: DeadlineConnection) => {
    while (window.isOpen()) {
      sent += 1;
      const sentAt = performance.now();
      const end = await connection.get(target.nextPath(), sentAt);
      window.record(end, sentAt);
      const status = end.kind === 'answer' ? end.status : undefined;
      const pause = pauseBeforeNext(shape.behaviour, status, end.retryAfter);
      if (pause > 0) await delay(Math.min(pause, window.remainingMs()));
    }
  };
  const clients = Promise.all(connections.map(client));
  await delay(shape.durationSeconds * 1000);
  const generator = window.close();
  await cleanup.now();
  await clients;
  return { tally: window.tally, sent, skipped: 0, seconds: shape.durationSeconds, generator };
}

export interface OpenLoopShape {
  ratePerSecond: number;
  durationSeconds: number;
  deadlineMs: number;
  /** Most requests outstanding at once; arrivals beyond it are skipped and counted. */
  maxOutstanding: number;
}

/** How often the open loop checks what is due: Node's timers go no finer than 1 ms. */
const TICK_MS = 1;

/**
 * Requests at `ratePerSecond`, each sent when its arrival is due whatever became of the ones
 * before, and timed from that moment: a generator running late makes its requests later, not
 * faster.
 */
export async function openLoop(target: DeadlineTarget, shape: OpenLoopShape): Promise<DeadlineRun> {
  const endpoint = endpointOf(target.origin, target.apiKey);
  const idle: DeadlineConnection[] = [];
  const busy = new Set<DeadlineConnection>();
  const cleanup = onCleanup('stop the overload load', () => {
    for (const connection of [...idle, ...busy]) connection.close();
  });
  const window = measuredWindow(shape.durationSeconds);
  let sent = 0;
  let skipped = 0;
  while (window.isOpen()) {
    const due = arrivalsDueBy(window.elapsedMs(), shape.ratePerSecond) - sent - skipped;
    const admitted = admitArrivals(due, busy.size, shape.maxOutstanding);
    for (let i = 0; i < admitted.send; i++) {
      const arrivedAt = window.startedAt + arrivalTimeMs(sent + skipped + i, shape.ratePerSecond);
      // The most recently freed connection first: the fewest stay open beside the ones in use.
      const connection = idle.pop() ?? new DeadlineConnection(endpoint, shape.deadlineMs);
      busy.add(connection);
      void connection.get(target.nextPath(), arrivedAt).then((end) => {
        busy.delete(connection);
        // One closed at its deadline is left behind: an arrival takes an open one if there is
        // one, as a client's connection pool does, and connects only when there is none.
        if (connection.isOpen) idle.push(connection);
        window.record(end, arrivedAt);
      });
    }
    sent += admitted.send;
    skipped += admitted.skipped;
    await delay(TICK_MS);
  }
  const generator = window.close();
  await cleanup.now();
  return { tally: window.tally, sent, skipped, seconds: shape.durationSeconds, generator };
}
