/**
 * What is beyond the concurrency limit is shed: 503 with Retry-After at once, before any database
 * or Redis work, counted against no rate limit, one client over its share first, the probes never.
 * The limit is pinned small here (its learning is src/overload/concurrency-limit.test.ts's), and
 * requests are sent together, so that more are in the server at once than it admits.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerMetrics } from '../src/operations/metrics.js';
import { type RawResponse, sendTogether } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const LIMIT = 10;

let api: TestServer;
const metrics = createServerMetrics();
const logLines: Array<{ level: number; msg: string; [field: string]: unknown }> = [];
let statements = 0;

beforeAll(async () => {
  const lines = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  api = await startTestServer({
    concurrencyLimit: { initial: LIMIT, min: LIMIT, max: LIMIT },
    logger: pino({ level: 'info' }, lines),
    metrics,
    onQuery: () => {
      statements += 1;
    },
  });
});
afterAll(() => api?.close());

const request = (path: string, key?: string) =>
  [
    `GET ${path} HTTP/1.1`,
    'Host: localhost',
    ...(key ? [`Authorization: Bearer ${key}`] : []),
    'Connection: close',
    '',
    '',
  ].join('\r\n');

const shedOf = (answers: RawResponse[]) => answers.filter(({ status }) => status === 503);

describe('load shedding', () => {
  it('answers what is beyond the limit at once: 503 service_unavailable, Retry-After, the IP headers as they stand; the rest is served', async () => {
    const keys = await Promise.all(
      Array.from({ length: 5 }, (_, i) => api.createKey({ label: `crowd ${i}`, plan: 'pro' })),
    );
    const answers = await sendTogether(
      api.server,
      Array.from({ length: 50 }, (_, i) => request(`/v1/pets?limit=${1 + i}`, keys[i % 5])),
    );
    const shed = shedOf(answers);
    expect(shed.length).toBeGreaterThan(0);
    expect(answers.filter(({ status }) => status === 200).length).toBeGreaterThanOrEqual(LIMIT);
    for (const answer of shed) {
      expect(JSON.parse(answer.body)).toEqual({
        code: 'service_unavailable',
        message: 'The server is busy. Try again after the seconds Retry-After gives.',
        status: 503,
      });
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers['x-ratelimit-limit']).toBe('60');
      expect(answer.headers['x-request-id']).toBeTruthy();
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });

  it('sheds before any database work and counts the shed requests against no rate limit', async () => {
    const free = await api.createKey({ label: 'free, shed', plan: 'free' });
    statements = 0;
    const answers = await sendTogether(
      api.server,
      Array.from({ length: 40 }, () => request('/v1/pets/1', free)),
    );
    const served = answers.filter(({ status }) => status !== 503);
    expect(shedOf(answers).length).toBeGreaterThan(0);
    // The key's look-up and the reads of the requests served; none for those shed.
    expect(statements).toBeLessThanOrEqual(1 + served.length);
    const after = await api.request('/v1/pets/1', { apiKey: free });
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(60 - served.length - 1);
  });

  it('never sheds the probes', async () => {
    const answers = await sendTogether(api.server, [
      ...Array.from({ length: 30 }, () => request('/v1/pets', api.apiKey)),
      ...Array.from({ length: 5 }, () => request('/healthz')),
      ...Array.from({ length: 5 }, () => request('/readyz')),
    ]);
    expect(shedOf(answers.slice(0, 30)).length).toBeGreaterThan(0);
    expect(answers.slice(30).map(({ status }) => status)).toEqual(Array(10).fill(200));
  });

  it('sheds a client over its share first: one sending most of the traffic does not starve another', async () => {
    const heavy = await api.createKey({
      label: 'heavy',
      plan: 'enterprise',
      quota: { perMinute: 100_000, perDay: 100_000 },
    });
    const light = await api.createKey({ label: 'light', plan: 'business' });
    const answers = await sendTogether(api.server, [
      ...Array.from({ length: 30 }, () => request('/v1/pets/1', heavy)),
      request('/v1/pets/1', light),
      request('/v1/pets/1', light),
    ]);
    expect(shedOf(answers.slice(0, 30)).length).toBeGreaterThan(0);
    expect(shedOf(answers.slice(30))).toEqual([]);
  });

  it('counts what it sheds by reason and shows its limit, and logs when shedding begins and ends, not each request shed', async () => {
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/animal_store_shed_requests_total\{reason="over_limit"\} [1-9]/);
    expect(text).toMatch(/animal_store_shed_requests_total\{reason="over_fair_share"\} [1-9]/);
    expect(text).toMatch(new RegExp(`animal_store_concurrency_limit ${LIMIT}\\b`));
    expect(text).toMatch(/animal_store_requests_in_flight 0\b/);

    // A second with nothing shed, then a request served: shedding is over.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await api.request('/v1/pets')).status).toBe(200);
    const began = logLines.filter(({ msg }) => msg.startsWith('over capacity'));
    const ended = logLines.filter(({ msg }) => msg === 'no longer shedding');
    expect(began.length).toBeGreaterThanOrEqual(1);
    expect(ended.at(-1)).toMatchObject({ shed: expect.any(Number) });
    expect(
      logLines.filter(({ res }) => (res as { statusCode?: number })?.statusCode === 503),
    ).toEqual([]);
  });
});
