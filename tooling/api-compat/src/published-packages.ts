import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getPackages } from '@manypkg/get-packages';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** An entry of a package with type declarations: `@animal-store/contract/openapi`, say. */
export interface DeclarationEntry {
  /** Its import path, e.g. `@animal-store/contract/openapi`. */
  readonly specifier: string;
  /** The built declarations of its ES module build. */
  readonly declarations: string;
  /** The API Extractor report's name, e.g. `contract-openapi` (`contract-openapi.api.md`). */
  readonly reportName: string;
}

/**
 * A package the repository publishes, and where its API record lives:
 * - `api/*.api.md`: the API Extractor report of each entry as the working tree has it, updated
 *   with every change of its public TypeScript API (`pnpm api:update`);
 * - `api/released/`: the last release, moved forward by `pnpm version-packages`: its reports, its
 *   tarball, the OpenAPI document if the package ships one, the consumer program if it has one.
 */
export interface PublishedPackage {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
  readonly entries: readonly DeclarationEntry[];
  /** The OpenAPI document it ships (`./openapi.json` among its exports), as built. */
  readonly builtDocument: string | undefined;
  /** A user's program of the package, `test/consumer/consumer.ts`, which releases record. */
  readonly consumerProgram: string;
  readonly reportFolder: string;
  readonly releasedFolder: string;
}

type ExportTarget = string | { readonly [condition: string]: ExportTarget };
type Exports = Readonly<Record<string, ExportTarget>>;

/** The `types` the `import` condition of an export resolves to, if any. */
function importTypes(target: ExportTarget | undefined): string | undefined {
  if (target === undefined || typeof target === 'string') return undefined;
  const imported = target.import;
  if (typeof imported === 'object' && typeof imported.types === 'string') return imported.types;
  return typeof target.types === 'string' ? target.types : undefined;
}

function declarationEntries(name: string, dir: string, exports: Exports): DeclarationEntry[] {
  const unscoped = name.replace(/^@[^/]+\//, '');
  return Object.entries(exports).flatMap(([subpath, target]) => {
    const types = importTypes(target);
    if (!types) return [];
    const suffix = subpath === '.' ? '' : `-${subpath.slice(2).replace(/[^\w]+/g, '-')}`;
    return [
      {
        specifier: subpath === '.' ? name : `${name}/${subpath.slice(2)}`,
        declarations: join(dir, types),
        reportName: `${unscoped}${suffix}`,
      },
    ];
  });
}

interface Manifest {
  readonly exports?: Exports;
  readonly publishConfig?: { readonly exports?: Exports };
}

/**
 * The exports its users get: pnpm publishes `publishConfig.exports` in place of the workspace's,
 * which lead the workspace to the sources (docs/decisions/008-workspace-reads-sources.md).
 */
const publishedExports = (manifest: Manifest): Exports =>
  manifest.publishConfig?.exports ?? manifest.exports ?? {};

/** Every package of the workspace that is not private, by name. */
export async function publishedPackages(root = REPOSITORY_ROOT): Promise<PublishedPackage[]> {
  const { packages } = await getPackages(root);
  const published = packages
    .filter(({ packageJson }) => !packageJson.private)
    .map(({ dir, packageJson }): PublishedPackage => {
      const exports = publishedExports(packageJson as Manifest);
      const document = exports['./openapi.json'];
      return {
        name: packageJson.name,
        version: packageJson.version,
        dir,
        entries: declarationEntries(packageJson.name, dir, exports),
        builtDocument: typeof document === 'string' ? join(dir, document) : undefined,
        consumerProgram: join(dir, 'test', 'consumer', 'consumer.ts'),
        reportFolder: join(dir, 'api'),
        releasedFolder: join(dir, 'api', 'released'),
      };
    });
  return published.sort((a, b) => a.name.localeCompare(b.name));
}
