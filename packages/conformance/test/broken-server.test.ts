/**
 * The check against deployments that each break one rule: that rule fails, the run fails, and
 * the report replays the request that showed it. And against one that only seems to: it passes.
 */
import { execFile } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ConformanceOptions, formatReport, runConformance } from '../src/index.js';
import {
  type Breakage,
  type BreakingProxy,
  startBreakingProxy,
  without,
} from './support/breaking-proxy.js';
import { COMMAND } from './support/command.js';

// Without Redis or a public URL, as startLiveServer's own environment.
const { PUBLIC_URL: _publicUrl, REDIS_URL: _redisUrl, ...environment } = process.env;

let server: LiveServer;
let key: string;
const proxies: BreakingProxy[] = [];

let revokedKey: string;

beforeAll(async () => {
  // Behind the breaking proxies, whose X-Forwarded-For it believes (each counted apart).
  server = await startLiveServer('conformance-broken', {
    env: { ...environment, TRUST_PROXY: '127.0.0.1' },
  });
  key = await server.createKey(ROOMY);
  revokedKey = await server.createKey({ plan: 'free' });
  await server.revokeKey(revokedKey);
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

/** Whichever is asked, /healthz and /readyz answer as a request counted against the IP. */
const countedProbes = (target: string) =>
  /^\/(healthz|readyz)$/.test(target) ? '/v1/pets?limit=1' : target;

const breakages: {
  rule: string;
  breakage: Breakage;
  /** The options of the run besides the base URL and the key (read once the keys are made). */
  options?: () => Partial<ConformanceOptions>;
  /** The curl command of the failure, given the broken deployment's base URL. */
  replayed: (baseUrl: string) => string;
}[] = [
  {
    rule: 'every answer of this run carried an X-Request-Id',
    breakage: { answerHeaders: without('x-request-id') },
    replayed: (baseUrl) => `curl -i -X GET '${baseUrl}/v1/openapi.json'`,
  },
  {
    // As a proxy that sends the server a Host of its own, with no PUBLIC_URL set.
    rule: 'rel="next" URLs name the origin the check called, or PUBLIC_URL',
    breakage: { requestHeaders: (headers, target) => ({ ...headers, host: target.host }) },
    replayed: (baseUrl) => `curl -i -X GET '${baseUrl}/v1/pets?limit=1'`,
  },
  {
    // As a server whose page limit is 200 would: asked for 101, it answers a page.
    rule: 'listPets: refuses a limit above 100',
    breakage: { target: (target) => target.replace('limit=101', 'limit=100') },
    replayed: (baseUrl) => `curl -i -X GET '${baseUrl}/v1/pets?limit=101'`,
  },
  {
    // As a deployment that still accepts a key after its revocation.
    rule: 'listPets answers 401 to a revoked key (--revoked-key), with the challenge',
    breakage: {
      requestHeaders: (headers) =>
        headers.authorization === `Bearer ${revokedKey}`
          ? { ...headers, authorization: `Bearer ${key}` }
          : headers,
    },
    options: () => ({ revokedKey }),
    replayed: (baseUrl) =>
      `curl -i -X GET '${baseUrl}/v1/pets' -H "Authorization: Bearer $ANIMAL_STORE_REVOKED_KEY"`,
  },
  {
    // As a deployment that counts its probes against the client's IP.
    rule: 'the probes are not counted against the calling IP, nor refused by rate limiting',
    breakage: { target: countedProbes },
    replayed: (baseUrl) => `curl -i -X GET '${baseUrl}/v1/pets?limit=1'`,
  },
  {
    // The key's own numbers are not the ones the check is told.
    rule: "answers to the key show its plan's limits (--plan)",
    breakage: {},
    options: () => ({ plan: 'enterprise', perMinute: 99_999, perDay: 1_000_000 }),
    replayed: (baseUrl) => `curl -i -X GET '${baseUrl}/v1/pets`,
  },
  {
    // The origin is not one the deployment allows (this server allows none): no preflight of it
    // is answered.
    rule: 'a preflight for POST from the allowed origin (--origin) answers 204 with Access-Control-* and X-RateLimit-*',
    breakage: {},
    options: () => ({ origin: 'https://shop.conformance.example' }),
    replayed: (baseUrl) =>
      `curl -i -X OPTIONS '${baseUrl}/v1/pets' -H 'Origin: https://shop.conformance.example' -H 'Access-Control-Request-Method: POST'`,
  },
  {
    // As a proxy that drops what it finds too long instead of refusing the request.
    rule: 'request headers over 16 KiB answer 431 headers_too_large',
    breakage: {
      requestHeaders: (headers) =>
        Object.fromEntries(
          Object.entries(headers).filter(([name]) => !name.startsWith('x-conformance-padding')),
        ),
    },
    replayed: (baseUrl) =>
      `curl -i -X GET '${baseUrl}/v1/pets?limit=1' -H "Authorization: Bearer $ANIMAL_STORE_KEY" -H "X-Conformance-Padding-1: $(head -c 3482 /dev/zero | tr '\\0' x)"`,
  },
  {
    // As a proxy that cuts the fragment off, and the query after it with it.
    rule: 'a # in the request target answers 400 malformed_request',
    breakage: { target: (target) => target.replace(/#.*/, '') },
    replayed: (baseUrl) =>
      `curl -i -X GET --request-target '/v1/pets?limit=1#conformance-check' '${baseUrl}'`,
  },
];

test.each(breakages)(
  'a deployment that breaks "$rule" fails it',
  async ({ rule, breakage, options, replayed }) => {
    const baseUrl = await brokenDeployment(breakage);
    const report = await runConformance({ ...options?.(), baseUrl, key });

    expect(report.passed).toBe(false);
    const failed = report.rules.find((candidate) => candidate.rule === rule);
    expect(failed?.outcome.result, formatReport(report)).toBe('failed');
    expect(formatReport(report)).toContain(replayed(baseUrl));
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

/** Each answer of a minute's window dated `seconds` after that minute resets. */
const datedFromMinuteReset =
  (seconds: number) =>
  (headers: IncomingHttpHeaders): IncomingHttpHeaders => {
    const reset = Number(headers['x-ratelimit-reset']);
    if (!Number.isInteger(reset) || reset % 86_400 === 0) return headers;
    return { ...headers, date: new Date((reset + seconds) * 1000).toUTCString() };
  };

test.each([
  // A busy Node server's `Date` (refreshed on a timer) can lag its clock by a second or two: the
  // worst case, an answer sent as the minute turned, two seconds late.
  { when: 'lags two seconds as the minute turns', seconds: -62 },
  // Counted in one minute, written in the next (it waited for room, its query was slow).
  { when: 'is a second past the minute its request was counted in', seconds: 1 },
])('a deployment whose Date $when passes the rate-limit rules', async ({ seconds }) => {
  const baseUrl = await brokenDeployment({ answerHeaders: datedFromMinuteReset(seconds) });
  const report = await runConformance({ baseUrl, key, ...ROOMY });

  const rateLimitRules = report.rules.filter(({ group }) => group === 'Rate limits');
  expect(rateLimitRules).not.toHaveLength(0);
  const notPassed = rateLimitRules.filter(({ outcome }) => outcome.result !== 'passed');
  expect(notPassed, formatReport(report)).toEqual([]);
});
