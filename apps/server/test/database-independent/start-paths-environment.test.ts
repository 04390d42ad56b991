/**
 * Every variable a run reads reaches it through the root scripts that start it. `pnpm start`,
 * `pnpm dev` and the test command's tasks run through turbo, which hands a task only the variables turbo.json names
 * (strict mode) and drops the rest without a word: a setting added to the server's config, or an
 * override added to a test, fails here until turbo.json lets it through. turbo itself is asked
 * (a dry run with every variable set), so its wildcards are matched as it matches them. The
 * deploy folder and the image run `node dist/main.js` with nothing in between.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config.js';
import { REPOSITORY_ROOT, run } from '../support/repository-checkout.js';

/**
 * OpenTelemetry's standard variables, which the server's tracing reads as they are set
 * (src/tracing, and the SDK itself; docs/operations.md, "Tracing", lists them).
 */
const OPEN_TELEMETRY_VARIABLES = [
  'OTEL_SDK_DISABLED',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_TRACES_EXPORTER',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_COMPRESSION',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_BSP_EXPORT_TIMEOUT',
  'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
];

const SERVER_SETTINGS = [...Object.keys(ConfigSchema.shape), ...OPEN_TELEMETRY_VARIABLES];

const VARIABLE_READ = /(?:process\.env|import\.meta\.env)(?:\.|\[['"])([A-Z][A-Z0-9_]*)/g;

interface DryRunVariables {
  configured: string[];
  inferred: string[];
  passthrough: string[] | null;
}

interface DryRun {
  globalCacheInputs: { environmentVariables: DryRunVariables };
  tasks: {
    taskId: string;
    directory: string;
    environmentVariables: DryRunVariables;
  }[];
}

interface PlannedTask {
  readonly directory: string;
  /** The variables turbo hands the task's command. */
  readonly variables: ReadonlySet<string>;
}

/** The names of the variables a dry run lists (as `NAME=hash`). */
function namesIn({ configured, inferred, passthrough }: DryRunVariables): string[] {
  return [...configured, ...inferred, ...(passthrough ?? [])].map((entry) =>
    entry.slice(0, entry.indexOf('=')),
  );
}

/**
 * The tasks turbo would run for `args` (`run <task>… [--filter=…]`), by task id, with the
 * variables it would hand each when every one of `variables` is set.
 */
async function plannedTasks(
  args: readonly string[],
  variables: readonly string[],
): Promise<Map<string, PlannedTask>> {
  const { stdout } = await run(
    join(REPOSITORY_ROOT, 'node_modules/.bin/turbo'),
    [...args, '--dry=json'],
    {
      cwd: REPOSITORY_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TURBO_TELEMETRY_DISABLED: '1',
        ...Object.fromEntries(variables.map((variable) => [variable, 'set'])),
      },
    },
  );
  const plan = JSON.parse(stdout) as DryRun;
  const global = namesIn(plan.globalCacheInputs.environmentVariables);
  return new Map(
    plan.tasks.map((task) => [
      task.taskId,
      {
        directory: task.directory,
        variables: new Set([...global, ...namesIn(task.environmentVariables)]),
      },
    ]),
  );
}

/** The tasks the root script `name` runs, as `plannedTasks` gives them. */
async function tasksOfRootScript(
  name: string,
  variables: readonly string[],
): Promise<Map<string, PlannedTask>> {
  const { scripts } = JSON.parse(await readFile(join(REPOSITORY_ROOT, 'package.json'), 'utf8'));
  const [program, ...args] = (scripts[name] as string).split(/\s+/);
  if (program !== 'turbo') {
    throw new Error(`the ${name} script no longer runs turbo: this test knows only turbo's filter`);
  }
  return plannedTasks(args, variables);
}

/**
 * Every task of every package that runs tests (turbo.json's `test` and `test:…` tasks: the
 * suites, the workflows, the Node 24 pass), as `plannedTasks` gives them, whatever changed.
 */
async function testTasks(variables: readonly string[]): Promise<Map<string, PlannedTask>> {
  const text = await readFile(join(REPOSITORY_ROOT, 'turbo.json'), 'utf8');
  const { tasks } = JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as { tasks: object };
  const names = Object.keys(tasks).filter((name) => name === 'test' || name.startsWith('test:'));
  return plannedTasks(['run', ...names], variables);
}

const isTestTask = (taskId: string) => /#test(:|$)/.test(taskId);

function plannedTask(tasks: Map<string, PlannedTask>, taskId: string): PlannedTask {
  const task = tasks.get(taskId);
  if (!task) throw new Error(`turbo plans no ${taskId}`);
  return task;
}

/** The source files under `directory` (relative to the repository) that `include` accepts. */
async function sourceFiles(directory: string, include: (path: string) => boolean) {
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--deduplicate', directory],
    { cwd: REPOSITORY_ROOT },
  );
  return stdout
    .split('\0')
    .filter((file) => /\.(ts|tsx|mts|js|mjs)$/.test(file) && include(file))
    .map((file) => join(REPOSITORY_ROOT, file))
    .filter((file) => existsSync(file));
}

async function textOf(files: readonly string[]): Promise<string> {
  return (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('\n');
}

/** The variables `text` reads from its environment. */
function variablesReadIn(text: string): Set<string> {
  return new Set([...text.matchAll(VARIABLE_READ)].map((match) => match[1] as string));
}

const isTestSource = (path: string) =>
  /(^|\/)(test|testing|test-fixtures)\/|\.test\.[a-z]+$|(^|\/)vitest[^/]*\.config\.[a-z]+$/.test(
    path,
  );

/**
 * What the tests of a package take from the command that runs them: the variables they read,
 * less those they give a value themselves (for a process they start: `NAME: value`, or
 * `process.env.NAME = value`).
 */
async function testOverridesIn(directory: string): Promise<string[]> {
  const text = await textOf(await sourceFiles(directory, isTestSource));
  const givenHere = (name: string) =>
    new RegExp(`(^|[\\s{,])${name}\\s*:|process\\.env\\.${name}\\s*=[^=]`, 'm').test(text);
  return [...variablesReadIn(text)].filter((name) => !givenHere(name));
}

function missingFrom(task: PlannedTask, expected: Iterable<string>): string[] {
  return [...new Set(expected)].filter((name) => !task.variables.has(name)).sort();
}

describe('what the root scripts hand on to what they run', () => {
  it('`pnpm start` hands the server every setting of its config', async () => {
    const tasks = await tasksOfRootScript('start', SERVER_SETTINGS);
    const server = plannedTask(tasks, '@animal-store/server#start');
    expect(missingFrom(server, SERVER_SETTINGS)).toEqual([]);
  });

  it("`pnpm dev` hands the server its settings and what its code reads, and the web app's dev server what it reads", async () => {
    const serverReads = variablesReadIn(
      await textOf(await sourceFiles('apps/server/src', (path) => !isTestSource(path))),
    );
    const webReads = variablesReadIn(
      await textOf(await sourceFiles('apps/web', (path) => !isTestSource(path))),
    );
    const serverNeeds = [...SERVER_SETTINGS, ...serverReads];
    expect(webReads.size).toBeGreaterThan(0);

    const tasks = await tasksOfRootScript('dev', [...serverNeeds, ...webReads]);
    expect(missingFrom(plannedTask(tasks, '@animal-store/server#dev'), serverNeeds)).toEqual([]);
    expect(missingFrom(plannedTask(tasks, '@animal-store/web#dev'), webReads)).toEqual([]);
  });

  it("`pnpm dev:mock` hands the mock where to listen, and the web app's dev server what it reads", async () => {
    const webReads = variablesReadIn(
      await textOf(await sourceFiles('apps/web', (path) => !isTestSource(path))),
    );
    expect(webReads.size).toBeGreaterThan(0);
    const mockReads = ['PORT', 'HOST'];
    const tasks = await tasksOfRootScript('dev:mock', [...webReads, ...mockReads]);
    expect(missingFrom(plannedTask(tasks, '@animal-store/mock#dev:mock'), mockReads)).toEqual([]);
    expect(missingFrom(plannedTask(tasks, '@animal-store/web#dev:mock'), webReads)).toEqual([]);
  });

  it("the test command hands each package's tests every variable they take from the command", async () => {
    const listed = await testTasks([]);
    const overrides = new Map<string, string[]>();
    for (const [taskId, task] of listed) {
      if (isTestTask(taskId)) overrides.set(taskId, await testOverridesIn(task.directory));
    }
    expect(overrides.get('@animal-store/server#test')).toContain('TEST_POSTGRES_URL');
    expect(overrides.get('@animal-store/server#test:workflows')).toContain('TEST_POSTGRES_URL');
    expect(overrides.get('@animal-store/server#test:node-runtime')).toContain('TEST_POSTGRES_URL');

    const tasks = await testTasks([...overrides.values()].flat());
    const missing = [...overrides].flatMap(([taskId, names]) =>
      missingFrom(plannedTask(tasks, taskId), names).map((name) => `${taskId}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('the test command hands every task the extra certificate authorities the Node 24 pass sets', async () => {
    const tasks = await testTasks(['NODE_EXTRA_CA_CERTS']);
    const without = [...tasks]
      .filter(([, task]) => !task.variables.has('NODE_EXTRA_CA_CERTS'))
      .map(([taskId]) => taskId);
    expect(tasks.size).toBeGreaterThan(0);
    expect(without).toEqual([]);
  });
});

describe('where the tests find PostgreSQL and Redis', () => {
  /** The one place in each package that names the services' default addresses. */
  const DEFINING_FILES = [
    'apps/server/testing/test-services.ts',
    'prisma/src/test-fixtures/postgres.ts',
  ];

  it('is written once per package, so TEST_POSTGRES_URL and TEST_REDIS_URL move every test', async () => {
    const tests = await sourceFiles(
      '.',
      (path) => isTestSource(path) && !path.startsWith('bench/'),
    );
    const hardCoded: string[] = [];
    for (const file of tests) {
      const relative = file.slice(REPOSITORY_ROOT.length);
      if (DEFINING_FILES.includes(relative) || file === fileURLToPath(import.meta.url)) continue;
      if (/\b(5432|6379)\b/.test(await readFile(file, 'utf8'))) hardCoded.push(relative);
    }
    expect(hardCoded).toEqual([]);
  });
});
