/**
 * What every browser test file starts: a real server (a process, or in this process on a clock
 * the test moves) on a fresh SQLite database of its own, the built app served with `/v1` proxied
 * to it, and a Chromium. One per file, so files run in parallel.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type LiveServer, startLiveServer } from '@animal-store/server/testing';
import { startInProcessServer } from '@animal-store/server/testing/in-process-server';
import type { TestClock } from '@animal-store/server/testing/test-clock';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from './chromium';
import { type StaticServer, startStaticServer } from './static-server';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

const serverRoot = dirname(
  createRequire(import.meta.url).resolve('@animal-store/server/package.json'),
);

export interface AppUnderTest {
  /** A server process, or with `clock` the server in this process, on that clock. */
  readonly api: Pick<LiveServer, 'baseUrl'> & { stop(): Promise<unknown> };
  readonly web: StaticServer;
  readonly browser: Browser;
  /** A key with its id, made on the server's database, which `revokeKey` can revoke. */
  createKeyWithId(limits?: {
    perMinute: number;
    perDay: number;
  }): Promise<{ id: string; key: string }>;
  revokeKey(id: string): Promise<void>;
  /** Stops everything; the API may already be stopped by the test. */
  stop(): Promise<void>;
}

/**
 * The app on a server of its own. Given `clock`, the server runs in this process on that clock,
 * which the test moves with the page's (`page.clock`) to cross a rate-limit window or the key
 * recheck period at once; a server process reads the system's clocks, and nothing sets another.
 */
export async function startApp(
  label: string,
  options: { clock?: TestClock } = {},
): Promise<AppUnderTest> {
  await mkdir(ARTIFACTS, { recursive: true });
  const folder = await mkdtemp(join(tmpdir(), `animal-store-web-${label}-`));
  const databaseUrl = `file:${join(folder, 'store.db')}`;
  const api = options.clock
    ? await startInProcessServer({ databaseUrl, clock: options.clock })
    : await startLiveServer(`web-${label}`, { databaseUrl });
  const web = await startStaticServer(api.baseUrl);
  const browser = await launchChromium();
  const { PUBLIC_URL: _publicUrl, REDIS_URL: _redisUrl, ...inherited } = process.env;
  const keys = async (args: string[]) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(serverRoot, 'dist', 'keys.js'), ...args, '--json'],
      { env: { ...inherited, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, encoding: 'utf8' },
    );
    return JSON.parse(stdout) as { id: string; key: string };
  };
  let stopped = false;
  return {
    api,
    web,
    browser,
    async createKeyWithId(limits = { perMinute: 100_000, perDay: 1_000_000 }) {
      const created = await keys([
        'create',
        '--label',
        `web ${label}`,
        '--plan',
        'enterprise',
        '--per-minute',
        String(limits.perMinute),
        '--per-day',
        String(limits.perDay),
      ]);
      return { id: created.id, key: created.key };
    },
    async revokeKey(id) {
      await keys(['revoke', id]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await browser?.close();
      await web?.stop();
      await api?.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

export const WIDTHS = [320, 390, 1280] as const;
export type Width = (typeof WIDTHS)[number];
const HEIGHTS: Record<Width, number> = { 320: 640, 390: 844, 1280: 860 };

export async function openPage(
  app: AppUnderTest,
  width: Width = 1280,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await app.browser.newContext({
    viewport: { width, height: HEIGHTS[width] },
    ...options,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

export async function signIn(
  page: Page,
  app: AppUnderTest,
  key: string,
  path = '/',
): Promise<void> {
  await page.goto(new URL(path, app.web.url).href);
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Continue' }).click();
}

export interface NewPet {
  name: string;
  categoryId: number;
  status: 'available' | 'pending' | 'sold';
}

/**
 * `count` animals named "Animal 01", "Animal 02"… in category 1, available unless `statusOf`
 * says otherwise for an animal's index.
 */
export function numberedAnimals(
  count: number,
  statusOf: (index: number) => NewPet['status'] = () => 'available',
): NewPet[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `Animal ${String(index + 1).padStart(2, '0')}`,
    categoryId: 1,
    status: statusOf(index),
  }));
}

export async function seed(app: AppUnderTest, key: string, pets: NewPet[]): Promise<void> {
  for (const pet of pets) {
    const response = await fetch(`${app.api.baseUrl}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(pet),
    });
    expect(response.status).toBe(201);
  }
}

export const catalogue = (page: Page) => page.getByRole('region', { name: 'Animals' });
export const addForm = (page: Page) => page.getByRole('region', { name: 'Add an animal' });
/** Rows of the list, whether shown as a table (wide) or as cards (narrow). */
export const rows = (page: Page) => catalogue(page).locator('[data-pet-id]');

/** What has focus, described: its tag, accessible-ish name and row data. */
export async function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return 'body';
    const label =
      element.getAttribute('aria-label') ??
      (element.id
        ? document.querySelector(`label[for="${CSS.escape(element.id)}"]`)?.textContent
        : null) ??
      element.textContent?.trim().slice(0, 60) ??
      '';
    const pet = element.getAttribute('data-pet-id');
    return `${element.tagName.toLowerCase()}${pet ? `#pet-${pet}` : ''}: ${label}`;
  });
}

/** Whether each HTTP request the page makes goes to `/v1/pets`: they are collected in order. */
export function recordApiRequests(page: Page): URL[] {
  const seen: URL[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/v1/')) seen.push(url);
  });
  return seen;
}
