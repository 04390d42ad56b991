import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { OVERSIZED_HEADERS } from '../rules/edges.js';
import { curlCommand } from './curl.js';
import type { RecordedRequest } from './exchange.js';

/** The arguments a POSIX shell hands curl for `command`, one per line. */
function argumentsOf(command: string, env: Record<string, string> = {}): string[] {
  const printed = execFileSync('sh', ['-c', command.replace(/^curl /, "printf '%s\\n' ")], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return printed.split('\n').slice(0, -1);
}

const request = (changes: Partial<RecordedRequest>): RecordedRequest => ({
  method: 'GET',
  url: 'http://127.0.0.1:4010/v1/pets?limit=1&status=sold',
  credential: 'key',
  headers: {},
  ...changes,
});

describe('the curl command that replays a request', () => {
  test('reads the key from $ANIMAL_STORE_KEY, never from the report', () => {
    const command = curlCommand(request({}));
    expect(argumentsOf(command, { ANIMAL_STORE_KEY: 'ask_secret' })).toEqual([
      '-i',
      '-X',
      'GET',
      'http://127.0.0.1:4010/v1/pets?limit=1&status=sold',
      '-H',
      'Authorization: Bearer ask_secret',
    ]);
  });

  test('passes headers and bodies as sent, quotes and all, and no Content-Type curl would add', () => {
    const command = curlCommand(
      request({
        method: 'POST',
        credential: { authorization: "Basic it's'" },
        headers: { 'X-Request-Id': 'a b' },
        body: { text: `{"name":"O'Brien $HOME"}` },
      }),
    );
    expect(argumentsOf(command)).toEqual([
      '-i',
      '-X',
      'POST',
      'http://127.0.0.1:4010/v1/pets?limit=1&status=sold',
      '-H',
      "Authorization: Basic it's'",
      '-H',
      'X-Request-Id: a b',
      '-H',
      'Content-Type:',
      '--data-binary',
      `{"name":"O'Brien $HOME"}`,
    ]);
  });

  test('writes a long body as the shell expression that makes it', () => {
    const text = `{"name":"${'x'.repeat(17_000)}","categoryId":1, "note":"it's"}`;
    const command = curlCommand(
      request({
        method: 'POST',
        credential: 'none',
        body: { text, contentType: 'application/json' },
      }),
    );
    expect(command.length).toBeLessThan(500);
    expect(argumentsOf(command).at(-1)).toBe(text);
  });

  test('reads the revoked key from $ANIMAL_STORE_REVOKED_KEY, and sends a target curl would cut as it is', () => {
    const command = curlCommand(
      request({
        url: 'http://127.0.0.1:4010/v1/pets?limit=1#here',
        target: '/v1/pets?limit=1#here',
        credential: 'revoked-key',
      }),
    );
    expect(argumentsOf(command, { ANIMAL_STORE_REVOKED_KEY: 'ask_revoked' })).toEqual([
      '-i',
      '-X',
      'GET',
      '--request-target',
      '/v1/pets?limit=1#here',
      'http://127.0.0.1:4010',
      '-H',
      'Authorization: Bearer ask_revoked',
    ]);
  });

  test('writes a long header as the shell expression that makes it', () => {
    const command = curlCommand(request({ credential: 'none', ...OVERSIZED_HEADERS }));
    expect(command.length).toBeLessThan(500);
    const headers = Object.entries(OVERSIZED_HEADERS.headers ?? {});
    expect(argumentsOf(command).slice(4)).toEqual(
      headers.flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    );
  });
});
