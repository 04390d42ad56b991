import { performance } from 'node:perf_hooks';
import { requestsPerSecond, runLoad } from './load-run.js';
import { cpuSeconds, watchPeakRss } from './process-stats.js';
import { type ScenarioInputs, type ScenarioName, scenarioRequests } from './scenarios.js';
import type { StartedTarget } from './targets.js';

export interface LoadShape {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface ScenarioResult {
  scenario: ScenarioName;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  /** Responses per status code, to say what went wrong when something did. */
  statusCounts: Record<string, number>;
  /** Server CPU time over the scenario's wall time: 100 is one core busy throughout. */
  cpuPercent: number;
  peakRssBytes: number;
  peakRssMethod: 'VmHWM' | 'sampled';
}

/**
 * Runs one scenario against a started server: a warm-up (not measured), then the measured run
 * with the server's CPU time and peak RSS taken over exactly that run.
 */
export async function measureScenario(
  target: StartedTarget,
  scenario: ScenarioName,
  inputs: ScenarioInputs,
  shape: LoadShape,
): Promise<ScenarioResult> {
  const { server, apiKey } = target;
  // Requests are built afresh for each run: a scenario drawn from a seeded sequence then starts
  // its measured run at the head of that sequence on every server, however fast the warm-up went.
  const load = (durationSeconds: number) => ({
    origin: server.origin,
    apiKey,
    connections: shape.connections,
    durationSeconds,
    requests: scenarioRequests(scenario, inputs),
  });
  if (shape.warmupSeconds > 0) await runLoad(load(shape.warmupSeconds));

  const peak = watchPeakRss(server.pid);
  const cpuBefore = cpuSeconds(server.pid);
  const startedAt = performance.now();
  const result = await runLoad(load(shape.durationSeconds));
  const wallSeconds = (performance.now() - startedAt) / 1000;
  const cpuPercent = ((cpuSeconds(server.pid) - cpuBefore) / wallSeconds) * 100;
  const peakRssBytes = peak.finish();

  const statusCounts: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    statusCounts[status] = count ?? 0;
  }
  return {
    scenario,
    requestsPerSecond: requestsPerSecond(result),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts,
    cpuPercent,
    peakRssBytes,
    peakRssMethod: peak.method,
  };
}
