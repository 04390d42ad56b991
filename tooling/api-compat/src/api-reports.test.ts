/**
 * API Extractor on a package of fixture declarations, as tsup would have built them: the report
 * is written by `update`, and `check` finds the declarations changed without touching it.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportEntry } from './api-reports.js';
import type { DeclarationEntry, PublishedPackage } from './published-packages.js';
import { declarationsOf } from './typescript-changes.js';

let dir: string;
let widgets: PublishedPackage;

const declare = (declarations: string) => writeFile(join(dir, 'dist', 'index.d.ts'), declarations);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'api-reports-'));
  await mkdir(join(dir, 'dist'));
  const manifest = { name: '@fixture/widgets', version: '1.0.0', types: './dist/index.d.ts' };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest));
  widgets = {
    name: manifest.name,
    version: manifest.version,
    dir,
    entries: [
      {
        specifier: manifest.name,
        declarations: join(dir, 'dist', 'index.d.ts'),
        reportName: 'widgets',
      },
    ],
    builtDocument: undefined,
    consumerProgram: join(dir, 'test', 'consumer', 'consumer.ts'),
    reportFolder: join(dir, 'api'),
    releasedFolder: join(dir, 'api', 'released'),
  };
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the TypeScript API report', () => {
  const entry = () => widgets.entries[0] as DeclarationEntry;

  it('is written by update, and then matches', async () => {
    await declare(
      '/** A widget of `size`. */\nexport declare function widget(size: number): string;\n',
    );
    const written = await reportEntry(widgets, entry(), 'update');
    expect(written.problems).toEqual([]);
    expect(written.report).toBe(join(dir, 'api', 'widgets.api.md'));
    expect(declarationsOf(await readFile(written.report, 'utf8'))).toEqual(
      new Map([['widget', 'export function widget(size: number): string;']]),
    );
    expect((await reportEntry(widgets, entry(), 'check')).changed).toBe(false);
  });

  it('no longer matches declarations that changed, which check reports and leaves', async () => {
    const before = await readFile(join(dir, 'api', 'widgets.api.md'), 'utf8');
    await declare('export declare function widget(size: string): string;\n');
    const checked = await reportEntry(widgets, entry(), 'check');
    expect(checked.changed).toBe(true);
    expect(declarationsOf(checked.generated).get('widget')).toBe(
      'export function widget(size: string): string;',
    );
    expect(await readFile(join(dir, 'api', 'widgets.api.md'), 'utf8')).toBe(before);
  });

  it('shows a type the exports use without exporting it, so that a change to it is seen', async () => {
    const withOptions = (strict: string) =>
      declare(
        `interface Options {\n  strict: ${strict};\n}\nexport declare function widget(options: Options): string;\n`,
      );
    await withOptions('true');
    await reportEntry(widgets, entry(), 'update');
    await withOptions('boolean');
    const checked = await reportEntry(widgets, entry(), 'check');
    expect(checked.changed).toBe(true);
    expect(declarationsOf(checked.generated).get('Options')).toContain('strict: boolean;');
  });
});
