import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSum, summarize, watchAdmission } from './admission-watch.js';

const TEXT = [
  '# HELP animal_store_concurrency_limit How many requests the server admits at once now.',
  '# TYPE animal_store_concurrency_limit gauge',
  'animal_store_concurrency_limit 131',
  'animal_store_concurrency_limit_unrelated 9',
  'animal_store_http_requests_total{operation="getPet",status="200"} 1000',
  'animal_store_http_requests_total{operation="listPets",status="200"} 234',
].join('\n');

describe('metricSum', () => {
  it('adds up every label set of the metric, and no metric whose name it only begins', () => {
    expect(metricSum(TEXT, 'animal_store_concurrency_limit')).toBe(131);
    expect(metricSum(TEXT, 'animal_store_http_requests_total')).toBe(1234);
  });

  it('is undefined for a metric the server does not have', () => {
    expect(metricSum(TEXT, 'animal_store_requests_waiting')).toBeUndefined();
  });
});

describe('summarize', () => {
  const scrape = (limit: number, waiting: number, requests: number, statements: number) => ({
    limit,
    waiting,
    requests,
    statements,
  });

  it('takes the gauges over every scrape and the counters from the first to the last', () => {
    expect(
      summarize([scrape(500, 0, 100, 10), scrape(120, 900, 600, 14), scrape(180, 800, 1100, 18)]),
    ).toEqual({
      limitMedian: 180,
      limitLeast: 120,
      limitMost: 500,
      waitingMedian: 800,
      requestsPerStatement: 125,
    });
  });

  it('has nothing to say of fewer than two scrapes', () => {
    expect(summarize([scrape(500, 0, 100, 10)])).toBeUndefined();
  });
});

describe('watchAdmission', () => {
  let served = 0;
  const server = createServer((_req, res) => {
    served += 1;
    res.end(
      [
        `animal_store_concurrency_limit ${served % 2 === 0 ? 100 : 300}`,
        'animal_store_requests_waiting 40',
        `animal_store_http_requests_total{operation="getPet"} ${served * 100}`,
        `animal_store_db_query_duration_seconds_count{operation="SELECT"} ${served}`,
      ].join('\n'),
    );
  });
  let origin = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("samples a server's metrics until finished", async () => {
    const watch = watchAdmission(origin);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const summary = await watch.finish();
    expect(served).toBeGreaterThanOrEqual(3);
    expect(summary).toMatchObject({
      limitLeast: 100,
      limitMost: 300,
      waitingMedian: 40,
      requestsPerStatement: 100,
    });
  });

  it('says nothing of a server it cannot scrape', async () => {
    const gone = watchAdmission('http://127.0.0.1:9');
    expect(await gone.finish()).toBeUndefined();
  });
});
