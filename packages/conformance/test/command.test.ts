/** The command's own contract with its caller: usage errors are told apart from failed rules. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { COMMAND } from './support/command.js';

const runCommand = (...args: string[]) =>
  promisify(execFile)(process.execPath, [COMMAND, ...args], {
    env: { PATH: process.env.PATH },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

test('--help prints the usage and exits 0', async () => {
  const { code, stdout } = await runCommand('--help');
  expect(code).toBe(0);
  expect(stdout).toContain('--allow-writes');
});

test('a missing key or base URL, an unknown plan or flag, enterprise numbers without --plan enterprise or an origin that is not one exits 2 with the usage, and sends nothing', async () => {
  const base = ['--base-url', 'http://127.0.0.1:9', '--key', 'ask_x'];
  for (const args of [
    [...base, '--per-minute', '100', '--per-day', '1000'],
    [...base, '--plan', 'enterprise', '--per-minute', '100'],
    [...base, '--plan', 'enterprise', '--per-minute', '0', '--per-day', '1000'],
    [...base, '--origin', 'https://shop.example.com/'],
    ['--base-url', 'http://127.0.0.1:9'],
    ['--key', 'ask_x'],
    ['--base-url', 'http://127.0.0.1:9', '--key', 'ask_x', '--plan', 'gold'],
    ['--base-url', 'http://127.0.0.1:9', '--key', 'ask_x', '--allow-write'],
  ]) {
    const { code, stderr } = await runCommand(...args);
    expect(code, args.join(' ')).toBe(2);
    expect(stderr, args.join(' ')).toContain('Usage: animal-store-conformance');
  }
});
