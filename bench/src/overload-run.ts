import { setTimeout as delay } from 'node:timers/promises';
import { type AdmissionSummary, watchAdmission } from './admission-watch.js';
import { cleaningUp } from './cleanup.js';
import { closedLoop, type DeadlineRun, type DeadlineTarget, openLoop } from './deadline-load.js';
import { type DeadlineSummary, summarizeTally } from './deadline-tally.js';
import { listenOverflows } from './kernel-counters.js';
import {
  arrivalRate,
  DEADLINE_MS,
  levelLabel,
  MAX_OUTSTANDING,
  OVERLOAD_LEVELS,
  type OverloadLevel,
} from './overload-levels.js';
import { cpuSeconds, watchPeakRss } from './process-stats.js';
import { progress } from './progress.js';
import { type SeededTarget, startSeeded } from './target-run.js';
import type { BenchTarget } from './targets.js';
import { inTurnOrder } from './turn-order.js';

export interface OverloadShape {
  durationSeconds: number;
  warmupSeconds: number;
}

export interface LevelResult extends DeadlineSummary {
  level: OverloadLevel;
  /** Open loop: the arrivals per second offered. */
  ratePerSecond: number | undefined;
  sent: number;
  skipped: number;
  serverCpuPercent: number;
  peakRssBytes: number;
  peakRssMethod: 'VmHWM' | 'sampled';
  generatorCpuPercent: number;
  generatorLoopDelayP99Ms: number;
  /** What the server's own metrics say of the level; undefined for the bare baseline. */
  admission: AdmissionSummary | undefined;
  /** Connection attempts the kernel dropped, listen queue full, per second (machine-wide). */
  listenOverflowsPerSecond: number;
}

export interface OverloadTargetRun {
  target: BenchTarget;
  idleRssBytes: number;
  /** Each round's levels, in OVERLOAD_LEVELS' order. */
  rounds: LevelResult[][];
}

/** The `get` scenario's requests: a pet that exists, at random. */
function getByRandomId(seeded: SeededTarget): DeadlineTarget {
  const { server, apiKey } = seeded.started;
  const ids = seeded.inputs.petIds;
  return {
    origin: server.origin,
    apiKey,
    nextPath: () => `/v1/pets/${ids[Math.floor(Math.random() * ids.length)]}`,
  };
}

function runLevel(target: DeadlineTarget, level: OverloadLevel, seconds: number, rate: number) {
  if (level.kind === 'closed') {
    const { connections, behaviour } = level;
    return closedLoop(target, {
      connections,
      behaviour,
      durationSeconds: seconds,
      deadlineMs: DEADLINE_MS,
    });
  }
  return openLoop(target, {
    ratePerSecond: rate,
    durationSeconds: seconds,
    deadlineMs: DEADLINE_MS,
    maxOutstanding: MAX_OUTSTANDING,
  });
}

/** One level against one server, with the server's CPU and peak RSS over exactly that level. */
async function measureLevel(
  seeded: SeededTarget,
  level: OverloadLevel,
  seconds: number,
  capacityPerSecond: number,
): Promise<LevelResult> {
  const { pid } = seeded.started.server;
  const rate = level.kind === 'open' ? arrivalRate(capacityPerSecond, level.capacityMultiple) : 0;
  const { metricsOrigin } = seeded.started;
  const admission = metricsOrigin === undefined ? undefined : watchAdmission(metricsOrigin);
  const peak = watchPeakRss(pid);
  const cpuBefore = cpuSeconds(pid);
  const overflowsBefore = listenOverflows();
  const run: DeadlineRun = await runLevel(getByRandomId(seeded), level, seconds, rate);
  const serverCpuPercent = ((cpuSeconds(pid) - cpuBefore) / run.seconds) * 100;
  const listenOverflowsPerSecond = (listenOverflows() - overflowsBefore) / run.seconds;
  return {
    ...summarizeTally(run.tally, run.seconds),
    level,
    ratePerSecond: level.kind === 'open' ? rate : undefined,
    sent: run.sent,
    skipped: run.skipped,
    serverCpuPercent,
    peakRssBytes: peak.finish(),
    peakRssMethod: peak.method,
    generatorCpuPercent: run.generator.cpuPercent,
    generatorLoopDelayP99Ms: run.generator.loopDelayP99Ms,
    admission: await admission?.finish(),
    listenOverflowsPerSecond,
  };
}

