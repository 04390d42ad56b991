import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { cleaningUp } from './cleanup.js';
import { medianRound } from './median-round.js';
import { deepPagePath, harvestPageLinks } from './page-links.js';
import { statusBytes } from './process-stats.js';
import { progress } from './progress.js';
import { type LoadShape, measureScenario, type ScenarioResult } from './scenario-measurement.js';
import type { ScenarioInputs, ScenarioName } from './scenarios.js';
import { SEED_PETS, seedPets } from './seeding.js';
import type { BenchTarget, StartedTarget } from './targets.js';
import { inTurnOrder } from './turn-order.js';

export interface SeededTarget {
  started: StartedTarget;
  inputs: ScenarioInputs;
  seedSeconds: number;
  /** RSS once seeding is over and the server has had a moment to settle. */
  idleRssBytes: number;
}

export interface TargetRun {
  target: BenchTarget;
  seedSeconds: number;
  idleRssBytes: number;
  scenarios: ScenarioResult[];
  /** Each round's req/s by scenario, in the order run: the spread the median hides. */
  roundRates: Partial<Record<ScenarioName, number[]>>;
}

/** Starts the target on a fresh database and seeds it with SEED_PETS pets through its API. */
export async function startSeeded(target: BenchTarget): Promise<SeededTarget> {
  progress(`${target.name}: starting`);
  const started = await target.start();
  progress(`${target.name}: seeding ${SEED_PETS.toLocaleString('en')} pets`);
  const seedStart = performance.now();
  const petIds = await seedPets(started.server, started.apiKey);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const pageLinks = await harvestPageLinks(started.server, started.apiKey);
  const inputs = { petIds, pageLinks, deepPagePath: deepPagePath(pageLinks) };
  await delay(1_000);
  const idleRssBytes = statusBytes(started.server.pid, 'VmRSS');
  return { started, inputs, seedSeconds, idleRssBytes };
}

/**
 * Every scenario against every target, `rounds` times. All targets are started and seeded
 * first; then each scenario runs against each target in turn, one at a time (on a small machine
 * two under load would measure each other), round after round in alternating order (inTurnOrder),
 * so that a drift in the machine's speed over the minutes of a run touches every target's
 * numbers for a scenario alike. Each target's median round is kept (see medianRound). The
 * targets are stopped at the end.
 */
export async function benchTargets(
  targets: readonly BenchTarget[],
  scenarios: readonly ScenarioName[],
  shape: LoadShape,
  rounds = 1,
): Promise<TargetRun[]> {
  const runs: Array<TargetRun & { seeded: SeededTarget }> = [];
  for (const target of targets) {
    const seeded = await startSeeded(target);
    const { seedSeconds, idleRssBytes } = seeded;
    runs.push({ target, seeded, seedSeconds, idleRssBytes, scenarios: [], roundRates: {} });
  }
  for (const scenario of scenarios) {
    const measured = runs.map((): ScenarioResult[] => []);
    for (let round = 1; round <= rounds; round++) {
      const roundLabel = rounds > 1 ? ` (round ${round} of ${rounds})` : '';
      for (const [index, run] of inTurnOrder(runs, round)) {
        if (cleaningUp()) throw new Error('interrupted');
        progress(`${run.target.name}: ${scenario}${roundLabel}`);
        const { started, inputs } = run.seeded;
        measured[index]?.push(await measureScenario(started, scenario, inputs, shape));
      }
    }
    for (const [index, run] of runs.entries()) {
      const results = measured[index] ?? [];
      run.scenarios.push(medianRound(results));
      run.roundRates[scenario] = results.map((result) => result.requestsPerSecond);
    }
  }
  for (const run of runs) await run.seeded.started.server.stop();
  return runs;
}
