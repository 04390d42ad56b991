/**
 * Releasing, in a fresh copy of the repository. A release made by the steps of
 * CONTRIBUTING.md, read from it, against a Verdaccio of its own on 127.0.0.1: a changeset for the
 * contract alone versions both packages together, the bump is committed and tagged, the contract
 * is published before the client, the record of the last release moves forward, and the
 * published packages install from that registry into a fresh ES module project and a fresh
 * CommonJS project, with no OpenAPI or YAML package among them, type-check under `--strict` and
 * run the client's consumer program against the server. A third fresh project, a user's app
 * tested against the mock (tooling/consumer-project/fixtures/mock-user), installs the client and
 * the mock from that registry and runs its own Vitest tests: in Node, and in Chromium through MSW.
 * Last, the dry run, on the builds the release left, publishes exactly the four published
 * packages, each with only its build, its command, README and license.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  type ConsumerProject,
  createConsumerProject,
  type ModuleSystem,
  OPENAPI_BUILDER_PACKAGE,
} from '@animal-store/consumer-project/consumer-project';
import {
  type LocalRegistry,
  startLocalRegistry,
} from '@animal-store/consumer-project/local-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type LiveServer, ROOMY, startLiveServer } from '../../testing/live-server.js';
import { findChromium } from '../../testing/system-tool.js';
import {
  type Checkout,
  checkoutRepository,
  developerEnvironment,
  installDependencies,
  run,
} from '../support/repository-checkout.js';

const CONTRACT = '@animal-store/contract';
const CLIENT = '@animal-store/client';
const CONFORMANCE = '@animal-store/conformance';
const MOCK = '@animal-store/mock';
const PUBLISHED = [CLIENT, CONFORMANCE, CONTRACT, MOCK];
/**
 * What a user installs: the consumer program needs the first two, the check runs by itself, and
 * a user's tests start the mock.
 */
const INSTALLED = [CLIENT, CONTRACT, CONFORMANCE, MOCK];
const PRIVATE = ['apps/server', 'apps/web', 'prisma'];
const CONSUMER_PROGRAM = 'packages/client/test/consumer/consumer.ts';
/**
 * A user's project that tests its app on the client against the mock, as the client's README
 * ("Testing your app") says: its Vitest set-up and tests, in Node and in Chromium through MSW.
 */
const MOCK_USER_PROJECT = 'tooling/consumer-project/fixtures/mock-user';

/**
 * A user's test of the published mock, in the project's module system: the mock started on a free
 * port, and the published conformance check run against it with writes.
 */
function mockCheckArguments(moduleSystem: ModuleSystem): string[] {
  const check = `const server = await startMockServer({ port: 0 });
    const report = await runConformance({ baseUrl: server.url, key: server.mock.keys.pro, plan: 'pro', allowWrites: true });
    await server.close();
    console.log(report.passed ? 'passed' : formatReport(report));`;
  return moduleSystem === 'esm'
    ? [
        '--input-type=module',
        '--eval',
        `import { startMockServer } from '${MOCK}'; import { formatReport, runConformance } from '${CONFORMANCE}'; ${check}`,
      ]
    : [
        '--eval',
        `const { startMockServer } = require('${MOCK}'); const { formatReport, runConformance } = require('${CONFORMANCE}'); (async () => { ${check} })();`,
      ];
}

/** The files of a fixture project in the checkout, by their path in it. */
async function fixtureFiles(checkout: Checkout, folder: string): Promise<Record<string, string>> {
  const root = join(checkout.root, folder);
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile());
  return Object.fromEntries(
    await Promise.all(
      files.map(async (file) => {
        const path = join(file.parentPath, file.name);
        return [relative(root, path), await readFile(path, 'utf8')] as const;
      }),
    ),
  );
}

/** The version the workspace's catalog gives a package: a user's project installs the same. */
async function catalogVersion(checkout: Checkout, name: string): Promise<string> {
  const workspace = parseYaml(await readFile(join(checkout.root, 'pnpm-workspace.yaml'), 'utf8'));
  const version = (workspace as { catalog: Record<string, string> }).catalog[name];
  if (!version) throw new Error(`pnpm-workspace.yaml's catalog has no ${name}`);
  return version;
}

/** Who commits in the copy: CI has no Git identity of its own. */
const COMMITTER = {
  GIT_AUTHOR_NAME: 'Release Rehearsal',
  GIT_AUTHOR_EMAIL: 'release@animal-store.example',
  GIT_COMMITTER_NAME: 'Release Rehearsal',
  GIT_COMMITTER_EMAIL: 'release@animal-store.example',
};

