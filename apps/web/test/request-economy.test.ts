/**
 * Requests are the plan's budget: Per page is applied once it settles on a valid value, the
 * status filter once the user stops on an option, the previous rows stay while a filter loads,
 * and the filter and page size live in the URL.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppUnderTest,
  catalogue,
  numberedAnimals,
  openPage,
  recordApiRequests,
  rows,
  seed,
  signIn,
  startApp,
} from './support/app';

let app: AppUnderTest;
let key: string;

beforeAll(async () => {
  app = await startApp('economy');
  key = (await app.createKeyWithId()).key;
  const statuses = ['available', 'pending', 'sold'] as const;
  await seed(
    app,
    key,
    numberedAnimals(30, (index) => statuses[index % 3] ?? 'available'),
  );
});

afterAll(async () => {
  await app?.stop();
});

const listQueries = (seen: URL[]) =>
  seen.filter((url) => url.pathname === '/v1/pets').map((url) => url.search);

/** Waits past the app's settling delay and for the network to be quiet. */
async function settle(page: Page): Promise<void> {
  await page.waitForTimeout(700);
  await page.waitForLoadState('networkidle');
}

/**
 * A page whose timers the test can hold: keystrokes sent while they are held all land inside
 * the app's settling delay however slow the machine is, as a person's quick typing does.
 */
async function openPageWithClock(): Promise<Page> {
  const page = await openPage(app);
  await page.clock.install();
  return page;
}

/** Sends `keystrokes` with the page's time held, then lets it flow again. */
async function withTimeHeld(page: Page, keystrokes: () => Promise<void>): Promise<void> {
  await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1_000));
  await keystrokes();
  await page.clock.resume();
}

describe('request economy', () => {
  it('typing "100" into Per page sends one request, for 100; the URL keeps it over a reload', async () => {
    const page = await openPageWithClock();
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBe(20);
    const seen = recordApiRequests(page);

    const perPage = catalogue(page).getByLabel('Per page', { exact: true });
    await perPage.focus();
    await page.keyboard.press('Control+A');
    await withTimeHeld(page, () => page.keyboard.type('100'));
    await expect.poll(() => rows(page).count()).toBe(30);
    await settle(page);
    expect(listQueries(seen)).toEqual(['?limit=100']);
    expect(new URL(page.url()).search).toBe('?limit=100');

    // An invalid size is explained and sends nothing.
    await page.keyboard.press('Control+A');
    await page.keyboard.type('0');
    await catalogue(page).getByText('Per page must be a whole number from 1 to 100.').waitFor();
    await settle(page);
    expect(listQueries(seen)).toEqual(['?limit=100']);
    expect(await rows(page).count()).toBe(30);

    await page.reload();
    await expect.poll(() => rows(page).count()).toBe(30);
    expect(await perPage.inputValue()).toBe('100');
    expect(listQueries(seen).at(-1)).toBe('?limit=100');
    await page.context().close();
  });

  it('arrowing through the status options sends one request, for the option stopped on', async () => {
    const page = await openPageWithClock();
    await signIn(page, app, key, '/?limit=5');
    await expect.poll(() => rows(page).count()).toBe(5);
    const seen = recordApiRequests(page);

    await catalogue(page).getByLabel('Filter by status', { exact: true }).focus();
    await withTimeHeld(page, async () => {
      for (const _ of ['available', 'pending', 'sold']) await page.keyboard.press('ArrowDown');
    });
    await expect
      .poll(() => rows(page).locator('.badge').allTextContents())
      .toEqual(Array(5).fill('sold'));
    await settle(page);
    expect(listQueries(seen)).toEqual(['?limit=5&status=sold']);
    expect(new URL(page.url()).searchParams.get('status')).toBe('sold');

    // A shared link opens the same view.
    const other = await openPage(app);
    await signIn(
      other,
      app,
      key,
      new URL(page.url()).search ? `/${new URL(page.url()).search}` : '/',
    );
    await expect
      .poll(() => rows(other).locator('.badge').allTextContents())
      .toEqual(Array(5).fill('sold'));
    expect(
      await catalogue(other).getByLabel('Filter by status', { exact: true }).inputValue(),
    ).toBe('sold');
    await other.context().close();
    await page.context().close();
  });

  it('a new filter keeps the previous rows on screen, marked busy, until its page arrives', async () => {
    const page = await openPage(app);
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBe(20);
    // The real server answers; its answer is only held back a moment, to look at the page meanwhile.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/v1/pets?*status=pending*', async (route) => {
      await held;
      await route.continue();
    });
    await catalogue(page).getByLabel('Filter by status', { exact: true }).selectOption('pending');
    await catalogue(page).locator('[aria-busy="true"]').waitFor();
    expect(await rows(page).count()).toBe(20);
    expect(await catalogue(page).getByText('Loading animals…').count()).toBe(0);
    release();
    await expect.poll(() => rows(page).count()).toBe(10);
    expect(await catalogue(page).locator('[aria-busy="true"]').count()).toBe(0);
    expect(await catalogue(page).getByTestId('shown-count').textContent()).toBe(
      'Showing 10 pending animals (all of them)',
    );
    await page.context().close();
  });
});
