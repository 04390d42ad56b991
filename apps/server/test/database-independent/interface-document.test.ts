import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_STATUS, type ErrorCode } from '@animal-store/contract';
import { describe, expect, it } from 'vitest';
import { PLAN_NAMES, PLAN_QUOTAS } from '../../src/limits/plans.js';

const DOCUMENT = fileURLToPath(new URL('../../../../docs/interface.md', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));
const text = readFileSync(DOCUMENT, 'utf8');

/** The trimmed cells of every Markdown table row (`\|` inside a cell is not a separator). */
const rows = text
  .split('\n')
  .filter((line) => line.startsWith('|'))
  .map((line) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim()),
  );

/** The first table row whose first cell, without backticks or bold, is `first`. */
const rowStartingWith = (first: string) =>
  rows.find((cells) => cells[0]?.replace(/[`*]/g, '').toLowerCase() === first);

/** Cells with thousands separators dropped: `1,000` reads as `1000`. */
const numbersIn = (cells: string[]) => cells.map((cell) => cell.replace(/,/g, ''));

/** Every inline link target, `[text](target)`. */
const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchors = new Set(
  [...text.matchAll(/^#+ (.+)$/gm)].map((match) =>
    (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-'),
  ),
);

describe('docs/interface.md', () => {
  it.each(Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>)(
    'documents error code %s with HTTP status %i, in its table row and wherever a row names it',
    (code, status) => {
      expect(rowStartingWith(code), `no error table row for \`${code}\``).toBeDefined();
      const naming = rows.filter((cells) => cells.some((cell) => cell.includes(`\`${code}\``)));
      for (const cells of naming) {
        expect(cells.join(' | '), `a row names \`${code}\` without ${status}`).toMatch(
          new RegExp(`(^|\\D)${status}(\\D|$)`),
        );
      }
    },
  );

  it.each(PLAN_NAMES)('documents the %s plan with its per-minute and per-day numbers', (plan) => {
    const row = rowStartingWith(plan);
    expect(row, `no plan table row for ${plan}`).toBeDefined();
    if (plan === 'enterprise') return;
    const { perMinute, perDay } = PLAN_QUOTAS[plan];
    expect(numbersIn(row ?? [])).toEqual(
      expect.arrayContaining([String(perMinute), String(perDay)]),
    );
  });

  it('links nothing outside the repository: every link is an anchor of the document or an existing file of the repository', () => {
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      if (link.startsWith('#')) {
        expect(anchors, link).toContain(link.slice(1));
        continue;
      }
      expect(link, 'a link with a scheme or an absolute path').toMatch(/^[^/:]+(\/|$)/);
      const target = resolve(dirname(DOCUMENT), link.replace(/#.*$/, ''));
      expect(relative(REPOSITORY, target), `${link} climbs out of the repository`).not.toMatch(
        /^\.\./,
      );
      expect(existsSync(target), `${link} names no file of the repository`).toBe(true);
    }
  });

  it('names no path outside the repository', () => {
    expect(text).not.toMatch(/\/work\/|\.\.\/shared|shared\/(seed|spec)/);
  });
});
