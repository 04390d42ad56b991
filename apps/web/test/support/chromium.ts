/**
 * Vitest global setup: the browser the end-to-end tests drive. The test command brings it
 * itself (`CHROMIUM_PATH`, else Debian's `chromium`, installed when missing), and never downloads
 * a browser build from outside the package registries.
 */
import { findChromium } from '@animal-store/server/testing/system-tool';
import { type Browser, chromium } from 'playwright-core';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumPath: string;
  }
}

export default async function provideChromium(project: TestProject): Promise<void> {
  project.provide('chromiumPath', await findChromium('The web tests'));
}

/** The browser the global setup found, started headless the way the tests drive it. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: inject('chromiumPath'),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}
