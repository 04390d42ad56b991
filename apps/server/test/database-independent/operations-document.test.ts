import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from '../../src/config.js';
import { CROWD_DIRECTIVES, SERVER_MAXCONN } from '../../testing/haproxy.js';

const DOCUMENT = fileURLToPath(new URL('../../../../docs/operations.md', import.meta.url));
/** The server package's folder, which the table writes as `<apps/server>`. */
const SERVER_FOLDER = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const text = readFileSync(DOCUMENT, 'utf8');

/** The trimmed cells of a Markdown table row (`\|` inside a cell is not a separator). */
const cellsOf = (line: string) =>
  line
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** The configuration table: the rows after the header row whose first cell is `Variable`. */
function configurationRows(): string[][] {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => line.startsWith('|') && cellsOf(line)[0] === 'Variable');
  expect(header, 'no table with a "Variable" column in docs/operations.md').toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(cellsOf(line));
  }
  return rows;
}

const rows = configurationRows();
const documented = new Map(
  rows.map(([variable = '', fallback = '']) => [variable.replace(/`/g, ''), fallback]),
);
const variables = Object.keys(ConfigSchema.shape);
/** What the server runs with when its environment sets nothing. */
const defaults: Record<string, unknown> = loadConfig({});

/**
 * The documented default as a value to compare, or undefined when the cell says it in words
 * (`unset`, `the request's own origin`). `<apps/server>` stands for the server's folder.
 */
function documentedValue(cell: string): string | undefined {
  const value = /^`([^`]*)`/.exec(cell)?.[1];
  return value?.replace('<apps/server>', SERVER_FOLDER);
}

/**
 * The lines of each section (`global`, `defaults`, `frontend`, `backend`) of the HAProxy
 * configuration the document gives, trimmed and without their comments.
 */
function haproxySections(): Map<string, string[]> {
  const block = /```haproxy\n([\s\S]*?)```/.exec(text)?.[1];
  expect(block, 'no haproxy block in docs/operations.md').toBeDefined();
  const sections = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of (block ?? '').split('\n')) {
    if (/^\S/.test(line)) {
      current = [];
      sections.set(line.split(' ')[0] as string, current);
    } else {
      current.push(line.replace(/\s+#.*$/, '').trim());
    }
  }
  return sections;
}

describe('docs/operations.md', () => {
  it('gives HAProxy every line the tested balancer holds a crowd with', () => {
    const sections = haproxySections();
    for (const [section, lines] of Object.entries(CROWD_DIRECTIVES)) {
      for (const line of lines) {
        expect(sections.get(section), `in its ${section} section`).toContain(line);
      }
    }
    const defaultServer = sections
      .get('backend')
      ?.find((line) => line.startsWith('default-server'));
    expect(defaultServer).toContain(` maxconn ${SERVER_MAXCONN} `);
  });

  it('lists every variable the server reads in its configuration table', () => {
    const missing = variables.filter((variable) => !documented.has(variable));
    expect(missing, 'variables ConfigSchema reads that the table lacks').toEqual([]);
  });

  it('lists no variable the server does not read, and each once', () => {
    const unknown = [...documented.keys()].filter((variable) => !variables.includes(variable));
    expect(unknown, 'variables in the table that ConfigSchema does not read').toEqual([]);
    expect(rows.length).toBe(documented.size);
  });

  it.each(variables)('gives the default of %s as the server has it', (variable) => {
    const value = defaults[variable];
    const cell = documented.get(variable) ?? '';
    const simple = ['string', 'number', 'boolean'].includes(typeof value);
    if (simple) {
      expect(documentedValue(cell), `the Default cell of ${variable}`).toBe(String(value));
    } else {
      // No default, or none of a kind a cell can hold as a value (no origins): said in words.
      expect(value === undefined || (Array.isArray(value) && value.length === 0)).toBe(true);
      expect(documentedValue(cell), `the Default cell of ${variable}`).toBeUndefined();
    }
  });
});
