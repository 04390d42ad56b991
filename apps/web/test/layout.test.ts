/**
 * Layout at 320, 390 and 1280 px through every state of a session: no sideways scroll, no
 * axe-core (WCAG 2.2 AA) violation, a screenshot of each; readable lists on a phone; dark mode;
 * a document title that says where the user is.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppUnderTest,
  addForm,
  catalogue,
  openPage,
  rows,
  seed,
  signIn,
  startApp,
  WIDTHS,
} from './support/app';
import { axeViolations, checkState, sidewaysOverflow } from './support/checks';

let app: AppUnderTest;
let key: string;

const NAMES = ['Whiskers', 'Biscuit the Brave Beagle', 'Professor Fluffington von Whiskerton III'];

beforeAll(async () => {
  app = await startApp('layout');
  key = (await app.createKeyWithId()).key;
  const statuses = ['available', 'pending', 'sold'] as const;
  await seed(
    app,
    key,
    Array.from({ length: 24 }, (_, index) => ({
      name: NAMES[index] ?? `Animal ${String(index + 1).padStart(2, '0')}`,
      categoryId: (index % 4) + 1,
      status: statuses[index % 3] ?? 'available',
    })),
  );
});

afterAll(async () => {
  await app?.stop();
});

/** How many lines the text of each name takes. */
async function nameLines(page: Page): Promise<Record<string, number>> {
  return rows(page)
    .locator('.name, .pet-name')
    .evaluateAll((cells) =>
      Object.fromEntries(
        cells.slice(0, 3).map((cell) => {
          const range = document.createRange();
          range.selectNodeContents(cell.firstChild ?? cell);
          const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          return [cell.firstChild?.textContent ?? '', tops.size];
        }),
      ),
    );
}

describe('layout', () => {
  it('every state at 320, 390 and 1280 px: no sideways scroll, no WCAG 2.2 AA violation', async () => {
    const page = await openPage(app, 390);
    await page.goto(app.web.url);
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.title()).toBe('Sign in · Animal Store');
    await checkState(page, 'key-entry');

    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Enter your API key.').waitFor();
    await checkState(page, 'key-empty');

    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.keyboard.press('Enter');
    await expect.poll(() => rows(page).count()).toBe(20);
    expect(await page.title()).toBe('Animals · Animal Store');
    await checkState(page, 'list');

    // Names wrap at spaces, never inside a word, at every width.
    for (const width of [320, 390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await catalogue(page)
        .locator(width > 600 ? 'table' : 'ul')
        .waitFor();
      const lines = await nameLines(page);
      expect(lines.Whiskers, `at ${width}`).toBe(1);
      expect(lines['Biscuit the Brave Beagle'], `at ${width}`).toBeLessThanOrEqual(2);
    }
    await page.setViewportSize({ width: 390, height: 844 });

    await catalogue(page).getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows(page).count()).toBe(24);
    await checkState(page, 'next-page');

    await catalogue(page).getByLabel('Filter by status', { exact: true }).selectOption('sold');
    await expect.poll(() => rows(page).count()).toBe(8);
    expect(await page.title()).toBe('Sold animals · Animal Store');
    await checkState(page, 'filtered');

    await addForm(page).getByLabel('Name', { exact: true }).fill('  ');
    await addForm(page).getByLabel('Category ID', { exact: true }).fill('0');
    await addForm(page).getByRole('button', { name: 'Add animal' }).click();
    await addForm(page).getByText('Enter a name.').waitFor();
    await checkState(page, 'add-errors');

    await addForm(page).getByLabel('Name', { exact: true }).fill('Pickles');
    await addForm(page).getByLabel('Category ID', { exact: true }).fill('2');
    await addForm(page).getByLabel('Status', { exact: true }).selectOption('sold');
    await addForm(page).getByRole('button', { name: 'Add animal' }).click();
    await addForm(page).getByText('Added Pickles as animal #25.').waitFor();
    // All sold animals are loaded, so the new one is in the list too, marked as just added.
    await expect.poll(() => rows(page).count()).toBe(9);
    expect(await rows(page).last().getAttribute('class')).toBe('row-new');
    await checkState(page, 'added');
    await page.context().close();
  }, 120_000);

  it('on a phone the list is a list of cards, and the add form is one tap away at the top', async () => {
    const page = await openPage(app, 320);
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBe(20);
    expect(await catalogue(page).locator('table').count()).toBe(0);
    expect(await catalogue(page).getByRole('list').count()).toBe(1);

    const jump = catalogue(page).getByRole('button', { name: 'Add an animal' });
    const box = await jump.boundingBox();
    expect(box && box.y + box.height).toBeLessThan(640); // in the first screenful
    await jump.click();
    const name = addForm(page).getByLabel('Name', { exact: true });
    expect(await name.evaluate((input) => input === document.activeElement)).toBe(true);
    const inView = await name.evaluate((input) => {
      const rect = input.getBoundingClientRect();
      return rect.top >= 0 && rect.bottom <= window.innerHeight;
    });
    expect(inView).toBe(true);

    // At desktop width the same page is a table, and the control is not needed.
    await page.setViewportSize({ width: 1280, height: 860 });
    await catalogue(page).locator('table').waitFor();
    expect(await jump.isVisible()).toBe(false);
    await page.context().close();
  });

  it('a name of one long word wraps inside its column, and a right-to-left one keeps its own direction: every column stays in view', async () => {
    const longWord = 'W'.repeat(100);
    const rightToLeft = 'חתול 123 abc';
    await seed(app, key, [
      { name: longWord, categoryId: 7, status: 'pending' },
      { name: rightToLeft, categoryId: 7, status: 'pending' },
    ]);
    for (const width of WIDTHS) {
      const page = await openPage(app, width);
      await signIn(page, app, key, '/?status=pending&limit=100');
      await expect.poll(() => rows(page).count()).toBe(10);
      expect(await sidewaysOverflow(page), `at ${width}`).toEqual([]);
      const status = rows(page).filter({ hasText: longWord }).getByText('pending', { exact: true });
      const box = await status.boundingBox();
      expect(box && box.x + box.width, `at ${width}`).toBeLessThanOrEqual(width);
      // Isolated, so its digits are not reordered into the text around it.
      const isolated = rows(page).locator('bdi').filter({ hasText: rightToLeft });
      expect(await isolated.count(), `at ${width}`).toBe(1);
      await page.context().close();
    }
  });

  it('follows the system’s dark mode, still with no violation', async () => {
    const page = await openPage(app, 1280, { colorScheme: 'dark' });
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBe(20);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const root = await page.evaluate(
      () => getComputedStyle(document.documentElement).backgroundColor,
    );
    expect([background, root]).toContain('rgb(15, 21, 32)');
    expect(await axeViolations(page)).toEqual([]);
    expect(await sidewaysOverflow(page)).toEqual([]);
    await checkState(page, 'dark-list', [390, 1280]);
    await page.context().close();
  });
});
