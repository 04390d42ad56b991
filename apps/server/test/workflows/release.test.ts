/**
 * Releasing, in a fresh copy of the repository: the dry run publishes exactly the contract and
 * the client, each with only its build, README and license, and a changeset versions the two
 * together while the private packages stay as they are.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Checkout,
  checkoutRepository,
  installDependencies,
  run,
} from '../support/repository-checkout.js';

const PUBLISHED = ['@animal-store/client', '@animal-store/contract'];
const PRIVATE = ['apps/server', 'apps/web', 'prisma'];

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

describe('releasing', () => {
  let checkout: Checkout;

  beforeAll(async () => {
    checkout = await checkoutRepository('release');
    await installDependencies(checkout);
  });

  afterAll(() => checkout?.remove());

  it('the dry run publishes only the contract and the client, each with only its build, README and license', async () => {
    const { stdout, stderr } = await run('pnpm', ['release:dry-run'], { cwd: checkout.root });
    const packages = packedFiles(`${stdout}\n${stderr}`);

    expect([...packages.keys()].sort()).toEqual(PUBLISHED);
    for (const [name, files] of packages) {
      expect(
        files.filter(
          (file) => !/^(dist\/.+|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/.test(file),
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

  it('a changeset for the contract alone versions the contract and the client together', async () => {
    const before = await versionOf(checkout, 'packages/contract');
    expect(await versionOf(checkout, 'packages/client')).toBe(before);
    const privateBefore = await Promise.all(PRIVATE.map((folder) => versionOf(checkout, folder)));

    await writeFile(
      join(checkout.root, '.changeset/contract-grows.md'),
      '---\n"@animal-store/contract": minor\n---\n\nA new optional field.\n',
    );
    await run('pnpm', ['version-packages'], { cwd: checkout.root });

    const contract = await versionOf(checkout, 'packages/contract');
    expect(contract).not.toBe(before);
    expect(await versionOf(checkout, 'packages/client')).toBe(contract);
    expect(await Promise.all(PRIVATE.map((folder) => versionOf(checkout, folder)))).toEqual(
      privateBefore,
    );
    for (const folder of ['packages/contract', 'packages/client']) {
      const changelog = await readFile(join(checkout.root, folder, 'CHANGELOG.md'), 'utf8');
      expect(changelog, folder).toContain(`## ${contract}`);
    }
  });
});
