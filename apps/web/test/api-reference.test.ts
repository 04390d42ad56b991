/**
 * The server's interactive API reference at `/docs`, in a real browser: Swagger UI renders
 * every operation of the contract under the page's Content-Security-Policy, which lets it load
 * nothing but its own assets.
 */
import { type LiveServer, startLiveServer } from '@animal-store/server/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';

let api: LiveServer;
let browser: Browser;

/**
 * A name for the server other than `localhost` or `127.0.0.1`, as a deployment has: Swagger UI
 * treats those two apart (its validator badge, loaded from outside, is left out only for them).
 */
const DEPLOYED_HOST = 'api.animal-store.test';

beforeAll(async () => {
  api = await startLiveServer('api-reference');
  browser = await launchChromium([`--host-resolver-rules=MAP ${DEPLOYED_HOST} 127.0.0.1`]);
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

describe('API reference at /docs', () => {
  it('renders every operation under its Content-Security-Policy, with no violation and nothing loaded from outside, also under a name other than localhost', async () => {
    const deployedUrl = `http://${DEPLOYED_HOST}:${new URL(api.baseUrl).port}`;
    for (const baseUrl of [api.baseUrl, deployedUrl]) await expectDocsRendered(baseUrl);
  });
});

async function expectDocsRendered(baseUrl: string) {
  const page = await browser.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(baseUrl) && !request.url().startsWith('data:')) {
      outside.push(request.url());
    }
  });
  await page.goto(`${baseUrl}/docs`);
  await page.locator('.opblock').nth(2).waitFor({ timeout: 15_000 });
  const operations = await page.locator('.opblock-summary-method').evaluateAll((methods) =>
    methods.map((method) => {
      const path = method.parentElement?.querySelector('[data-path]')?.getAttribute('data-path');
      return `${method.textContent} ${path}`;
    }),
  );
  expect(operations.sort()).toEqual(['GET /v1/pets', 'GET /v1/pets/{petId}', 'POST /v1/pets']);
  expect(violations).toEqual([]);
  expect(outside).toEqual([]);
  await page.close();
}
