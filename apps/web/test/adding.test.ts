/**
 * Adding an animal, as the store sees it: an entry is one create however often it is sent (two
 * presses in one tick, a press again after an answer that never came), what the form finds
 * before sending is announced, and an add refused by the rate limit waits for its window. The
 * server runs in this process on a clock that stands still: a window ends only when a test says.
 */
import { TestClock } from '@animal-store/server/testing/test-clock';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppUnderTest,
  addForm,
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
  app = await startApp('adding', { clock: new TestClock() });
  key = (await app.createKeyWithId()).key;
  await seed(app, key, [{ name: 'Whiskers', categoryId: 1, status: 'available' }]);
});

afterAll(async () => {
  await app?.stop();
});

/** The pets the store holds under `name`, asked of the API itself. */
async function storedNamed(name: string): Promise<number> {
  const response = await fetch(`${app.api.baseUrl}/v1/pets?limit=100`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const pets = (await response.json()) as Array<{ name: string }>;
  return pets.filter((pet) => pet.name === name).length;
}

async function fillIn(page: Page, name: string, category: string) {
  await addForm(page).getByLabel('Name', { exact: true }).fill(name);
  await addForm(page).getByLabel('Category ID', { exact: true }).fill(category);
}

/** The POSTs the page sends to `/v1/pets`, with their `Idempotency-Key`. */
function recordCreates(page: Page): Array<string | undefined> {
  const keys: Array<string | undefined> = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/pets') {
      keys.push(request.headers()['idempotency-key']);
    }
  });
  return keys;
}

describe('adding an animal', () => {
  it('what the form finds before sending is said as an alert, even with focus already on the field', async () => {
    const page = await openPage(app);
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBe(1);
    const name = addForm(page).getByLabel('Name', { exact: true });
    await name.focus();
    await page.keyboard.press('Enter');
    const alert = addForm(page).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Not added yet: correct the marked fields.');
    expect(await name.evaluate((input) => input === document.activeElement)).toBe(true);
    // An edit starts a new entry: the alert goes.
    await page.keyboard.type('R');
    expect(await alert.count()).toBe(0);

    // A negative category is a number, but below 1: said so, not as "not a whole number".
    await addForm(page).getByLabel('Category ID', { exact: true }).fill('-5');
    await page.keyboard.press('Enter');
    await alert.waitFor();
    expect(await addForm(page).locator('.field-error').allTextContents()).toEqual([
      'Category must be 1 or more.',
    ]);
    await page.context().close();
  });

  it('two presses in one tick send one create, with an Idempotency-Key, and add one animal', async () => {
    const page = await openPage(app);
    // As on a plain-HTTP origin (a shop's own network), where browsers have no randomUUID.
    await page.addInitScript(() => {
      Object.defineProperty(Crypto.prototype, 'randomUUID', { value: undefined });
    });
    const creates = recordCreates(page);
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBeGreaterThan(0);
    await fillIn(page, 'Twice Pressed', '2');
    await addForm(page)
      .locator('form')
      .evaluate((form: HTMLFormElement) => {
        form.requestSubmit();
        form.requestSubmit();
      });
    await addForm(page).getByTestId('added').waitFor();
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(await storedNamed('Twice Pressed')).toBe(1);
    await page.context().close();
  });

  it('pressed again after an answer that never came, the entry is the same create: stored once', async () => {
    const page = await openPage(app);
    const creates = recordCreates(page);
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBeGreaterThan(0);
    // The first create reaches the server, which stores it; its answer is lost on the way back.
    let lost = false;
    await page.route('**/v1/pets', async (route) => {
      if (route.request().method() !== 'POST' || lost) return route.continue();
      lost = true;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await fillIn(page, 'Answer Lost', '3');
    const button = addForm(page).getByRole('button', { name: 'Add animal' });
    await button.click();
    await addForm(page).getByTestId('problem').waitFor();
    expect(await storedNamed('Answer Lost')).toBe(1);

    await button.click();
    await addForm(page).getByTestId('added').waitFor();
    expect(creates).toHaveLength(2);
    expect(creates[1]).toBe(creates[0]);
    expect(await storedNamed('Answer Lost')).toBe(1);

    // A new entry is a new create.
    await fillIn(page, 'Answer Lost', '3');
    await button.click();
    await expect.poll(() => storedNamed('Answer Lost')).toBe(2);
    expect(creates[2]).not.toBe(creates[0]);
    await page.context().close();
  });

  it('an add refused by the rate limit waits for its window: pressing again meanwhile sends nothing', async () => {
    const limited = (await app.createKeyWithId({ perMinute: 1, perDay: 1000 })).key;
    // The list takes the minute's one request; the server's minute lasts while the test looks.
    const page = await openPage(app);
    const seen = recordApiRequests(page);
    await signIn(page, app, limited);
    await expect.poll(() => rows(page).count()).toBeGreaterThan(0);
    await fillIn(page, 'Over The Limit', '4');
    const button = addForm(page).getByRole('button', { name: 'Add animal' });
    await button.click();
    const problem = addForm(page).getByTestId('problem');
    await problem.getByRole('timer').waitFor();
    expect(await button.getAttribute('aria-disabled')).toBe('true');
    const before = seen.length;
    // Pressed anyway (aria-disabled keeps it focusable, so it can be clicked), also after an edit.
    await button.click({ force: true });
    await addForm(page).getByLabel('Name', { exact: true }).press('Enter');
    await addForm(page).getByLabel('Name', { exact: true }).press('s');
    expect(await button.getAttribute('aria-disabled')).toBe('true');
    await addForm(page).getByLabel('Name', { exact: true }).press('Enter');
    // Requests are reported to the test as they go: give one that went time to be seen (on the
    // wall clock: no event says that a request was not sent, and no clock moves a report on).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen.length).toBe(before);
    expect(await storedNamed('Over The Limit')).toBe(0);
    await page.context().close();
  }, 60_000);
});
