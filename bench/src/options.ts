import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { DatabaseKind } from './databases.js';
import { SCENARIO_NAMES, type ScenarioName } from './scenarios.js';

export const USAGE = `Usage: pnpm bench [options]

  --connections N            concurrent connections (default 50)
  --duration S               measured seconds per scenario (default 10)
  --warmup S                 unmeasured seconds before each scenario (default 2)
  --rounds N                 runs of each scenario (with --overload, of all its levels) against
                             each server, taking turns; the report gives medians (default 1)
  --scenarios a,b,c          some of: ${SCENARIO_NAMES.join(', ')} (default: all)
  --db sqlite|postgres       database of the servers, the bare baseline's too (default sqlite;
                             postgres: with rate limits in Redis when it answers)
  --compare <revision>       also bench the server of a git revision, built in a temporary worktree
  --soak S                   instead of the scenarios: mixed for S seconds against our server,
                             with ~2% hostile requests, sampled every 10 s
  --overload                 instead of the scenarios: get by random id with a 1 s deadline, closed
                             loop at 50, 1,000 and 4,000 clients (naive and polite) and open loop
                             at 1×, 2× and 4× capacity, --duration S per level
  --balancer                 each server behind its own HAProxy, configured as docs/operations.md
                             has it (maxconn per instance, a queue): what a crowd meets in production
  --server-node-options="…"  NODE_OPTIONS of the servers (default: the bench's own NODE_OPTIONS)
  --server-env NAME=VALUE    a variable for the API servers (ours and --compare's, not the
                             baseline), e.g. OpenTelemetry's OTEL_*; repeat it for several
  --server-stdout FILE       keep the servers' stdout (request logs) there (default /dev/null)
  --cpu-prof DIR             write each server's CPU profile (node --cpu-prof) under DIR/<server>
  -h, --help                 this text`;

export interface BenchOptions {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Runs of each scenario against each server; each server's median round is reported. */
  rounds: number;
  scenarios: ScenarioName[];
  database: DatabaseKind;
  compare: string | undefined;
  soakSeconds: number | undefined;
  /** The overload levels of issue 56 instead of the scenarios. */
  overload: boolean;
  /** Each server under test behind its own HAProxy (balanced-target.ts). */
  balancer: boolean;
  serverNodeOptions: string;
  /** Variables the API servers are started with, beside the bench's own. */
  serverEnv: Record<string, string>;
  serverStdout: string;
  /** Where each server writes its CPU profile when it stops; none when undefined. */
  cpuProfileFolder: string | undefined;
  help: boolean;
}

export class UsageError extends Error {}

function wholeNumber(flag: string, value: string | undefined, min: number, max: number) {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}`);
  }
  return number;
}

function scenarioList(value: string | undefined): ScenarioName[] {
  if (value === undefined) return [...SCENARIO_NAMES];
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!SCENARIO_NAMES.includes(name as ScenarioName)) {
      throw new UsageError(`unknown scenario "${name}": use ${SCENARIO_NAMES.join(', ')}`);
    }
  }
  return names as ScenarioName[];
}

function serverVariables(assignments: readonly string[] | undefined): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const assignment of assignments ?? []) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(assignment);
    if (!match) throw new UsageError(`--server-env must be NAME=VALUE, not "${assignment}"`);
    variables[match[1] as string] = match[2] as string;
  }
  return variables;
}

/** What the overload mode fixes itself: its levels and their clients. */
function refuseWithOverload(values: Record<string, unknown>): void {
  for (const flag of ['soak', 'scenarios', 'connections']) {
    if (values[flag] !== undefined) {
      throw new UsageError(`--overload sets its own levels and clients: leave out --${flag}`);
    }
  }
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      connections: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      scenarios: { type: 'string' },
      db: { type: 'string' },
      compare: { type: 'string' },
      soak: { type: 'string' },
      overload: { type: 'boolean' },
      balancer: { type: 'boolean' },
      'server-node-options': { type: 'string' },
      'server-env': { type: 'string', multiple: true },
      'server-stdout': { type: 'string' },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const database = values.db ?? 'sqlite';
  if (database !== 'sqlite' && database !== 'postgres') {
    throw new UsageError('--db must be sqlite or postgres');
  }
  const soakSeconds = wholeNumber('soak', values.soak, 10, 86_400);
  if (soakSeconds !== undefined && values.compare !== undefined) {
    throw new UsageError('--soak runs against our server only: leave out --compare');
  }
  if (soakSeconds !== undefined && values.rounds !== undefined) {
    throw new UsageError('--soak is one long run: leave out --rounds');
  }
  const overload = values.overload ?? false;
  if (overload) refuseWithOverload(values);
  // pnpm runs the script in bench/; a relative path means the folder the command was typed in.
  const typedIn = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);
  return {
    connections: wholeNumber('connections', values.connections, 1, 1_000) ?? 50,
    durationSeconds: wholeNumber('duration', values.duration, 1, 3_600) ?? 10,
    warmupSeconds: wholeNumber('warmup', values.warmup, 0, 600) ?? 2,
    rounds: wholeNumber('rounds', values.rounds, 1, 20) ?? 1,
    scenarios: scenarioList(values.scenarios),
    database,
    compare: values.compare,
    soakSeconds,
    overload,
    balancer: values.balancer ?? false,
    serverNodeOptions: values['server-node-options'] ?? process.env.NODE_OPTIONS ?? '',
    serverEnv: serverVariables(values['server-env']),
    serverStdout: typedIn(values['server-stdout'] ?? '/dev/null'),
    cpuProfileFolder: values['cpu-prof'] === undefined ? undefined : typedIn(values['cpu-prof']),
    help: values.help ?? false,
  };
}
