/**
 * The check against deployments that each break one rule: that rule fails, the run fails, and
 * the report replays the request that showed it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { formatReport, runConformance } from '../src/index.js';
import {
  type Breakage,
  type BreakingProxy,
  startBreakingProxy,
  without,
} from './support/breaking-proxy.js';
import { COMMAND } from './support/command.js';

let server: LiveServer;
let key: string;
const proxies: BreakingProxy[] = [];

beforeAll(async () => {
  server = await startLiveServer('conformance-broken');
  key = await server.createKey(ROOMY);
  // Pages to follow, for the rules about Link.
  for (const name of ['Rex', 'Tom']) {
    await fetch(`${server.baseUrl}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: 1 }),
    });
  }
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await server?.stop();
});

async function brokenDeployment(breakage: Breakage): Promise<string> {
  const proxy = await startBreakingProxy(server.baseUrl, breakage);
  proxies.push(proxy);
  return proxy.baseUrl;
}

const breakages: { rule: string; breakage: Breakage; replayed: string }[] = [
  {
    rule: 'every answer of this run carried an X-Request-Id',
    breakage: { answerHeaders: without('x-request-id') },
    replayed: "/v1/openapi.json'",
  },
  {
    // As a proxy that sends the server a Host of its own, with no PUBLIC_URL set.
    rule: 'rel="next" URLs name the origin the check called, or PUBLIC_URL',
    breakage: { requestHeaders: (headers, target) => ({ ...headers, host: target.host }) },
    replayed: "/v1/pets?limit=1'",
  },
  {
    // As a server whose page limit is 200 would: asked for 101, it answers a page.
    rule: 'listPets answers 400 to limit above 100',
    breakage: { target: (target) => target.replace('limit=101', 'limit=100') },
    replayed: "/v1/pets?limit=101'",
  },
];

test.each(breakages)(
  'a deployment that breaks "$rule" fails it',
  async ({ rule, breakage, replayed }) => {
    const baseUrl = await brokenDeployment(breakage);
    const report = await runConformance({ baseUrl, key });

    expect(report.passed).toBe(false);
    const failed = report.rules.find((candidate) => candidate.rule === rule);
    expect(failed?.outcome.result, formatReport(report)).toBe('failed');
    expect(formatReport(report)).toContain(`curl -i -X GET '${baseUrl}${replayed}`);
  },
);

test('the command exits non-zero and prints the failed rule with a curl command that replays it', async () => {
  const baseUrl = await brokenDeployment({ answerHeaders: without('allow') });

  const run = await promisify(execFile)(process.execPath, [COMMAND, '--base-url', baseUrl], {
    env: { ...process.env, ANIMAL_STORE_KEY: key },
  }).then(
    () => ({ code: 0, stdout: '' }),
    (error: { code: number; stdout: string }) => error,
  );

  expect(run.code).toBe(1);
  expect(run.stdout).toContain('✗ DELETE /v1/pets answers 405 with Allow: GET, HEAD, POST');
  expect(run.stdout).toContain(
    `curl -i -X DELETE '${baseUrl}/v1/pets' -H "Authorization: Bearer $ANIMAL_STORE_KEY"`,
  );
  expect(run.stdout).not.toContain(key);
});
