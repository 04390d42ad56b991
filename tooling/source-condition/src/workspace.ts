import { realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getPackages } from '@manypkg/get-packages';
import ts from 'typescript';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export type ExportTarget = string | { readonly [condition: string]: ExportTarget };
export type Exports = Readonly<Record<string, ExportTarget>>;

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly exports?: Exports;
  readonly publishConfig?: { readonly exports?: Exports };
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

export interface WorkspacePackage {
  readonly name: string;
  /** Relative to the repository, e.g. `packages/client`. */
  readonly folder: string;
  readonly dir: string;
  readonly manifest: Manifest;
}

/** One entry of a package's exports that leads the workspace to a source file. */
export interface SourceEntry {
  /** Its import path, e.g. `@animal-store/contract/openapi`. */
  readonly specifier: string;
  /** The source file, as the file system names it (symlinks resolved). */
  readonly source: string;
}

/** A workspace package, `dependent`, that imports another, `dependency`, by its name. */
export interface WorkspaceEdge {
  readonly dependent: WorkspacePackage;
  readonly dependency: WorkspacePackage;
}

export async function workspacePackages(): Promise<WorkspacePackage[]> {
  const { packages } = await getPackages(REPOSITORY_ROOT);
  return packages.map(({ dir, packageJson }) => ({
    name: packageJson.name,
    folder: relative(REPOSITORY_ROOT, dir),
    dir,
    manifest: packageJson as unknown as Manifest,
  }));
}

/**
 * The export condition that leads to the sources: the one the repository's base tsconfig sets,
 * which every package's tsconfig extends.
 */
export function sourceCondition(): string {
  const conditions = parsedTsconfig(join(REPOSITORY_ROOT, 'tsconfig.base.json')).options
    .customConditions;
  if (conditions?.length !== 1) {
    throw new Error(`tsconfig.base.json names ${conditions?.length ?? 0} custom conditions, not 1`);
  }
  return conditions[0] as string;
}

export function parsedTsconfig(path: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`${path} cannot be read`);
  return parsed;
}

/** The file names in a package's own folder that match `pattern`, e.g. its tsconfig files. */
export async function ownFiles(pkg: WorkspacePackage, pattern: RegExp): Promise<string[]> {
  return (await readdir(pkg.dir)).filter((name) => pattern.test(name)).sort();
}

const targetsOf = (target: ExportTarget): string[] =>
  typeof target === 'string' ? [target] : Object.values(target).flatMap(targetsOf);

/** The subpaths of a package's exports that lead to a build (`dist/`) under some condition. */
export function builtSubpaths(pkg: WorkspacePackage): string[] {
  return Object.entries(pkg.manifest.exports ?? {})
    .filter(([, target]) => targetsOf(target).some((path) => path.startsWith('./dist/')))
    .map(([subpath]) => subpath);
}

export function sourceEntries(pkg: WorkspacePackage, condition: string): SourceEntry[] {
  return Object.entries(pkg.manifest.exports ?? {}).flatMap(([subpath, target]) => {
    if (typeof target === 'string') return [];
    const source = target[condition];
    if (typeof source !== 'string') return [];
    return [
      {
        specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
        source: realpathSync(join(pkg.dir, source)),
      },
    ];
  });
}

/**
 * Exports as they are without `condition`: an entry left with `default` alone is that target,
 * as it would be written.
 */
export function withoutCondition(exports: Exports, condition: string): Exports {
  const strip = (target: ExportTarget): ExportTarget => {
    if (typeof target === 'string') return target;
    const kept = Object.entries(target).filter(([name]) => name !== condition);
    const [only] = kept;
    if (kept.length === 1 && only?.[0] === 'default') return strip(only[1]);
    return Object.fromEntries(kept.map(([name, value]) => [name, strip(value)]));
  };
  return Object.fromEntries(
    Object.entries(exports).map(([subpath, target]) => [subpath, strip(target)]),
  );
}

const workspaceDependencyNames = (dependencies: Readonly<Record<string, string>> = {}) =>
  Object.entries(dependencies)
    .filter(([, spec]) => spec.startsWith('workspace:'))
    .map(([name]) => name);

/**
 * Every workspace package whose modules a package's type check or tests load, and who imports
 * it: the package's own dependencies (development ones too: its tests import them), then, from
 * there on, what each needs to run (its `dependencies`).
 */
export function reachedEdges(
  pkg: WorkspacePackage,
  workspace: readonly WorkspacePackage[],
): WorkspaceEdge[] {
  const byName = new Map(workspace.map((member) => [member.name, member]));
  const edges: WorkspaceEdge[] = [];
  const visited = new Set<string>([pkg.name]);
  const visit = (dependent: WorkspacePackage, names: readonly string[]) => {
    for (const name of names) {
      const dependency = byName.get(name);
      if (!dependency) continue;
      edges.push({ dependent, dependency });
      if (visited.has(name)) continue;
      visited.add(name);
      visit(dependency, workspaceDependencyNames(dependency.manifest.dependencies));
    }
  };
  visit(pkg, [
    ...workspaceDependencyNames(pkg.manifest.dependencies),
    ...workspaceDependencyNames(pkg.manifest.devDependencies),
  ]);
  return edges;
}
