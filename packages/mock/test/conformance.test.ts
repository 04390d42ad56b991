/**
 * The mock is faithful as the conformance check sees a deployment: against it over real HTTP,
 * with each plan's key, read-only and with writes and a spent rate limit, every rule passes.
 */
import { type ConformanceReport, formatReport, runConformance } from '@animal-store/conformance';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type MockServer, manualClock, startMockServer } from '../src/index.js';

let server: MockServer;

beforeEach(async () => {
  server = await startMockServer({ port: 0, clock: manualClock() });
});

afterEach(async () => {
  await server.close();
});

const failures = (report: ConformanceReport) =>
  report.rules.filter(({ outcome }) => outcome.result === 'failed');

const skipped = (report: ConformanceReport) =>
  report.rules.filter(({ outcome }) => outcome.result === 'skipped').map(({ rule }) => rule);

const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;

describe.each(PLANS)('with the %s key', (plan) => {
  test('every rule passes read-only', async () => {
    const report = await runConformance({ baseUrl: server.url, key: server.mock.keys[plan], plan });
    expect(failures(report), formatReport(report)).toEqual([]);
  });

  test('every rule passes with writes and the rate limit spent; none is skipped but the plan check of an enterprise key', async () => {
    const report = await runConformance({
      baseUrl: `${server.url}/v1`,
      key: server.mock.keys[plan],
      plan,
      allowWrites: true,
      spendRateLimit: true,
    });
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(skipped(report)).toEqual(
      plan === 'enterprise' ? ["answers to the key show its plan's limits (--plan)"] : [],
    );
  });
});
