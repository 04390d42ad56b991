/**
 * `pnpm dev` as a developer runs it in a fresh clone, with settings in front of it: every app and
 * watcher starts, the first run creates and seeds the database and prints a key, each setting
 * takes effect in the server, an edit to the contract reaches the server and the web app without
 * a restart, Ctrl-C leaves no process behind, and a second run reuses the database and the key.
 * The server's dev step reads the workspace's packages from their sources, so the contract's
 * watcher rewriting its build as `pnpm dev` starts can never hand the server a half-written file.
 * `pnpm dev:mock` runs the web app on the mock instead: no database, a key of each plan printed.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
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
import {
  expectSettingsInEffect,
  type ObservableSettings,
  observableSettings,
} from '../support/observable-settings.js';
import {
  type Checkout,
  checkoutRepository,
  developerEnvironment,
  installDependencies,
} from '../support/repository-checkout.js';

/**
 * A first run installs nothing but builds every package the apps need and creates the database:
 * on a loaded machine (CI runs this beside every package's tests) that has taken over five
 * minutes. A start is given up on when `pnpm dev` falls silent for `QUIET_MS`, or at the cap.
 */
const STARTUP_MS = 900_000;
const QUIET_MS = 300_000;

/** The line in which `pnpm dev` prints the development key. */
const DEV_KEY_LINE = /API key\s+(ask_\S+)/;

/** The first group of `pattern` in what `command` prints, once it has printed it. */
function printed(command: ForegroundCommand, pattern: RegExp, what: string): Promise<string> {
  return eventually(
    async () => pattern.exec(command.output())?.[1],
    STARTUP_MS,
    what,
    () => command.stuckReport(QUIET_MS),
  );
}

/** Resolves once `url` answers 2xx, while `command` runs. */
async function answering(command: ForegroundCommand, url: string, what: string): Promise<void> {
  await eventually(
    async () => ((await fetch(url)).ok ? true : undefined),
    STARTUP_MS,
    what,
    () => command.stuckReport(QUIET_MS),
  );
}

interface DevSession {
  command: ForegroundCommand;
  output(): string;
  key: string;
  webUrl: string;
  apiUrl: string;
}

/** Starts `pnpm dev` as a terminal runs it, with `settings` in front of it. */
async function startDev(
  checkout: Checkout,
  ports: { api: number; web: number },
  settings: ObservableSettings,
) {
  const command = startInForeground('pnpm', ['dev'], {
    cwd: checkout.root,
    env: developerEnvironment({
      ...settings.env,
      PORT: String(ports.api),
      WEB_PORT: String(ports.web),
    }),
  });
  try {
    const key = await printed(command, DEV_KEY_LINE, 'the development key to be printed');
    const session: DevSession = {
      command,
      output: command.output,
      key,
      webUrl: `http://localhost:${ports.web}`,
      apiUrl: `http://localhost:${ports.api}`,
    };
    await answering(command, `${session.apiUrl}/readyz`, 'the API server');
    await answering(command, session.webUrl, 'the web app');
    return session;
  } catch (error) {
    await command.signalGroup('SIGINT');
    throw new Error(`${error}\n--- pnpm dev output ---\n${command.output().slice(-6000)}`);
  }
}

/** Ctrl-C (SIGINT to the whole foreground process group); returns the processes still alive. */
async function pressCtrlC(session: DevSession, checkout: Checkout): Promise<string[]> {
  await session.command.signalGroup('SIGINT');
  // Grace for children that were already on their way out when pnpm returned.
  return processesLeftInside(checkout.root);
}

function listThroughWebApp(session: DevSession) {
  return fetch(`${session.webUrl}/v1/pets?limit=100`, {
    headers: { authorization: `Bearer ${session.key}` },
  });
}

/** The text of every module of the contract the web app's dev server hands the browser. */
async function contractAsServedToBrowser(session: DevSession): Promise<string> {
  const api = await (await fetch(`${session.webUrl}/src/api.ts`)).text();
  const entry = /from "(\/@fs\/[^"]*\/packages\/contract\/[^"]*)"/.exec(api)?.[1];
  if (!entry) throw new Error('the web app does not import the contract through Vite');
  const entryText = await (await fetch(`${session.webUrl}${entry}`)).text();
  const chunks = [...entryText.matchAll(/from "(\/@fs\/[^"]+)"/g)].map((match) => match[1]);
  const chunkTexts = await Promise.all(
    chunks.map(async (chunk) => (await fetch(`${session.webUrl}${chunk}`)).text()),
  );
  return [entryText, ...chunkTexts].join('\n');
}

