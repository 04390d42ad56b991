/**
 * End to end: the built app in Debian's Chromium, served with `/v1` proxied to a real server
 * process on a fresh SQLite database.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { type StaticServer, startStaticServer } from './support/static-server';

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

let api: LiveServer;
let web: StaticServer;
let browser: Browser;
let page: Page;
let key: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  api = await startLiveServer('web');
  web = await startStaticServer(api.baseUrl);
  browser = await launchChromium();
  key = await api.createKey(ROOMY);
});

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await api?.stop();
});

beforeEach(async () => {
  // A fresh context per test: its own sessionStorage, so each test enters a key.
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
});

afterEach(async () => {
  await page.context().close();
});

async function signIn(withKey: string): Promise<void> {
  await page.goto(web.url);
  await page.getByLabel('API key', { exact: true }).fill(withKey);
  await page.getByRole('button', { name: 'Continue' }).click();
}

async function seed(pets: { name: string; categoryId: number; status: string }[]): Promise<void> {
  for (const pet of pets) {
    const response = await fetch(`${api.baseUrl}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(pet),
    });
    expect(response.status).toBe(201);
  }
}

const catalogue = () => page.getByRole('region', { name: 'Animals' });
const form = () => page.getByRole('region', { name: 'Add an animal' });
const rows = () => catalogue().locator('tbody tr');

async function statusColumn(): Promise<string[]> {
  return rows().locator('td:nth-child(4)').allTextContents();
}

describe('the web app', () => {
  it('asks for the key again when the server refuses it', async () => {
    await signIn('ask_not-a-real-key');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('did not accept that API key');
    expect(await page.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}key-refused.png`, fullPage: true });

    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.keyboard.press('Enter');
    await catalogue().getByText('No animals in the catalogue yet').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('animal-store.api-key'))).toBe(key);
  });

  it('adds an animal and lists it without a reload, showing the request budget', async () => {
    await signIn(key);
    await catalogue().getByText('No animals in the catalogue yet').waitFor();
    const budget = page.getByTestId('budget');
    await expect.poll(() => budget.textContent()).toMatch(/of 100,000 requests left · resets at/);

    await form().getByLabel('Name', { exact: true }).fill('Biscuit');
    await form().getByLabel('Category ID', { exact: true }).fill('3');
    await form().getByLabel('Status', { exact: true }).selectOption('pending');
    await form().getByRole('button', { name: 'Add animal' }).click();

    await form().getByText('Added Biscuit as animal #').waitFor();
    await rows().filter({ hasText: 'Biscuit' }).waitFor();
    expect(await rows().first().locator('td').allTextContents()).toEqual([
      expect.stringMatching(/^\d+$/),
      'Biscuit',
      '3',
      'pending',
    ]);
    expect(await form().getByLabel('Name', { exact: true }).inputValue()).toBe('');
  });

  it('explains field errors: checked in the browser, and as the server reports them', async () => {
    await signIn(key);
    await catalogue().locator('table, .state').first().waitFor();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });

    // The contract's own schema refuses a whitespace-only name before anything is sent.
    await form().getByLabel('Name', { exact: true }).fill('   ');
    await form().getByLabel('Category ID', { exact: true }).fill('1.5');
    await form().getByRole('button', { name: 'Add animal' }).click();
    await form().getByText('Name must contain a character other than whitespace.').waitFor();
    await form().getByText('Category ID must be a whole number.').waitFor();
    expect(posts).toEqual([]);
    expect(await form().getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe(
      'true',
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    await page.screenshot({ path: `${ARTIFACTS}form-client-errors.png`, fullPage: true });

    // The server's per-field details are shown next to the fields too: the request is altered on
    // its way out, past the browser's check, as a client with an older schema might send it.
    await page.route('**/v1/pets', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      await route.continue({ postData: JSON.stringify({ name: '\u3000', categoryId: 0 }) });
    });
    await form().getByLabel('Name', { exact: true }).fill('Rex');
    await form().getByLabel('Category ID', { exact: true }).fill('2');
    await form().getByRole('button', { name: 'Add animal' }).click();
    await form().getByText('The store refused the animal. Correct the marked fields.').waitFor();
    await form()
      .getByText(/^Name must contain a character other than whitespace\.$/)
      .waitFor();
    await form()
      .getByText(/^Category ID must be a whole number from 1 to/)
      .waitFor();
    expect(posts).toHaveLength(1);
    await page.screenshot({ path: `${ARTIFACTS}form-server-errors.png`, fullPage: true });
  });

  it('filters by status and pages through the catalogue', async () => {
    const statuses = ['available', 'pending', 'sold'] as const;
    await seed(
      Array.from({ length: 24 }, (_, index) => ({
        name: `Animal ${String(index + 1).padStart(2, '0')}`,
        categoryId: (index % 4) + 1,
        status: statuses[index % 3] ?? 'available',
      })),
    );
    await signIn(key);
    await rows().first().waitFor();
    const total = 25; // Biscuit and the 24 seeded.

    const perPage = catalogue().getByLabel('Per page', { exact: true });
    await perPage.fill('10');
    await expect.poll(() => rows().count()).toBe(10);
    const shown = catalogue().getByTestId('shown-count');
    expect(await shown.textContent()).toBe('Showing 10 animals');

    const loadMore = catalogue().getByRole('button', { name: 'Load more' });
    await loadMore.click();
    await expect.poll(() => rows().count()).toBe(20);
    await loadMore.click();
    await expect.poll(() => rows().count()).toBe(total);
    expect(await shown.textContent()).toBe(`Showing ${total} animals (all of them)`);
    expect(await loadMore.count()).toBe(0);
    const ids = (await rows().locator('td:first-child').allTextContents()).map(Number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(total);
    await page.screenshot({ path: `${ARTIFACTS}catalogue.png`, fullPage: true });

    // Keyboard only: pick "Sold" in the status filter.
    await catalogue().getByLabel('Status', { exact: true }).focus();
    await catalogue().getByLabel('Status', { exact: true }).selectOption('sold');
    await expect.poll(() => statusColumn()).toEqual(Array(8).fill('sold'));
    expect(await shown.textContent()).toBe('Showing 8 animals (all of them)');

    await perPage.fill('3');
    await expect.poll(() => rows().count()).toBe(3);
    await loadMore.click();
    await loadMore.click();
    await expect.poll(() => rows().count()).toBe(8);
    expect(await statusColumn()).toEqual(Array(8).fill('sold'));
    await page.screenshot({ path: `${ARTIFACTS}catalogue-sold.png`, fullPage: true });

    await perPage.fill('0');
    await catalogue().getByText('Per page must be a whole number from 1 to 100.').waitFor();
  });

  it('says when to try again once the request budget is spent', async () => {
    const tight = await api.createKey({ plan: 'enterprise', perMinute: 2, perDay: 1000 });
    await signIn(tight);
    await catalogue().locator('table, .state').first().waitFor();
    await page
      .getByTestId('budget')
      .getByText(/^[01] of 2$/)
      .waitFor();
    const refused = catalogue().getByText(
      /Too many requests for this key\. Try again in \d+ seconds? \(at /,
    );
    // Each new filter is a new request; the third one in a minute is over the limit.
    for (const status of ['pending', 'sold', 'available', 'pending', 'sold']) {
      await catalogue().getByLabel('Status', { exact: true }).selectOption(status);
      await page.waitForLoadState('networkidle');
      if ((await refused.count()) > 0) break;
    }
    await refused.waitFor();
    await page.screenshot({ path: `${ARTIFACTS}rate-limited.png`, fullPage: true });
  });
});
