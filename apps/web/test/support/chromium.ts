/**
 * Vitest global setup: the browser the end-to-end tests drive. The test command brings it
 * itself, so a fresh machine needs no manual step, and it never downloads a browser build from
 * outside the package registries:
 * 1. `CHROMIUM_PATH`, when set, names it (any Chromium or Chrome executable);
 * 2. else Debian's `chromium` at /usr/bin/chromium,
 * 3. which the test command installs with apt-get when it runs as root on Debian or Ubuntu.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumPath: string;
  }
}

const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const APT_GET = '/usr/bin/apt-get';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function installDebianChromium(): Promise<void> {
  const apt = promisify(execFile);
  const options = {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 1 << 26,
  };
  process.stderr.write('Chromium is missing: installing Debian’s chromium package (apt-get)…\n');
  await apt(APT_GET, ['update', '-qq'], options);
  await apt(APT_GET, ['install', '-y', '-qq', 'chromium'], options);
}

export async function findChromium(): Promise<string> {
  const named = process.env.CHROMIUM_PATH;
  if (named) {
    if (isExecutable(named)) return named;
    throw new Error(`CHROMIUM_PATH=${named} is not an executable file.`);
  }
  if (isExecutable(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  if (process.getuid?.() === 0 && isExecutable(APT_GET)) {
    await installDebianChromium();
    if (isExecutable(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  }
  throw new Error(
    'The web tests need Chromium: run them as root on Debian (they install the chromium package), install it yourself, or set CHROMIUM_PATH to a Chromium or Chrome executable.',
  );
}

export default async function provideChromium(project: TestProject): Promise<void> {
  project.provide('chromiumPath', await findChromium());
}

/** The browser the global setup found, started headless the way the tests drive it. */
export function launchChromium(): Promise<Browser> {
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
    ],
  });
}
