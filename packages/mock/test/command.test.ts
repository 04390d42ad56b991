/**
 * The command as npx runs it (the built bin): it serves, prints the keys, and stops on a signal;
 * its `keys` subcommands make and revoke keys in a mock it serves.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const COMMAND = fileURLToPath(new URL('../bin/animal-store-mock.js', import.meta.url));

if (!existsSync(new URL('../dist/cli.js', import.meta.url))) {
  throw new Error('dist/cli.js is missing: build @animal-store/mock first (turbo does)');
}

/** The command serving on a free port, once it has printed its URL and keys. */
async function serving(): Promise<{ child: ChildProcess; url: string; output: string }> {
  const child = spawn(process.execPath, [COMMAND, '--port', '0', '--empty'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', () => reject(new Error(`the command exited early: ${output}`)));
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found && output.includes('revoked')) resolve(found[1] as string);
    });
  });
  return { child, url, output };
}

const stopped = (child: ChildProcess) => {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
};

/** The command run to its end: its exit code and what it printed. */
const run = (...args: string[]) =>
  promisify(execFile)(process.execPath, [COMMAND, ...args]).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

const list = (url: string, key: string) =>
  fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });

test('prints its URL and a key of each plan, serves, and exits 0 on SIGTERM', async () => {
  const { child, url, output } = await serving();
  for (const plan of ['free', 'pro', 'business', 'enterprise']) {
    expect(output).toMatch(new RegExp(`${plan}\\s+ask_[A-Za-z0-9_-]{49}`));
  }
  const key = /pro\s+(ask_\S+)/.exec(output)?.[1] as string;
  expect(await (await list(url, key)).json()).toEqual([]);
  expect(await stopped(child)).toBe(0);
});

test('keys create and keys revoke make and revoke keys in the mock it serves', async () => {
  const { child, url } = await serving();
  try {
    const pro = await run('keys', 'create', '--plan', 'pro', '--url', url, '--json');
    const created = JSON.parse(pro.stdout);
    expect(created).toMatchObject({ plan: 'pro', perMinute: 300, perDay: 10_000 });
    expect((await list(url, created.key)).headers.get('x-ratelimit-limit')).toBe('300');

    const own = await run(
      'keys',
      'create',
      '--plan',
      'enterprise',
      '--per-minute',
      '5',
      '--per-day',
      '100',
      '--url',
      url,
    );
    expect(own.stdout).toMatch(
      /^Created a key on enterprise \(5\/minute, 100\/day\):\nask_\S{49}\n$/,
    );
    const ownKey = own.stdout.trim().split('\n')[1] as string;
    expect((await list(url, ownKey)).headers.get('x-ratelimit-limit')).toBe('5');

    expect((await run('keys', 'revoke', created.key, '--url', url)).stdout).toBe(
      `Revoked ${created.key}\n`,
    );
    expect((await list(url, created.key)).status).toBe(401);

    const refused = await run(
      'keys',
      'create',
      '--plan',
      'enterprise',
      '--per-minute',
      '0',
      '--per-day',
      '1',
      '--url',
      url,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('perMinute must be a whole number from 1 to 9007199254740991');
    const unknown = await run('keys', 'revoke', `ask_${'x'.repeat(49)}`, '--url', url);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No key has id');
  } finally {
    await stopped(child);
  }
});

test('a bad flag, port or keys command exits 2 with the usage; no mock to reach exits 1', async () => {
  for (const args of [
    ['--port', 'x'],
    ['--colour'],
    ['keys', 'make'],
    ['keys', 'create', '--colour'],
  ]) {
    const outcome = await run(...args);
    expect(outcome.code, args.join(' ')).toBe(2);
    expect(outcome.stderr).toContain('Usage: animal-store-mock');
  }
  const away = await run('keys', 'create', '--plan', 'free', '--url', 'http://127.0.0.1:1');
  expect(away.code).toBe(1);
  expect(away.stderr).toContain('No mock answers at http://127.0.0.1:1');
});
