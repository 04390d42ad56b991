/**
 * The built app on @animal-store/mock instead of the server, as `pnpm dev:mock` runs it: the
 * seeded pets browsed and paged, an animal added, and the free plan's minute spent to a 429 whose
 * countdown ends when the mock's clock and the page's move on together. No database, no key
 * command: the mock's keys.
 */
import { type MockServer, manualClock, startMockServer } from '@animal-store/mock';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addForm, catalogue, rows } from './support/app';
import { launchChromium } from './support/chromium';
import { type StaticServer, startStaticServer } from './support/static-server';

let mock: MockServer;
let web: StaticServer;
let browser: Browser;

beforeAll(async () => {
  // Time that moves only when the test moves it: the free plan's minute cannot roll over by itself.
  mock = await startMockServer({ port: 0, clock: manualClock() });
  [web, browser] = await Promise.all([startStaticServer(mock.url), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await mock?.close();
});

const namesShown = (page: Parameters<typeof rows>[0]) =>
  rows(page).locator('.pet-name, .name').allTextContents();

describe('the web app on the mock', () => {
  it("browses and pages the seeded pets, adds one, and waits out a 429 on the mock's clock", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    // The page's timers too are the test's to move, so the 429's countdown ends without a wait.
    await page.clock.install();
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/v1/pets') statuses.push(response.status());
    });

    await page.goto(new URL('/?limit=4', web.url).href);
    await page.getByLabel('API key', { exact: true }).fill(mock.mock.keys.free);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect
      .poll(() => namesShown(page))
      .toEqual(['Biscuit', 'Pepper', 'Mochi', 'Sir Hopsalot']);
    await catalogue(page).getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows(page).count()).toBe(6);
    expect(await catalogue(page).getByRole('button', { name: 'Load more' }).count()).toBe(0);

    await addForm(page).getByLabel('Name', { exact: true }).fill('Pickles');
    await addForm(page).getByLabel('Category ID', { exact: true }).fill('2');
    await addForm(page).getByRole('button', { name: 'Add animal' }).click();
    await addForm(page).getByText('Added Pickles as animal #7.').waitFor();
    await expect.poll(() => page.getByTestId('budget').textContent()).toMatch(/requests left/);

    // Someone else spends the rest of the key's minute: the page's next request is refused.
    for (let sent = 0; sent < 60; sent++) {
      const response = await fetch(`${mock.url}/v1/pets?limit=1`, {
        headers: { authorization: `Bearer ${mock.mock.keys.free}` },
      });
      if (response.status === 429) break;
    }
    await catalogue(page).getByLabel('Filter by status', { exact: true }).selectOption('sold');
    const problem = catalogue(page).getByTestId('problem');
    await problem.waitFor();
    expect(statuses.at(-1)).toBe(429);
    expect(await problem.textContent()).toMatch(/^Too many requests for this key\. Try again in/);
    const tryAgain = problem.getByRole('button', { name: 'Try again' });
    expect(await tryAgain.getAttribute('aria-disabled')).toBe('true');

    // A minute later, for the mock and the page alike: the page retries once by itself, served.
    mock.mock.clock.advance(60_000);
    await page.clock.fastForward('01:01');
    await expect.poll(() => namesShown(page)).toEqual(['Sir Hopsalot']);
    expect(statuses.at(-1)).toBe(200);
    expect(await problem.count()).toBe(0);
    await context.close();
  }, 60_000);
});
