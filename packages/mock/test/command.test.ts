/** The command as npx runs it (the built bin): it serves, prints the keys, and stops on a signal. */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const COMMAND = fileURLToPath(new URL('../bin/animal-store-mock.js', import.meta.url));

if (!existsSync(new URL('../dist/cli.js', import.meta.url))) {
  throw new Error('dist/cli.js is missing: build @animal-store/mock first (turbo does)');
}

test('prints its URL and a key of each plan, serves, and exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, [COMMAND, '--port', '0', '--empty'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', () => reject(new Error(`the command exited early: ${output}`)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found && output.includes('revoked')) resolve(found[1] as string);
    });
  });
  for (const plan of ['free', 'pro', 'business', 'enterprise']) {
    expect(output).toMatch(new RegExp(`${plan}\\s+ask_[A-Za-z0-9_-]{49}`));
  }
  const key = /pro\s+(ask_\S+)/.exec(output)?.[1];
  const answer = await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });
  expect(await answer.json()).toEqual([]);

  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});

test('a bad flag or port exits 2 with the usage', async () => {
  for (const args of [['--port', 'x'], ['--colour']]) {
    const outcome = await promisify(execFile)(process.execPath, [COMMAND, ...args]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome.code, args.join(' ')).toBe(2);
    expect(outcome.stderr).toContain('Usage: animal-store-mock');
  }
});
