/**
 * The README's command to run the API, as a new user runs it in a fresh clone, with settings in
 * front of it: each reaches the server through everything between the shell and the server
 * (npx, pnpm, turbo) and takes effect. Ctrl-C then leaves no process behind.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '@animal-store/local-ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import {
  type ForegroundCommand,
  killProcessesInside,
  processesLeftInside,
  startInForeground,
} from '../support/foreground-command.js';
import { expectSettingsInEffect, observableSettings } from '../support/observable-settings.js';
import {
  type Checkout,
  checkoutRepository,
  developerEnvironment,
} from '../support/repository-checkout.js';

/**
 * Installing, building every package the server needs, migrating a new database: on a loaded
 * machine, minutes. The start is given up on when it falls silent for `QUIET_MS`, or at the cap.
 */
const STARTUP_MS = 900_000;
const QUIET_MS = 300_000;

/** The README's run command, word for word: the line under its comment. */
async function readmeRunCommand(checkout: Checkout): Promise<string> {
  const readme = await readFile(join(checkout.root, 'README.md'), 'utf8');
  const command = /^# Run the API on an embedded SQLite database.*\n(.+)$/m.exec(readme)?.[1];
  if (!command) {
    throw new Error("README.md: no command under '# Run the API on an embedded SQLite database'");
  }
  return command;
}

describe('the README run command', () => {
  let checkout: Checkout;
  let command: ForegroundCommand | undefined;

  beforeAll(async () => {
    checkout = await checkoutRepository('start');
  });

  afterAll(async () => {
    if (!checkout) return;
    // A failed check may leave the server running: end all of it before removing the folder.
    await command?.signalGroup('SIGKILL');
    await killProcessesInside(checkout.root);
    await checkout.remove();
  });

  it(
    'serves with the settings put in front of it: metrics port, browser origins, log level, keep-alive deadline',
    async () => {
      const runCommand = await readmeRunCommand(checkout);
      expect(runCommand).toMatch(/ install && .* start$/);
      const port = await freePort();
      const settings = await observableSettings();
      const started = startInForeground('bash', ['-c', runCommand], {
        cwd: checkout.root,
        env: developerEnvironment({
          ...settings.env,
          PORT: String(port),
          // The one difference from a new user's run: npx and pnpm take what this machine's npm
          // cache and pnpm store hold before asking the registry. Not `offline`: the npm cache
          // need not hold npx's metadata for pnpm (CI's fresh HOME did not), and then npx fails.
          npm_config_prefer_offline: 'true',
        }),
      });
      command = started;
      const apiUrl = `http://127.0.0.1:${port}`;
      try {
        await eventually(
          async () => ((await fetch(`${apiUrl}/readyz`)).ok ? true : undefined),
          STARTUP_MS,
          'the API server',
          () => started.stuckReport(QUIET_MS),
        );
        // The server's own output reaches us: the log level is checked in it.
        expect(started.output()).toContain('dist/main.js');
        await expectSettingsInEffect(settings, apiUrl, started.output);
      } catch (error) {
        throw new Error(`${error}\n--- output ---\n${started.output().slice(-6000)}`);
      } finally {
        await started.signalGroup('SIGINT');
      }
      expect(await processesLeftInside(checkout.root)).toEqual([]);
    },
    STARTUP_MS * 2,
  );
});