/** How long a server may take to work off what an overload left queued in it. */
const RECOVERY_TIMEOUT_MS = 30_000;
/** Quiet after a server answers again, before the next level: its GC and queues settle. */
const SETTLE_MS = 1_000;

/**
 * Waits until the server answers /readyz again: a server that queued every request of a crowd
 * is still serving them after the clients left, and the next level must not inherit that work.
 */
async function awaitRecovery(seeded: SeededTarget): Promise<void> {
  const deadline = Date.now() + RECOVERY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${seeded.started.server.origin}/readyz`, {
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // Still busy.
    }
    await delay(200);
  }
  await delay(SETTLE_MS);
}

function levelLine(name: string, result: LevelResult): string {
  const rate = (value: number) => Math.round(value).toLocaleString('en');
  return (
    `${name}: ${levelLabel(result.level)}: ${rate(result.okPerSecond)} 2xx/s, ` +
    `${rate(result.shedPerSecond)} shed/s, ${rate(result.pastDeadline)} past deadline ` +
    `(${rate(result.pastDeadlineConnecting)} still connecting), ` +
    `p99 ${rate(result.p99Ms)} ms (${rate(result.steadyP99Ms)} after the first second), RSS ${rate(result.peakRssBytes / 1048576)} MB`
  );
}

/**
 * Every overload level against every target, `rounds` times. All targets are started and seeded
 * first; then each level runs against each target in turn, one under load at a time, in the
 * order of `inTurnOrder` (alternating from one round to the next), so that a drift in the
 * machine's speed touches every target alike. A round is a whole run of the levels: a target's
 * first level of the round (50 clients, after a warm-up) gives its capacity, from which that
 * round's open-loop rates are taken.
 */
export async function overloadTargets(
  targets: readonly BenchTarget[],
  shape: OverloadShape,
  rounds = 1,
): Promise<OverloadTargetRun[]> {
  const runs: Array<OverloadTargetRun & { seeded: SeededTarget }> = [];
  for (const target of targets) {
    const seeded = await startSeeded(target);
    runs.push({ target, seeded, idleRssBytes: seeded.idleRssBytes, rounds: [] });
  }
  for (let round = 1; round <= rounds; round++) {
    const roundLabel = rounds > 1 ? ` (round ${round} of ${rounds})` : '';
    for (const run of runs) run.rounds.push([]);
    for (const [index, level] of OVERLOAD_LEVELS.entries()) {
      for (const [, run] of inTurnOrder(runs, round)) {
        if (cleaningUp()) throw new Error('interrupted');
        // This round's levels, the array pushed for it above.
        const measured = run.rounds.at(-1) as LevelResult[];
        // Every round's capacity is measured warm: the level before it was the last round's
        // 4× open loop, whose backlog and garbage the recovery wait may not have cleared.
        if (index === 0 && shape.warmupSeconds > 0) {
          progress(`${run.target.name}: warm-up, ${levelLabel(level)}`);
          await runLevel(getByRandomId(run.seeded), level, shape.warmupSeconds, 0);
          await awaitRecovery(run.seeded);
        }
        progress(`${run.target.name}: ${levelLabel(level)}${roundLabel}`);
        const capacity = measured[0]?.okPerSecond ?? 0;
        const result = await measureLevel(run.seeded, level, shape.durationSeconds, capacity);
        measured.push(result);
        progress(levelLine(run.target.name, result));
        await awaitRecovery(run.seeded);
      }
    }
  }
  for (const run of runs) await run.seeded.started.server.stop();
  return runs.map(({ target, idleRssBytes, rounds: measured }) => ({
    target,
    idleRssBytes,
    rounds: measured,
  }));
}