/** `npm notice` tarball listings, per package: `📦 name@version`, then one line per file. */
function packedFiles(npmOutput: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  let files: string[] | undefined;
  for (const line of npmOutput.split('\n')) {
    const header = /^npm notice 📦\s+(\S+)@\d/u.exec(line);
    if (header) {
      files = [];
      packages.set(header[1] as string, files);
      continue;
    }
    if (/^npm notice Tarball Details/.test(line)) files = undefined;
    const file = /^npm notice [\d.]+[kMG]?B (\S+)$/.exec(line);
    if (files && file) files.push(file[1] as string);
  }
  return packages;
}

async function versionOf(checkout: Checkout, folder: string): Promise<string> {
  const manifest = await readFile(join(checkout.root, folder, 'package.json'), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

/** The fenced `language` blocks of a section of CONTRIBUTING.md, by its heading. */
async function contributingBlocks(checkout: Checkout, heading: string, language: string) {
  const text = await readFile(join(checkout.root, 'CONTRIBUTING.md'), 'utf8');
  const section = text.split(/^#{2,} /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`CONTRIBUTING.md has no section "${heading}"`);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1] as string,
  );
}

/**
 * The `.npmrc` CONTRIBUTING.md gives for another registry, made for `registry`: its example
 * address, in full and as the token's line names it (`//host/`), becomes the registry's.
 */
async function npmrcFor(checkout: Checkout, registry: LocalRegistry): Promise<string> {
  const blocks = await contributingBlocks(checkout, 'Publishing a release', 'ini');
  const template = blocks.find((block) => /^@animal-store:registry=/m.test(block));
  const example = template && /^@animal-store:registry=(\S+)$/m.exec(template)?.[1];
  if (!template || !example) throw new Error('CONTRIBUTING.md shows no scoped registry');
  const withoutProtocol = (url: string) => url.replace(/^https?:/, '');
  return template
    .replaceAll(example, registry.url)
    .replaceAll(withoutProtocol(example), withoutProtocol(registry.url));
}

/** The repository as `main` is on a maintainer's machine: committed, and pushed to a remote. */
async function makeMain(checkout: Checkout, remote: string) {
  const git = (...args: string[]) =>
    run('git', args, { cwd: checkout.root, env: developerEnvironment(COMMITTER) });
  await run('git', ['init', '--bare', '--initial-branch=main', remote], { cwd: checkout.root });
  await git('init', '--initial-branch=main');
  await git('add', '--all');
  await git('commit', '--quiet', '--message', 'main, with a changeset for the contract alone');
  await git('remote', 'add', 'origin', remote);
  await git('push', '--quiet', '--set-upstream', 'origin', 'main');
}

/** Tag name → the commit it names, as the remote has them. */
async function remoteTags(checkout: Checkout): Promise<Map<string, string>> {
  const { stdout } = await run('git', ['ls-remote', '--tags', 'origin'], { cwd: checkout.root });
  const peeled = [...stdout.matchAll(/^(\w+)\trefs\/tags\/(\S+)\^\{\}$/gm)];
  return new Map(peeled.map(([, commit, tag]) => [tag as string, commit as string]));
}

describe('releasing', () => {
  let checkout: Checkout;

  beforeAll(async () => {
    checkout = await checkoutRepository('release');
    await installDependencies(checkout);
  });

  afterAll(() => checkout?.remove());

  describe('a release made as CONTRIBUTING.md says, to a registry of its own', () => {
    let registry: LocalRegistry;
    let server: LiveServer;
    let scratch: string;
    const projects: ConsumerProject[] = [];
    let before: string;
    let privateBefore: string[];
    let released: string;

    beforeAll(async () => {
      [registry, server, scratch] = await Promise.all([
        startLocalRegistry(),
        startLiveServer('release'),
        mkdtemp(join(tmpdir(), 'animal-store-release-')),
      ]);
      before = await versionOf(checkout, 'packages/contract');
      privateBefore = await Promise.all(PRIVATE.map((folder) => versionOf(checkout, folder)));
      await writeFile(
        join(checkout.root, '.changeset/contract-grows.md'),
        `---\n"${CONTRACT}": minor\n---\n\nA new optional field.\n`,
      );
      await makeMain(checkout, join(scratch, 'origin.git'));
      await writeFile(join(checkout.root, '.npmrc'), await npmrcFor(checkout, registry));

      const [steps] = await contributingBlocks(checkout, 'Publishing a release', 'sh');
      await run('bash', ['-euo', 'pipefail', '-c', steps ?? 'false'], {
        cwd: checkout.root,
        env: developerEnvironment({ ...COMMITTER, NPM_TOKEN: registry.token }),
      });
      released = await versionOf(checkout, 'packages/contract');
    });

    afterAll(async () => {
      for (const project of projects) await project.remove();
      await Promise.all([registry?.stop(), server?.stop()]);
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    it('versions the published packages together, and the private packages not at all', async () => {
      expect(released).not.toBe(before);
      expect(await versionOf(checkout, 'packages/client')).toBe(released);
      expect(await versionOf(checkout, 'packages/conformance')).toBe(released);
      expect(await versionOf(checkout, 'packages/mock')).toBe(released);
      expect(await Promise.all(PRIVATE.map((folder) => versionOf(checkout, folder)))).toEqual(
        privateBefore,
      );
      for (const folder of [
        'packages/contract',
        'packages/client',
        'packages/conformance',
        'packages/mock',
      ]) {
        const changelog = await readFile(join(checkout.root, folder, 'CHANGELOG.md'), 'utf8');
        expect(changelog, folder).toContain(`## ${released}`);
      }
    });

    it('publishes both, the contract before the client that depends on it', async () => {
      const [contract, client] = await Promise.all([
        registry.packument(CONTRACT),
        registry.packument(CLIENT),
      ]);
      expect(contract['dist-tags'].latest).toBe(released);
      expect(client['dist-tags'].latest).toBe(released);
      expect(client.versions[released]?.dependencies).toEqual({ [CONTRACT]: released });
      const publishedAt = (packument: typeof client) => Date.parse(packument.time[released] ?? '');
      expect(publishedAt(contract)).toBeLessThan(publishedAt(client));
    });

    it('tags the commit that bumped the versions, pushes it, and commits no token', async () => {
      const tags = await remoteTags(checkout);
      const { stdout: head } = await run('git', ['rev-parse', 'origin/main'], {
        cwd: checkout.root,
      });
      for (const name of PUBLISHED) expect(tags.get(`${name}@${released}`), name).toBe(head.trim());
      const { stdout: tagged } = await run(
        'git',
        ['show', `${CLIENT}@${released}:packages/client/package.json`],
        { cwd: checkout.root },
      );
      expect(JSON.parse(tagged).version).toBe(released);
      const { stdout: status } = await run(
        'git',
        ['status', '--porcelain', '--ignored', '.npmrc'],
        {
          cwd: checkout.root,
        },
      );
      expect(status.trim()).toBe('!! .npmrc');
    });

    it('moves the record of the last release forward to this one', async () => {
      for (const [folder, tarball] of [
        ['packages/contract', `animal-store-contract-${released}.tgz`],
        ['packages/client', `animal-store-client-${released}.tgz`],
        ['packages/conformance', `animal-store-conformance-${released}.tgz`],
        ['packages/mock', `animal-store-mock-${released}.tgz`],
      ] as const) {
        const files = await readdir(join(checkout.root, folder, 'api/released'));
        expect(
          files.filter((file) => file.endsWith('.tgz')),
          folder,
        ).toEqual([tarball]);
      }
      const { stdout } = await run('pnpm', ['api:check'], { cwd: checkout.root });
      expect(stdout).toContain('None.');
    });

    it.each<ModuleSystem>(['esm', 'commonjs'])(
      'installs from the registry into a fresh %s project, type-checks under --strict and runs, and the conformance check passes against the server and against the mock',
      async (moduleSystem) => {
        const registryHost = new URL(registry.url).host;
        const project = await createConsumerProject({
          label: `published-${moduleSystem}`,
          moduleSystem,
          install: INSTALLED.map((name) => `${name}@${released}`),
          npmrc: [
            `@animal-store:registry=${registry.url}`,
            `//${registryHost}/:_authToken=${registry.token}`,
          ],
          files: { 'consumer.ts': await readFile(join(checkout.root, CONSUMER_PROGRAM), 'utf8') },
        });
        projects.push(project);
        const installed = await project.installedPackages();
        expect(installed).toEqual(expect.arrayContaining(INSTALLED));
        expect(installed.filter((name) => OPENAPI_BUILDER_PACKAGE.test(name))).toEqual([]);

        const compiled = await project.compile(['consumer.ts']);
        expect(compiled.stdout + compiled.stderr).toBe('');
        const output = await readFile(join(project.folder, 'out', 'consumer.js'), 'utf8');
        expect(output).toMatch(
          moduleSystem === 'esm'
            ? /^import .* from '@animal-store\/client';$/m
            : /require\("@animal-store\/client"\)/,
        );

        const consumer = await project.run('consumer.ts', {
          ANIMAL_STORE_URL: server.baseUrl,
          ANIMAL_STORE_API_KEY: await server.createKey(ROOMY),
        });
        expect(consumer.stderr).toBe('');
        expect(JSON.parse(consumer.stdout).passed).toContain('rate-limit state');

        const check = await project.exec(
          'npx',
          ['--no-install', CONFORMANCE, '--base-url', server.baseUrl, '--allow-writes'],
          { ANIMAL_STORE_KEY: await server.createKey(ROOMY) },
        );
        expect(check.stdout).toMatch(/\d+ passed, 0 failed/);
        expect(check.status).toBe(0);

        const mocked = await project.exec('node', mockCheckArguments(moduleSystem), {});
        expect(mocked.stderr).toBe('');
        expect(mocked.stdout.trim()).toBe('passed');
      },
    );

    it("installs the client and the mock from the registry into a fresh project whose own tests pass against the mock: in Node, and in Chromium through MSW's service worker", async () => {
      const registryHost = new URL(registry.url).host;
      const [vitest, msw, playwright, chromium] = await Promise.all([
        catalogVersion(checkout, 'vitest'),
        catalogVersion(checkout, 'msw'),
        catalogVersion(checkout, 'playwright-core'),
        findChromium("The release rehearsal's browser test"),
      ]);
      const project = await createConsumerProject({
        label: 'mock-user',
        moduleSystem: 'esm',
        // Ours from the registry, the rest from npm's as a user gets them.
        install: [
          `${CLIENT}@${released}`,
          `${MOCK}@${released}`,
          `msw@${msw}`,
          `vitest@${vitest}`,
          `@vitest/browser-playwright@${vitest}`,
          `playwright@${playwright}`,
        ],
        // The browser is the machine's Chromium: nothing may download one.
        installEnv: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
        npmrc: [
          `@animal-store:registry=${registry.url}`,
          `//${registryHost}/:_authToken=${registry.token}`,
        ],
        files: await fixtureFiles(checkout, MOCK_USER_PROJECT),
      });
      projects.push(project);

      const worker = await project.exec(
        'npx',
        ['--no-install', 'msw', 'init', 'public', '--save'],
        {},
      );
      expect(worker.status, worker.stdout + worker.stderr).toBe(0);
      const typed = await project.exec('npx', ['--no-install', 'tsc', '-p', '.'], {});
      expect(typed.stdout + typed.stderr).toBe('');

      const tested = await project.exec('npx', ['--no-install', 'vitest', 'run'], {
        CHROMIUM_PATH: chromium,
        NO_COLOR: '1',
        CI: 'true',
      });
      expect(tested.status, tested.stdout + tested.stderr).toBe(0);
      expect(tested.stdout).toMatch(/✓ +\|?node\|? test\/pets\.node\.test\.ts \(3 tests\)/);
      expect(tested.stdout).toMatch(
        /✓ +\|?browser \(chromium\)\|? test\/pets\.browser\.test\.ts \(4 tests\)/,
      );
      expect(tested.stdout).toMatch(/Tests +7 passed \(7\)/);
    });

    // After the release, whose builds turbo has kept: the dry run builds nothing again.
    it('the dry run publishes only the contract, the client, the conformance check and the mock, each with only its build, its command, README and license', async () => {
      const { stdout, stderr } = await run('pnpm', ['release:dry-run'], { cwd: checkout.root });
      const packages = packedFiles(`${stdout}\n${stderr}`);

      expect([...packages.keys()].sort()).toEqual(PUBLISHED);
      for (const [name, files] of packages) {
        expect(
          files.filter(
            (file) =>
              !/^(dist\/.+|bin\/[\w-]+\.js|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/.test(
                file,
              ),
          ),
          name,
        ).toEqual([]);
        expect(files, name).toEqual(
          expect.arrayContaining([
            'LICENSE',
            'README.md',
            'package.json',
            'dist/index.js',
            'dist/index.cjs',
            'dist/index.d.ts',
            'dist/index.d.cts',
          ]),
        );
      }
    });
  });
});
