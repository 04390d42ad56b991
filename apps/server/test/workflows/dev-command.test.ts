/**
 * `pnpm dev` as a developer runs it in a fresh clone: every app and watcher starts, the first run
 * creates and seeds the database and prints a key, an edit to the contract reaches the server
 * and the web app without a restart, Ctrl-C leaves no process behind, and a second run reuses
 * the database and the key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/live-server.js';
import {
  type Checkout,
  checkoutRepository,
  developerEnvironment,
  installDependencies,
} from '../support/repository-checkout.js';

const STARTUP_MS = 300_000;

interface DevSession {
  child: ChildProcess;
  output(): string;
  key: string;
  webUrl: string;
  apiUrl: string;
}

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    const value = await probe().catch((error: unknown) => {
      lastProblem = String(error);
      return undefined;
    });
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what} (last: ${lastProblem})`);
}

/** Every process whose working folder is inside `root`: what `pnpm dev` started there. */
async function processesInside(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd === root.replace(/\/$/, '') || cwd.startsWith(`${root}/`)) {
      const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      found.push(`${pid} ${commandLine.replaceAll('\0', ' ')}`);
    }
  }
  return found;
}

/** Starts `pnpm dev` in a process group of its own, as a terminal runs a command. */
async function startDev(checkout: Checkout, ports: { api: number; web: number }) {
  const child = spawn('pnpm', ['dev'], {
    cwd: checkout.root,
    env: developerEnvironment({ PORT: String(ports.api), WEB_PORT: String(ports.web) }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const key = await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`pnpm dev exited early:\n${output}`);
      return /API key\s+(ask_\S+)/.exec(output)?.[1];
    },
    STARTUP_MS,
    'the development key to be printed',
  );
  const session: DevSession = {
    child,
    output: () => output,
    key,
    webUrl: `http://localhost:${ports.web}`,
    apiUrl: `http://localhost:${ports.api}`,
  };
  await eventually(
    async () => ((await fetch(`${session.apiUrl}/readyz`)).ok ? true : undefined),
    STARTUP_MS,
    'the API server',
  );
  await eventually(
    async () => ((await fetch(session.webUrl)).ok ? true : undefined),
    STARTUP_MS,
    'the web app',
  );
  return session;
}

/** Ctrl-C (SIGINT to the whole foreground process group); returns the processes still alive. */
async function pressCtrlC(session: DevSession, checkout: Checkout): Promise<string[]> {
  const exited = once(session.child, 'exit');
  process.kill(-(session.child.pid as number), 'SIGINT');
  await exited;
  // Grace for children that were already on their way out when pnpm returned.
  const deadline = Date.now() + 20_000;
  let left = await processesInside(checkout.root);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await processesInside(checkout.root);
  }
  return left;
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
  let firstKey = '';

  beforeAll(async () => {
    checkout = await checkoutRepository('dev');
    await installDependencies(checkout);
    ports.api = await freePort();
    ports.web = await freePort();
  }, STARTUP_MS);

  afterAll(async () => {
    if (!checkout) return;
    // A failed test may leave `pnpm dev` running: end all of it before removing the folder.
    for (const line of await processesInside(checkout.root)) {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    }
    await checkout.remove();
  });

  it(
    'first run: creates and seeds the database, prints the key and URLs, serves every app; ' +
      'a contract edit reaches the server and the web app; Ctrl-C leaves no process',
    async () => {
      const session = await startDev(checkout, ports);
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

        // An edit to the contract's source, while the app is open in a browser: the watcher
        // rebuilds it, the server restarts on the new build and Vite hands the browser the new
        // module, with nobody restarting anything.
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
      const session = await startDev(checkout, ports);
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
});
