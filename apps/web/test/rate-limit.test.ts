/**
 * A key over its per-minute limit, on the real server: the page counts down to the window's
 * reset with "Try again" disabled (a click would only earn another refusal), then retries once by
 * itself. The budget badge speaks only when the budget runs low or out. The server runs in this
 * process on a clock the test moves, with the page's: the reset comes when the test says.
 */
import { TestClock } from '@animal-store/server/testing/test-clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppUnderTest,
  catalogue,
  openPage,
  recordApiRequests,
  rows,
  seed,
  signIn,
  startApp,
} from './support/app';
import { checkState } from './support/checks';

let app: AppUnderTest;
/** The server's time: the start of a UTC minute, where it stands until the test moves it. */
const clock = new TestClock();

beforeAll(async () => {
  app = await startApp('rate-limit', { clock });
  const { key } = await app.createKeyWithId();
  await seed(app, key, [
    { name: 'Whiskers', categoryId: 1, status: 'available' },
    { name: 'Rex', categoryId: 2, status: 'pending' },
    { name: 'Goldie', categoryId: 3, status: 'sold' },
  ]);
});

afterAll(async () => {
  await app?.stop();
});

describe('rate limited', () => {
  it('counts down to the reset with "Try again" disabled, then retries once by itself', async () => {
    // Two requests a minute, the first at the start of the server's minute (the windows are the
    // UTC calendar minutes): a whole minute to look at the page before the reset.
    const { key } = await app.createKeyWithId({ perMinute: 2, perDay: 1000 });
    const page = await openPage(app, 390);
    // The page's time is the server's, and its timers the test's to move.
    await page.clock.install({ time: clock.now() });
    const seen = recordApiRequests(page);
    const responses: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/v1/pets') responses.push(response.status());
    });
    await signIn(page, app, key);
    await expect.poll(() => rows(page).count()).toBe(3);
    const announcement = page.getByTestId('budget-announcement');
    await expect
      .poll(() => announcement.textContent())
      .toMatch(/^Only 1 request left for this key until /);

    // Each new filter is one request; the second one is over the limit.
    const filter = catalogue(page).getByLabel('Filter by status', { exact: true });
    await filter.selectOption('pending');
    await expect.poll(() => rows(page).count()).toBe(1);
    await expect
      .poll(() => announcement.textContent())
      .toMatch(/^No requests left for this key until /);
    await filter.selectOption('sold');
    const problem = catalogue(page).getByTestId('problem');
    await problem.waitFor();
    expect(responses).toEqual([200, 200, 429]);

    const countdown = problem.getByRole('timer');
    const first = Number(/in (\d+) second/.exec((await countdown.textContent()) ?? '')?.[1]);
    expect(first).toBeGreaterThan(5);
    expect(await problem.textContent()).toMatch(
      /^Too many requests for this key\. Try again in \d+ seconds? \(at .+\)\.Try again$/,
    );
    const tryAgain = problem.getByRole('button', { name: 'Try again' });
    expect(await tryAgain.getAttribute('aria-disabled')).toBe('true');
    // Pressing it while waiting sends nothing.
    const before = seen.length;
    await tryAgain.focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => Number(/in (\d+) second/.exec((await countdown.textContent()) ?? '')?.[1]))
      .toBeLessThan(first);
    expect(seen.length).toBe(before);
    // The badge is not a live region; only its announcement is, and it said "out" once.
    expect(await page.getByTestId('budget').getAttribute('aria-live')).toBeNull();

    await checkState(page, 'rate-limited');

    // A minute on, for the server and then the page: at the reset, one request by itself, which
    // the server now accepts. (Until then the pending page's one row may still be on screen:
    // wait for the sold one by name.)
    clock.advance(60_000);
    await page.clock.fastForward('01:01');
    await expect
      .poll(() => rows(page).locator('.pet-name, .name').allTextContents(), { interval: 250 })
      .toEqual(['Goldie']);
    expect(responses).toEqual([200, 200, 429, 200]);
    expect(await problem.count()).toBe(0);
    await page.context().close();
  });
});
