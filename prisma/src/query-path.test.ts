import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const RELATIVE_IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

/** The file a relative import names: TypeScript sources are imported by their `.js` names. */
function importedFile(specifier: string, importer: string): string {
  const file = resolve(dirname(importer), specifier);
  const source = file.replace(/\.js$/, '.ts');
  return existsSync(source) ? source : file;
}

/** Every file `entry` imports, directly or through others, within the package. */
function importGraphOf(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      visit(importedFile(specifier as string, file));
    }
  };
  visit(entry);
  return seen;
}

describe('the query path', () => {
  it('imports nothing from the schema-engine bridge, which is the Prisma CLI’s and the migrator’s', () => {
    const queryPath = [...importGraphOf(join(PACKAGE_ROOT, 'src/client.ts'))].map((file) =>
      relative(PACKAGE_ROOT, file),
    );
    expect(queryPath).toContain('src/adapters/libsql-adapter.ts');
    expect(queryPath.filter((file) => file.startsWith('schema-engine/'))).toEqual([]);
  });
});
