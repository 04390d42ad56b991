/**
 * What keeps the test command short, so that losing it fails here rather than slowing every run
 * unseen (CONTRIBUTING.md, "Tests"): the server's suite runs both databases at once, files in
 * parallel, and on PostgreSQL only what the database can change; its processes run a build made
 * once per run; the Node 24 pass runs only what rests on Node's own behaviour; the workflows run
 * once, beside the other suites.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createVitest, type Vitest } from 'vitest/node';
import { dropScratchDatabases, scratchDatabaseUrl } from '../../testing/test-database.js';
import { REPOSITORY_ROOT, run } from '../support/repository-checkout.js';
import { killLeftoverServers, startServerProcess } from '../support/server-process.js';

const SERVER = join(REPOSITORY_ROOT, 'apps/server');

async function scriptsOf(folder: string): Promise<Record<string, string | undefined>> {
  const manifest = JSON.parse(
    await readFile(join(REPOSITORY_ROOT, folder, 'package.json'), 'utf8'),
  );
  return manifest.scripts ?? {};
}

/** The folder, relative to the repository, of the package that holds `file`. */
function packageOf(file: string): string {
  let folder = dirname(file);
  while (!existsSync(join(REPOSITORY_ROOT, folder, 'package.json'))) folder = dirname(folder);
  return folder;
}

describe("the server's suite", () => {
  let vitest: Vitest;
  /** The files each project of the server's vitest config runs, relative to the package. */
  const filesOf = new Map<string, string[]>();

  beforeAll(async () => {
    vitest = await createVitest('test', { root: SERVER, watch: false });
    for (const specification of await vitest.globTestSpecifications()) {
      const files = filesOf.get(specification.project.name) ?? [];
      files.push(relative(SERVER, specification.moduleId));
      filesOf.set(specification.project.name, files);
    }
  });
  afterAll(() => vitest.close());

  it('runs on PostgreSQL what the database can change, and not what it cannot', () => {
    const onPostgresql = filesOf.get('postgresql') ?? [];
    const onSqlite = filesOf.get('sqlite') ?? [];
    expect(onPostgresql).toContain('test/create-pet.test.ts');
    expect(onPostgresql).toContain('test/postgresql/database-outage.test.ts');
    expect(
      onPostgresql.filter((file) => /^test\/(database-independent|sqlite)\//.test(file)),
    ).toEqual([]);
    expect(onSqlite).toContain('test/database-independent/request-edges.test.ts');
    expect(onSqlite.filter((file) => file.startsWith('test/postgresql/'))).toEqual([]);
    const onEach = onSqlite.filter((file) => !/^test\/(database-independent|sqlite)\//.test(file));
    expect(onPostgresql.filter((file) => !file.startsWith('test/postgresql/')).sort()).toEqual(
      onEach.sort(),
    );
  });

  it('runs both databases in one vitest run, several files at a time', async () => {
    const { test } = await scriptsOf('apps/server');
    expect(test).toBe('vitest run --project sqlite --project postgresql');
    for (const name of ['sqlite', 'postgresql']) {
      const project = vitest.projects.find((candidate) => candidate.name === name);
      expect(project?.config.maxWorkers, name).toBeGreaterThan(1);
    }
  });

  it('leaves the workflows to their own task, which the test command runs beside the others', async () => {
    expect(filesOf.get('workflows')).toContain('test/workflows/release.test.ts');
    const { test, 'test:workflows': workflows } = await scriptsOf('apps/server');
    expect(test).not.toMatch(/workflows/);
    expect(workflows).toBe('vitest run --project workflows');
    const { 'test:all': all } = await scriptsOf('.');
    expect(all).toMatch(/turbo run [^&]*\btest test:workflows\b/);
    // Two files at a time: one at a time, the others waited for the release rehearsal and then
    // ran alone, minutes after every suite had ended.
    const project = vitest.projects.find((candidate) => candidate.name === 'workflows');
    // (`fileParallelism: false` resolves to one.)
    expect(project?.config.maxWorkers).toBe(2);
  });
});

describe('the server processes the suite starts', () => {
  afterAll(async () => {
    killLeftoverServers();
    await dropScratchDatabases();
  });

  it('run the server built once for the run (server-build.ts), not its sources through tsx', async () => {
    const server = await startServerProcess({ DATABASE_URL: await scratchDatabaseUrl() });
    expect(server.child.spawnargs.at(-1)).toBe(join(inject('serverBuild'), 'main.js'));
    expect(server.child.spawnargs.join(' ')).not.toMatch(/tsx/);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

describe('the Node 24 pass', () => {
  it("runs each package's test:node-runtime, not its whole suite", async () => {
    const { 'test:node24': node24 } = await scriptsOf('.');
    expect(node24).toMatch(/turbo run test:node-runtime'$/);
  });

  it('reaches every test tagged node-runtime: each package with one has the script that runs them', async () => {
    const { stdout } = await run(
      'git',
      [
        'grep',
        '-l',
        '-E',
        "@module-tag node-runtime|tags: \\['node-runtime'\\]",
        '--',
        '*.test.ts',
      ],
      {
        cwd: REPOSITORY_ROOT,
      },
    );
    const tagged = stdout.split('\n').filter(Boolean);
    expect(tagged).toContain('apps/server/test/database-independent/request-edges.test.ts');
    const packages = new Set(tagged.map(packageOf));
    const scripts = await Promise.all(
      [...packages].map(
        async (folder) => [folder, (await scriptsOf(folder))['test:node-runtime']] as const,
      ),
    );
    expect(scripts.filter(([, script]) => !script?.includes('--tags-filter=node-runtime'))).toEqual(
      [],
    );
  });
});
