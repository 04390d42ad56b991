/**
 * The documents held to the contract where they name its operations: a list of them (marked
 * `<!-- names every operation -->`) names every one, and docs/interface.md has a section for each
 * whose status table says what the operation's examples answer. A new operation is missed by no
 * document unseen: the test names the file and what is missing.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { contractExampleCases, type ExampleStep } from './examples/index.js';
import { contract } from './index.js';
import { operationsOf } from './operations.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const INTERFACE = 'docs/interface.md';
const MARKER = '<!-- names every operation -->';
/** Folders no document of ours is in: what is installed, built or recorded from a release. */
const NOT_OURS = new Set(['node_modules', 'dist', '.git', '.turbo', 'released']);

/** Every Markdown file of the repository, by its path from the root; `NOT_OURS` is not entered. */
async function documents(folder = ''): Promise<string[]> {
  const entries = await readdir(`${ROOT}${folder}`, { withFileTypes: true });
  const found = await Promise.all(
    entries.map(async (entry) => {
      const path = `${folder}${entry.name}`;
      if (entry.isDirectory()) return NOT_OURS.has(entry.name) ? [] : documents(`${path}/`);
      return entry.isFile() && entry.name.endsWith('.md') ? [path] : [];
    }),
  );
  return found.flat();
}

const OPERATIONS = operationsOf(contract).map(({ name }) => name);
const read = (path: string) => readFile(`${ROOT}${path}`, 'utf8');

/** The lines after each marker up to the next blank line: the list it marks. */
function markedLists(text: string): string[] {
  const lines = text.split('\n');
  return lines.flatMap((line, index) => {
    if (line.trim() !== MARKER) return [];
    const end = lines.findIndex((next, at) => at > index && next.trim() === '');
    return [lines.slice(index + 1, end === -1 ? undefined : end).join('\n')];
  });
}

/** The part of `text` under the heading that starts with `heading`, up to the next heading. */
function section(text: string, heading: string): string | undefined {
  const start = text.split('\n').findIndex((line) => line.startsWith(heading));
  if (start === -1) return undefined;
  const lines = text.split('\n').slice(start + 1);
  const end = lines.findIndex((line) => /^#{1,3} /.test(line));
  return lines.slice(0, end === -1 ? undefined : end).join('\n');
}

/**
 * The codes every operation may answer whatever it is (docs/interface.md says so once, above the
 * sections): an operation's own table leaves them out.
 */
const ANY_OPERATION: ReadonlySet<string> = new Set<ErrorCode>([
  'malformed_request',
  'headers_too_large',
  'unauthorized',
  'rate_limited',
  'temporarily_banned',
  'internal_error',
  'service_unavailable',
]);
const CODES = Object.keys(ERROR_STATUS);

/** `400 validation_failed`, `201`: the answers the first table with a `Status` column lists. */
function tableAnswers(text: string): string[] {
  const rows = text.split('\n').filter((line) => line.startsWith('|'));
  const header = rows.findIndex((row) => /^\|\s*Status\s*\|/.test(row));
  if (header === -1) return [];
  const body = rows.slice(header + 2);
  return body.flatMap((row) => {
    const [status = '', ...cells] = row
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    const codes = [...cells.join(' ').matchAll(/`(\w+)`/g)]
      .map((match) => match[1] as string)
      .filter((code) => CODES.includes(code));
    return codes.length > 0 ? codes.map((code) => `${status} ${code}`) : [status];
  });
}

/** What the examples of `operation` answer, as its table would list them. */
function exampleAnswers(operation: string): string[] {
  const answers = contractExampleCases()
    .filter((example) => example.operation === operation)
    .map((example) => {
      const { status, body } = (example.steps.at(-1) as ExampleStep).response as {
        status: number;
        body?: { code?: unknown };
      };
      return typeof body?.code === 'string' ? `${status} ${body.code}` : String(status);
    })
    .filter((answer) => !ANY_OPERATION.has(answer.split(' ')[1] ?? ''));
  return [...new Set(answers)].sort();
}

describe('the documents', () => {
  it('name every operation in each list of them', async () => {
    const lists = await Promise.all(
      (await documents()).map(async (path) => ({ path, lists: markedLists(await read(path)) })),
    );
    const unnamed = lists.flatMap(({ path, lists }) =>
      lists.flatMap((list) => {
        const missing = OPERATIONS.filter((name) => !list.includes(`\`${name}\``));
        return missing.length > 0 ? [`${path}: ${missing.join(', ')} missing from\n${list}`] : [];
      }),
    );
    expect(unnamed).toEqual([]);
    // The marker is found where it is written: the interface's own lists carry it.
    expect(lists.find(({ path }) => path === INTERFACE)?.lists.length).toBeGreaterThan(0);
  });

  it.each(OPERATIONS)(
    `${INTERFACE} has a section for %s whose status table is what its examples answer`,
    async (operation) => {
      const text = section(await read(INTERFACE), `### \`${operation}\``);
      expect(text, `no "### \`${operation}\`" section`).toBeDefined();
      expect([...new Set(tableAnswers(text ?? ''))].sort()).toEqual(exampleAnswers(operation));
    },
  );
});
