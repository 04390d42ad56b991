/**
 * The changes between two API Extractor reports of one entry, declaration by declaration: an
 * export removed is breaking, one added is not, and one whose declaration changed is for review
 * (adding an optional option and removing a required one look alike from here). The reports
 * also hold the types the exports use without exporting them (API Extractor's "forgotten
 * exports"): a change to one is for review too, and one no longer used is, since the exports
 * that used it changed with it.
 */
import type { ApiChange } from './api-change.js';

const DECLARATION =
  /^(?:export )?(?:declare )?(?:abstract )?(?:const|let|var|function|class|interface|type|enum|namespace) ([\w$]+)/m;

const isExported = (declaration: string) => declaration.startsWith('export ');

/** `export { OpenAPIObject }`: a name the entry passes on from another package. */
const RE_EXPORT = /^export \{([^}]*)\}/m;

/** The names a block of the report declares or passes on. */
function namesIn(text: string): string[] {
  const declared = DECLARATION.exec(text)?.[1];
  if (declared) return [declared];
  const passedOn = RE_EXPORT.exec(text)?.[1] ?? '';
  return passedOn
    .split(',')
    .map(
      (name) =>
        name
          .trim()
          .split(/\s+as\s+/)
          .at(-1) ?? '',
    )
    .filter(Boolean);
}

/** The report's declarations by name, their comments left out (a doc comment is no API). */
export function declarationsOf(report: string): Map<string, string> {
  const code = /```ts\n([\s\S]*?)```/.exec(report)?.[1] ?? '';
  const declarations = new Map<string, string>();
  for (const block of code.split(/\n{2,}/)) {
    const text = block
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('//'))
      .join('\n')
      .trim();
    // Overloads of a function come as blocks of one name.
    for (const name of namesIn(text)) {
      declarations.set(name, [declarations.get(name), text].filter(Boolean).join('\n'));
    }
  }
  return declarations;
}

export function typescriptChanges(
  specifier: string,
  released: string,
  current: string,
): ApiChange[] {
  const [before, after] = [declarationsOf(released), declarationsOf(current)];
  const subject = `\`${specifier}\` (TypeScript)`;
  const changes: ApiChange[] = [];
  for (const [name, text] of before) {
    if (!after.has(name)) {
      changes.push(
        isExported(text)
          ? { impact: 'breaking', subject, change: `\`${name}\` removed` }
          : { impact: 'review', subject, change: `\`${name}\` (used by the exports) removed` },
      );
    } else if (after.get(name) !== text) {
      changes.push({ impact: 'review', subject, change: `\`${name}\` changed` });
    }
  }
  for (const name of after.keys()) {
    if (!before.has(name))
      changes.push({ impact: 'non-breaking', subject, change: `\`${name}\` added` });
  }
  return changes;
}
