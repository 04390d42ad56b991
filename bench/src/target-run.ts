import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { cleaningUp } from './cleanup.js';
import { statusBytes } from './process-stats.js';
import { progress } from './progress.js';
import { type LoadShape, measureScenario, type ScenarioResult } from './scenario-measurement.js';
import type { ScenarioInputs, ScenarioName } from './scenarios.js';
import { deepPagePath, SEED_PETS, seedPets } from './seeding.js';
import type { BenchTarget, StartedTarget } from './targets.js';

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
}

/** Starts the target on a fresh database and seeds it with SEED_PETS pets through its API. */
export async function startSeeded(target: BenchTarget): Promise<SeededTarget> {
  progress(`${target.name}: starting`);
  const started = await target.start();
  progress(`${target.name}: seeding ${SEED_PETS.toLocaleString('en')} pets`);
  const seedStart = performance.now();
  const petIds = await seedPets(started.server, started.apiKey);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const inputs = {
    petIds,
    deepPagePath: await deepPagePath(started.server, started.apiKey),
  };
  await delay(1_000);
  const idleRssBytes = statusBytes(started.server.pid, 'VmRSS');
  return { started, inputs, seedSeconds, idleRssBytes };
}

/** Every scenario against one target, then the target is stopped. */
export async function benchTarget(
  target: BenchTarget,
  scenarios: readonly ScenarioName[],
  shape: LoadShape,
): Promise<TargetRun> {
  const seeded = await startSeeded(target);
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    if (cleaningUp()) throw new Error('interrupted');
    progress(`${target.name}: ${scenario}`);
    results.push(await measureScenario(seeded.started, scenario, seeded.inputs, shape));
  }
  await seeded.started.server.stop();
  return {
    target,
    seedSeconds: seeded.seedSeconds,
    idleRssBytes: seeded.idleRssBytes,
    scenarios: results,
  };
}
