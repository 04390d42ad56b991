/**
 * `pnpm bench`: builds the production server, runs it and a bare node:http baseline on the same
 * database (SQLite, or PostgreSQL + Redis) under the same load, and reports our throughput as a ratio of the baseline's. See README.md.
 *
 * Started as `node --import tsx`, not through the tsx CLI: the CLI relays Ctrl-C to this process
 * and kills it when it does not acknowledge within 30 ms, which a process busy generating load
 * often cannot, and a killed bench leaves its servers, databases and worktree behind.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { behindBalancer } from './balanced-target.js';
import { buildServer, compileBaseline } from './builds.js';
import { cleaningUp, cleanUp, cleanUpOnSignals, onCleanup } from './cleanup.js';
import { checkPostgres } from './databases.js';
import { describeMachine } from './machine.js';
import { type BenchOptions, parseOptions, USAGE, UsageError } from './options.js';
import { renderOverloadReport } from './overload-report.js';
import { overloadTargets } from './overload-run.js';
import { progress } from './progress.js';
import { claimRedisDatabase } from './redis-database.js';
import { headerLine, type RunHeader, renderScenarioReport } from './report.js';
import { BENCH_ROOT, describeRevision, REPOSITORY_ROOT, shortCommitOf } from './repository.js';
import { soak } from './soak.js';
import { renderSoakReport } from './soak-report.js';
import { benchTargets, startSeeded } from './target-run.js';
import { apiServerTarget, type BenchTarget, bareTarget, type RunSettings } from './targets.js';
import { prepareWorktree } from './worktree.js';

/** The report, on stdout and in bench/results/<timestamp>-<db>[-soak].md. */
async function publish(report: string, date: Date, suffix: string): Promise<void> {
  process.stdout.write(`\n${report}`);
  const folder = join(BENCH_ROOT, 'results');
  await mkdir(folder, { recursive: true });
  const stamp = date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-');
  const file = join(folder, `${stamp}-${suffix}.md`);
  await writeFile(file, report);
  progress(`report written to ${file}`);
}

async function runSoak(options: BenchOptions, ours: BenchTarget, header: RunHeader) {
  const seconds = options.soakSeconds ?? 0;
  const seeded = await startSeeded(ours);
  progress(`${ours.name}: soak, mixed with hostile requests for ${seconds} s`);
  const result = await soak(seeded, seconds, options.connections);
  await seeded.started.server.stop();
  await publish(
    renderSoakReport(header, ours, seeded, result),
    header.date,
    `${options.database}-soak`,
  );
}

async function runScenarios(
  options: BenchOptions,
  targets: BenchTarget[],
  header: RunHeader,
  comparedName: string | undefined,
) {
  const shape = {
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
  };
  const runs = await benchTargets(targets, options.scenarios, shape, options.rounds);
  await publish(renderScenarioReport(header, runs, comparedName), header.date, options.database);
}

async function runOverload(options: BenchOptions, targets: BenchTarget[], header: RunHeader) {
  const shape = { durationSeconds: options.durationSeconds, warmupSeconds: options.warmupSeconds };
  const runs = await overloadTargets(targets, shape, options.rounds);
  await publish(
    renderOverloadReport(header, runs, shape),
    header.date,
    `${options.database}-overload`,
  );
}

async function main(options: BenchOptions): Promise<void> {
  const date = new Date();
  const tempFolder = await mkdtemp(join(tmpdir(), 'animal-store-bench-'));
  onCleanup(`remove ${tempFolder}`, () => rm(tempFolder, { recursive: true, force: true }));
  if (options.database === 'postgres') await checkPostgres();
  const revision = await describeRevision();

  progress('building the server (pnpm turbo run build --filter=@animal-store/server)');
  await buildServer(REPOSITORY_ROOT);
  progress('compiling the bare baseline');
  await compileBaseline();
  let compared: { name: string; root: string } | undefined;
  if (options.compare !== undefined) {
    const name = await shortCommitOf(options.compare);
    progress(`${name}: checking out a worktree, installing and building its server`);
    compared = { name, root: await prepareWorktree(options.compare, tempFolder) };
  }

  const redisUrl = await claimRedisDatabase();
  if (!redisUrl) progress('Redis does not answer on 127.0.0.1:6379: rate limits count in-process');
  const settings: RunSettings = {
    tempFolder,
    redisUrl,
    serverNodeOptions: options.serverNodeOptions,
    serverEnv: options.serverEnv,
    stdoutFile: options.serverStdout,
    cpuProfileFolder: options.cpuProfileFolder,
  };
  const header: RunHeader = {
    date,
    revision,
    machine: describeMachine(),
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
    rounds: options.rounds,
    database: options.database,
    redisUrl,
    serverNodeOptions: options.serverNodeOptions,
    serverEnv: options.serverEnv,
  };
  progress(
    headerLine(header, options.overload ? 'overload levels' : `${options.connections} connections`),
  );

  const deployed = (target: BenchTarget) => (options.balancer ? behindBalancer(target) : target);
  const ours = deployed(
    apiServerTarget(
      'ours',
      `this checkout (${revision}), apps/server as built by turbo and started by its start script, on ${options.database}`,
      REPOSITORY_ROOT,
      options.database,
      settings,
    ),
  );
  if (options.soakSeconds !== undefined) return runSoak(options, ours, header);
  const targets = [deployed(bareTarget(settings, options.database)), ours];
  if (compared) {
    targets.push(
      deployed(
        apiServerTarget(
          compared.name,
          `revision ${compared.name} (git worktree), apps/server as built by turbo and started by its start script, on ${options.database}`,
          compared.root,
          options.database,
          settings,
        ),
      ),
    );
  }
  if (options.overload) return runOverload(options, targets, header);
  await runScenarios(options, targets, header, compared?.name);
}

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  const message = error instanceof UsageError || error instanceof TypeError ? error.message : error;
  console.error(`bench: ${message}\n\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
} else {
  cleanUpOnSignals();
  try {
    await main(options);
  } catch (error) {
    // After Ctrl-C, whatever failed failed because its server was being stopped.
    if (!cleaningUp())
      console.error(`bench failed: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
