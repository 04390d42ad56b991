/**
 * Keyboard only: every journey driven by keys, asserting where focus lands after each step.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppUnderTest,
  addForm,
  catalogue,
  focused,
  numberedAnimals,
  openPage,
  rows,
  seed,
  startApp,
} from './support/app';

let app: AppUnderTest;
let key: string;

beforeAll(async () => {
  app = await startApp('keyboard');
  key = (await app.createKeyWithId()).key;
  await seed(app, key, numberedAnimals(25));
});

afterAll(async () => {
  await app?.stop();
});

/** Presses Tab until the focused element matches, as a keyboard user would. */
async function tabTo(page: Page, what: RegExp, most = 40): Promise<void> {
  for (let presses = 0; presses < most; presses += 1) {
    if (what.test(await focused(page))) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${what}; focus is on ${await focused(page)}`);
}

async function signInByKeyboard(page: Page, path = '/'): Promise<void> {
  await page.goto(new URL(path, app.web.url).href);
  await page.getByLabel('API key', { exact: true }).waitFor();
  expect(await focused(page)).toBe('input: API key');
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await expect.poll(() => focused(page)).toBe('h1: Animals');
}

describe('keyboard only', () => {
  it('signing in: an empty key is announced and keeps focus; a key moves focus to the list', async () => {
    const page = await openPage(app);
    await page.goto(app.web.url);
    await page.getByLabel('API key', { exact: true }).waitFor();
    await tabTo(page, /^button: Continue$/);
    await page.keyboard.press('Enter');
    const error = page.getByRole('alert').filter({ hasText: 'Enter your API key.' });
    await error.waitFor();
    expect(await focused(page)).toBe('input: API key');
    const describedBy = await page
      .getByLabel('API key', { exact: true })
      .getAttribute('aria-describedby');
    expect(describedBy?.split(' ')).toContain(await error.getAttribute('id'));

    await page.keyboard.type(key);
    expect(await error.count()).toBe(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('h1: Animals');
    await page.context().close();
  });

  it('Load more moves focus to the first new row, also when it was the last page', async () => {
    const page = await openPage(app);
    await signInByKeyboard(page, '/?limit=10');
    await expect.poll(() => rows(page).count()).toBe(10);

    await tabTo(page, /^button: Load more$/);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatch(/^tr#pet-11: /);
    expect(await rows(page).count()).toBe(20);

    // From the new row, Tab goes on to Load more again; the last page removes the button.
    await tabTo(page, /^button: Load more$/);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatch(/^tr#pet-21: /);
    expect(await rows(page).count()).toBe(25);
    expect(await catalogue(page).getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await page.context().close();
  });

  it('adding: errors take focus to the field; success returns to Name, and the next edit clears it', async () => {
    const page = await openPage(app);
    await signInByKeyboard(page);
    const name = addForm(page).getByLabel('Name', { exact: true });
    const category = addForm(page).getByLabel('Category ID', { exact: true });

    // Nothing typed: the first field in error takes focus, described by its message.
    await tabTo(page, /^button: Add animal$/);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('input: Name');
    expect(await addForm(page).locator('.field-error').allTextContents()).toEqual([
      'Enter a name.',
      'Enter a category ID.',
    ]);
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    // Read out with Name: its hint, then what to correct.
    const nameHint = await addForm(page)
      .locator('.field')
      .filter({ has: page.getByLabel('Name', { exact: true }) })
      .locator('.hint')
      .getAttribute('id');
    const nameError = await addForm(page).getByText('Enter a name.').getAttribute('id');
    expect(await name.getAttribute('aria-describedby')).toBe(`${nameHint} ${nameError}`);

    await page.keyboard.type('Biscuit');
    await page.keyboard.press('Tab');
    await page.keyboard.type('0');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('input: Category ID');
    expect(await addForm(page).locator('.field-error').allTextContents()).toEqual([
      'Category must be 1 or more.',
    ]);

    await page.keyboard.press('Backspace');
    await page.keyboard.type('3');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatch(/^select: Status$/);
    await page.keyboard.press('ArrowDown'); // pending
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button: Add animal');
    await page.keyboard.press('Enter');
    const added = addForm(page).getByTestId('added');
    await added.waitFor();
    expect(await added.textContent()).toBe('Added Biscuit as animal #26.Category 3 · pending');
    expect(await focused(page)).toBe('input: Name');
    expect(await name.inputValue()).toBe('');
    expect(await category.inputValue()).toBe('3');
    // The message is in a status region, so it is announced once.
    expect(await added.evaluate((element) => element.parentElement?.getAttribute('role'))).toBe(
      'status',
    );

    await page.keyboard.type('R');
    expect(await added.count()).toBe(0);
    await page.context().close();
  });

  it('errors the server reports are shown in the same words, with focus on the field', async () => {
    const page = await openPage(app);
    await signInByKeyboard(page);
    // The request is altered on its way out, past the browser's check, as a client with an
    // older schema might send it; the real server answers.
    await page.route('**/v1/pets', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      await route.continue({ postData: JSON.stringify({ name: '\u3000', categoryId: 0 }) });
    });
    await tabTo(page, /^input: Name$/);
    await page.keyboard.type('Rex');
    await page.keyboard.press('Tab');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    await addForm(page)
      .getByText('The store refused the animal. Correct the marked fields.')
      .waitFor();
    expect(await addForm(page).locator('.field-error').allTextContents()).toEqual([
      'Enter a name: it cannot be only spaces.',
      'Category must be a whole number, 1 or more.',
    ]);
    expect(await focused(page)).toBe('input: Name');
    await page.context().close();
  });

  it('the filter and the new animal’s status have distinct names', async () => {
    const page = await openPage(app);
    await signInByKeyboard(page);
    expect(await page.getByLabel('Filter by status', { exact: true }).count()).toBe(1);
    expect(await page.getByLabel('Status', { exact: true }).count()).toBe(1);
    expect(await addForm(page).getByLabel('Status', { exact: true }).count()).toBe(1);
    await page.context().close();
  });
});
