/**
 * The key and the API going away: a refused key at sign-in; a key revoked mid-session, asked for
 * again in place with the work kept; the API unreachable behind the proxy. The server runs in
 * this process on a clock the test moves past the key recheck period.
 */
import { TestClock } from '@animal-store/server/testing/test-clock';
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
  signIn,
  startApp,
} from './support/app';
import { checkState } from './support/checks';

let app: AppUnderTest;
let key: string;
const clock = new TestClock();

beforeAll(async () => {
  app = await startApp('session', { clock });
  key = (await app.createKeyWithId()).key;
  await seed(
    app,
    key,
    numberedAnimals(12, (index) => (index % 2 === 0 ? 'available' : 'sold')),
  );
});

afterAll(async () => {
  await app?.stop();
});

describe('session', () => {
  it('a key refused at sign-in: asked again on the key screen, nothing stored', async () => {
    const page = await openPage(app);
    await signIn(page, app, 'ask_not-a-real-key');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('did not accept that API key');
    expect(await page.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.title()).toBe('Sign in again · Animal Store');
    await checkState(page, 'key-refused');

    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.keyboard.press('Enter');
    await expect.poll(() => rows(page).count()).toBe(12);
    expect(await page.evaluate(() => sessionStorage.getItem('animal-store.api-key'))).toBe(key);
    await page.context().close();
  });

  it('a key revoked mid-session: a key is asked for in place, and the work carries on', async () => {
    const revoked = await app.createKeyWithId();
    const page = await openPage(app);
    await signIn(page, app, revoked.key, '/?limit=3');
    await expect.poll(() => rows(page).count()).toBe(3);
    await catalogue(page).getByLabel('Filter by status', { exact: true }).selectOption('sold');
    await expect
      .poll(() => rows(page).locator('.badge').allTextContents())
      .toEqual(Array(3).fill('sold'));
    await catalogue(page).getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows(page).count()).toBe(6);
    const name = addForm(page).getByLabel('Name', { exact: true });
    await name.fill('Half-typed');
    await addForm(page).getByLabel('Category ID', { exact: true }).fill('4');
    await addForm(page).getByLabel('Status', { exact: true }).selectOption('pending');

    expect(await page.getByTestId('budget').textContent()).toMatch(/ of 100,000 /);
    await app.revokeKey(revoked.id);
    // Every instance refuses a revoked key within 5 seconds: the server's clock moves them on.
    clock.advance(5_000);
    await addForm(page).getByRole('button', { name: 'Add animal' }).focus();
    await page.keyboard.press('Enter');

    const dialog = page.getByRole('dialog', { name: 'Sign in again' });
    await dialog.waitFor();
    expect(await dialog.getByRole('alert').textContent()).toContain('did not accept that API key');
    expect(await focused(page)).toBe('input: API key');
    expect(await page.title()).toBe('Sign in again · Animal Store');
    // The refusal's X-RateLimit-* are the browser's IP's, not a key's: no budget is shown.
    expect(await page.getByTestId('budget').count()).toBe(0);
    await checkState(page, 'key-revoked');
    // The work behind it is all there.
    expect(await rows(page).count()).toBe(6);
    expect(await name.inputValue()).toBe('Half-typed');

    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    // Focus is back where it was, the filter and the loaded pages are fetched again.
    expect(await focused(page)).toBe('button: Add animal');
    await expect.poll(() => rows(page).count()).toBe(6);
    expect(await rows(page).locator('.badge').allTextContents()).toEqual(Array(6).fill('sold'));
    expect(new URL(page.url()).search).toBe('?limit=3&status=sold');
    expect(await page.title()).toBe('Sold animals · Animal Store');
    expect(await name.inputValue()).toBe('Half-typed');
    expect(await addForm(page).getByLabel('Category ID', { exact: true }).inputValue()).toBe('4');
    expect(await addForm(page).getByLabel('Status', { exact: true }).inputValue()).toBe('pending');
    await addForm(page).getByText('Not added yet: the key was refused.').waitFor();

    await page.keyboard.press('Enter');
    await addForm(page).getByText('Added Half-typed as animal #13.').waitFor();
    await page.context().close();
  }, 90_000);

  it('the API unreachable: said plainly, with focus on the message and a way to try again', async () => {
    const page = await openPage(app);
    await signIn(page, app, key);
    await rows(page).first().waitFor();
    await app.api.stop();

    await addForm(page).getByLabel('Name', { exact: true }).fill('Nobody');
    await addForm(page).getByLabel('Category ID', { exact: true }).fill('1');
    await page.keyboard.press('Enter');
    const problem = addForm(page).getByTestId('problem');
    await problem.waitFor();
    expect(await problem.textContent()).toBe(
      'The API could not be reached. Try again in a moment.',
    );
    await expect.poll(() => focused(page)).toMatch(/^div: The API could not be reached/);

    await catalogue(page).getByLabel('Filter by status', { exact: true }).selectOption('sold');
    const listProblem = catalogue(page).getByTestId('problem');
    await listProblem.waitFor({ timeout: 15_000 });
    expect(await listProblem.textContent()).toMatch(
      /^The API could not be reached\. Try again in a moment\.Try again$/,
    );
    await checkState(page, 'api-down');
    await page.context().close();
  });
});
