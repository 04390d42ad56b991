/**
 * The workspace reads its packages from their sources (docs/decisions/008-workspace-reads-sources.md):
 * every entry a package builds leads there first under the source condition, every package's
 * type check and tests resolve the workspace packages they reach to those sources, and what the
 * published packages ship names none of them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import {
  builtSubpaths,
  ownFiles,
  parsedTsconfig,
  reachedEdges,
  sourceCondition,
  sourceEntries,
  type WorkspacePackage,
  withoutCondition,
  workspacePackages,
} from './workspace.js';

const condition = sourceCondition();
const workspace = await workspacePackages();
const packageNamed = (name: string) => {
  const found = workspace.find((pkg) => pkg.name === name);
  if (!found) throw new Error(`The workspace has no ${name}`);
  return found;
};

/** Each source a package's modules reach, keyed by who imports it and by what name. */
function sourcesReached(pkg: WorkspacePackage) {
  return reachedEdges(pkg, workspace).flatMap(({ dependent, dependency }) =>
    sourceEntries(dependency, condition).map((entry) => ({
      key: `${dependent.folder} imports ${entry.specifier}`,
      // A module of the importing package: resolution starts from its folder.
      importer: join(dependent.dir, 'src', 'index.ts'),
      ...entry,
    })),
  );
}

/** The configuration files (named by `pattern`) of each package that reaches some source. */
async function configsReachingSources(pattern: RegExp) {
  const configs = await Promise.all(
    workspace
      .filter((pkg) => sourcesReached(pkg).length > 0)
      .map(async (pkg) => (await ownFiles(pkg, pattern)).map((file) => ({ pkg, file }))),
  );
  return configs.flat().map(({ pkg, file }) => ({ name: `${pkg.folder}/${file}`, pkg, file }));
}

const expectedSources = (pkg: WorkspacePackage) =>
  Object.fromEntries(sourcesReached(pkg).map(({ key, source }) => [key, source]));

const tsconfigs = await configsReachingSources(/^tsconfig.*\.json$/);
const vitestConfigs = await configsReachingSources(/^vitest(\.[\w-]+)?\.config\.ts$/);

describe('exports', () => {
  it.each(workspace.filter((pkg) => builtSubpaths(pkg).length > 0).map((pkg) => [pkg.folder, pkg]))(
    '%s: every entry it builds leads the workspace to its source first, a file that exists',
    (_folder, pkg) => {
      const exports = pkg.manifest.exports ?? {};
      const entries = builtSubpaths(pkg).map((subpath) => {
        const target = exports[subpath];
        const [first, source] = typeof target === 'object' ? (Object.entries(target)[0] ?? []) : [];
        return {
          subpath,
          first,
          exists: typeof source === 'string' && existsSync(join(pkg.dir, source)),
        };
      });
      expect(entries).toEqual(
        builtSubpaths(pkg).map((subpath) => ({ subpath, first: condition, exists: true })),
      );
    },
  );

  it.each(workspace.filter((pkg) => !pkg.manifest.private).map((pkg) => [pkg.folder, pkg]))(
    '%s publishes its exports without the source condition (publishConfig.exports)',
    (_folder, pkg) => {
      const published = pkg.manifest.publishConfig?.exports;
      expect(published, `${pkg.folder}/package.json has no publishConfig.exports`).toBeDefined();
      // Serialized: the order of conditions decides which one matches.
      expect(JSON.stringify(published, null, 2)).toBe(
        JSON.stringify(withoutCondition(pkg.manifest.exports ?? {}, condition), null, 2),
      );
    },
  );
});

describe('type checks', () => {
  it.each(tsconfigs.map((config) => [config.name, config]))(
    '%s reads every workspace package it reaches from its source',
    (_name, { pkg, file }) => {
      const { options } = parsedTsconfig(join(pkg.dir, file));
      const resolved = Object.fromEntries(
        sourcesReached(pkg).map(({ key, specifier, importer }) => [
          key,
          ts.resolveModuleName(specifier, importer, options, ts.sys).resolvedModule
            ?.resolvedFileName,
        ]),
      );
      expect(resolved).toEqual(expectedSources(pkg));
    },
  );

  it("sees a type the contract's source gains in the client's type check, with no build in between", () => {
    const client = packageNamed('@animal-store/client');
    const contractEntry = sourceEntries(packageNamed('@animal-store/contract'), condition).find(
      ({ specifier }) => specifier === '@animal-store/contract',
    );
    if (!contractEntry) throw new Error('The contract leads to no source of its main entry');
    const probe = join(client.dir, 'src', 'sees-contract-source.ts');
    const edited = new Map([
      [
        contractEntry.source,
        `${readFileSync(contractEntry.source, 'utf8')}\nexport type SeenWithoutBuild = 'seen';\n`,
      ],
      [
        probe,
        `import type { SeenWithoutBuild } from '@animal-store/contract';\nexport const seen: SeenWithoutBuild = 'seen';\n`,
      ],
    ]);
    const { options } = parsedTsconfig(join(client.dir, 'tsconfig.json'));
    const host = ts.createCompilerHost(options);
    const { fileExists, readFile } = host;
    host.fileExists = (file) => edited.has(file) || fileExists(file);
    host.readFile = (file) => edited.get(file) ?? readFile(file);
    host.getSourceFile = (file, language) => {
      const text = host.readFile(file);
      return text === undefined ? undefined : ts.createSourceFile(file, text, language);
    };
    const program = ts.createProgram([probe], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(probe));
    expect(ts.formatDiagnostics(diagnostics, host)).toBe('');
  });
});

describe('tests', () => {
  it.each(vitestConfigs.map((config) => [config.name, config]))(
    '%s reads every workspace package its tests reach from its source',
    async (_name, { pkg, file }) => {
      const vitest = await createVitest('test', {
        root: pkg.dir,
        config: join(pkg.dir, file),
        watch: false,
      });
      try {
        const [project] = vitest.projects;
        if (!project) throw new Error(`${file} sets up no project`);
        const resolver = project.vite.environments.ssr.pluginContainer;
        const resolved = Object.fromEntries(
          await Promise.all(
            sourcesReached(pkg).map(async ({ key, specifier, importer }) => [
              key,
              (await resolver.resolveId(specifier, importer))?.id,
            ]),
          ),
        );
        expect(resolved).toEqual(expectedSources(pkg));
      } finally {
        await vitest.close();
      }
    },
  );
});