describe('pnpm dev', () => {
  let checkout: Checkout;
  const ports = { api: 0, web: 0 };
  let settings: ObservableSettings;
  let firstKey = '';

  beforeAll(async () => {
    checkout = await checkoutRepository('dev');
    await installDependencies(checkout);
    ports.api = await freePort();
    ports.web = await freePort();
    settings = await observableSettings();
  }, STARTUP_MS);

  afterAll(async () => {
    if (!checkout) return;
    // A failed test may leave `pnpm dev` running: end all of it before removing the folder.
    await killProcessesInside(checkout.root);
    await checkout.remove();
  });

  it(
    'first run: creates and seeds the database, prints the key and URLs, serves every app ' +
      'with the settings put in front of it; a contract edit reaches the server and the web app; Ctrl-C leaves no process',
    async () => {
      const session = await startDev(checkout, ports, settings);
      try {
        firstKey = session.key;
        expect(session.output()).toContain(`Web app   http://localhost:${ports.web}`);
        expect(session.output()).toContain(`API docs  http://localhost:${ports.api}/docs`);
        expect(session.output()).toMatch(/new: 6 sample animals added/);

        // The web app's own origin answers /v1 through its proxy to the API server.
        const listed = await listThroughWebApp(session);
        expect(listed.status).toBe(200);
        expect(((await listed.json()) as unknown[]).length).toBe(6);
        expect((await fetch(`${session.apiUrl}/docs`)).status).toBe(200);
        const created = await fetch(`${session.apiUrl}/v1/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${session.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Made in dev', categoryId: 9 }),
        });
        expect(created.status).toBe(201);

        // The settings in front of `pnpm dev` reach its server, as they reach `pnpm start`'s.
        await expectSettingsInEffect(settings, session.apiUrl, session.output);

        // An edit to the contract's source, while the app is open in a browser: the server
        // restarts on the source, the watcher rebuilds the contract and Vite hands the browser
        // the new module, with nobody restarting anything.
        expect(await contractAsServedToBrowser(session)).toContain(
          'Identifier of the category the animal belongs to',
        );
        const marker = `Edited while pnpm dev runs ${Date.now()}`;
        const petsSource = join(checkout.root, 'packages/contract/src/pets.ts');
        const original = await readFile(petsSource, 'utf8');
        const edited = original.replaceAll(
          'Identifier of the category the animal belongs to',
          marker,
        );
        expect(edited).not.toBe(original);
        await writeFile(petsSource, edited);
        await eventually(
          async () => {
            const document = await (await fetch(`${session.apiUrl}/v1/openapi.json`)).text();
            return document.includes(marker) ? true : undefined;
          },
          120_000,
          'the server to serve the edited contract',
        );
        await eventually(
          async () =>
            (await contractAsServedToBrowser(session)).includes(marker) ? true : undefined,
          120_000,
          'the web app to serve the edited contract',
        );
      } catch (error) {
        await pressCtrlC(session, checkout);
        throw new Error(`${error}\n--- pnpm dev output ---\n${session.output().slice(-6000)}`);
      }
      expect(await pressCtrlC(session, checkout)).toEqual([]);
      await expect(fetch(`${session.apiUrl}/healthz`)).rejects.toThrow();
      await expect(fetch(session.webUrl)).rejects.toThrow();
    },
    STARTUP_MS * 2,
  );

  it(
    'a second run reuses the database and prints the same key',
    async () => {
      expect(firstKey).not.toBe('');
      const session = await startDev(checkout, ports, settings);
      expect(session.key).toBe(firstKey);
      expect(session.output()).not.toMatch(/sample animals added/);
      const listed = await listThroughWebApp(session);
      const names = ((await listed.json()) as { name: string }[]).map((pet) => pet.name);
      expect(names).toHaveLength(7);
      expect(names).toContain('Made in dev');

      expect(await pressCtrlC(session, checkout)).toEqual([]);
    },
    STARTUP_MS,
  );

  it(
    "the server's dev step starts with no build of the contract or the database package: it " +
      "reads their sources, which the contract's watcher never rewrites under it",
    async () => {
      for (const built of ['packages/contract/dist', 'prisma/dist']) {
        await rm(join(checkout.root, built), { recursive: true, force: true });
      }
      const command = startInForeground('pnpm', ['--filter', '@animal-store/server', 'dev'], {
        cwd: checkout.root,
        env: developerEnvironment({ ...settings.env, PORT: String(ports.api) }),
      });
      const apiUrl = `http://localhost:${ports.api}`;
      try {
        const key = await printed(command, DEV_KEY_LINE, 'the development key to be printed');
        expect(key).toBe(firstKey);
        await answering(command, `${apiUrl}/readyz`, 'the API server');
        const listed = await fetch(`${apiUrl}/v1/pets?limit=100`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(listed.status).toBe(200);
      } catch (error) {
        await command.signalGroup('SIGINT');
        throw new Error(`${error}\n--- server dev output ---\n${command.output().slice(-6000)}`);
      }
      await command.signalGroup('SIGINT');
      expect(await processesLeftInside(checkout.root)).toEqual([]);
    },
    STARTUP_MS,
  );

  it(
    '`pnpm dev:mock`: the web app on the mock, no database; prints a key of each plan, which the ' +
      "web app's /v1 proxy takes to the mock's six pets; Ctrl-C leaves no process",
    async () => {
      const command = startInForeground('pnpm', ['dev:mock'], {
        cwd: checkout.root,
        env: developerEnvironment({ PORT: String(ports.api), WEB_PORT: String(ports.web) }),
      });
      const webUrl = `http://localhost:${ports.web}`;
      try {
        const key = await printed(command, /\bpro\s+(ask_\S+)/, "the mock's keys to be printed");
        for (const plan of ['free', 'business', 'enterprise']) {
          expect(command.output()).toMatch(new RegExp(`\\b${plan}\\s+ask_animal-store-mock-`));
        }
        await answering(command, webUrl, 'the web app');
        const listed = await fetch(`${webUrl}/v1/pets?limit=100`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(listed.status).toBe(200);
        expect(listed.headers.get('x-ratelimit-limit')).toBe('300');
        expect(((await listed.json()) as unknown[]).length).toBe(6);
      } catch (error) {
        await command.signalGroup('SIGINT');
        throw new Error(`${error}\n--- pnpm dev:mock output ---\n${command.output().slice(-6000)}`);
      }
      await command.signalGroup('SIGINT');
      expect(await processesLeftInside(checkout.root)).toEqual([]);
      await expect(fetch(webUrl)).rejects.toThrow();
    },
    STARTUP_MS,
  );
});
