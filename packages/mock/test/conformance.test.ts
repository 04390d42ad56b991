/**
 * The mock is faithful as the conformance check sees a deployment: against it over real HTTP,
 * with each plan's key, read-only and with writes and a spent rate limit, every rule passes.
 */
import { type ConformanceReport, formatReport, runConformance } from '@animal-store/conformance';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ENTERPRISE_QUOTA, type MockServer, manualClock, startMockServer } from '../src/index.js';

let server: MockServer;

/** A page origin the mock lets call it, as a deployment's CORS_ORIGINS would. */
const ORIGIN = 'https://app.animal-store.example';

beforeEach(async () => {
  server = await startMockServer({ port: 0, clock: manualClock(), corsOrigins: [ORIGIN] });
});

afterEach(async () => {
  await server.close();
});

const failures = (report: ConformanceReport) =>
  report.rules.filter(({ outcome }) => outcome.result === 'failed');

const skipped = (report: ConformanceReport) =>
  report.rules.filter(({ outcome }) => outcome.result === 'skipped').map(({ rule }) => rule);

const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;

/** What the check is told of the key and the deployment: everything, so that nothing is skipped. */
const told = (plan: (typeof PLANS)[number]) => ({
  baseUrl: server.url,
  key: server.mock.keys[plan],
  plan,
  ...(plan === 'enterprise' && ENTERPRISE_QUOTA),
  revokedKey: server.mock.keys.revoked,
  origin: ORIGIN,
});

/**
 * Spending a plan's minute is one request after another, the Business plan's 1,000 of them: on a
 * machine busy with the rest of the test command they took up to 60 ms each (the Pro plan's 300
 * took 17 s), past the 30 s every other test gets.
 */
const SPENDING_TIMEOUT_MS = 180_000;

describe.each(PLANS)('with the %s key', (plan) => {
  test('every rule passes read-only', async () => {
    const report = await runConformance(told(plan));
    expect(failures(report), formatReport(report)).toEqual([]);
  });

  test(
    'every rule passes with writes and the rate limit spent; none is skipped',
    async () => {
      const report = await runConformance({
        ...told(plan),
        baseUrl: `${server.url}/v1`,
        allowWrites: true,
        spendRateLimit: true,
      });
      expect(failures(report), formatReport(report)).toEqual([]);
      expect(skipped(report)).toEqual([]);
    },
    SPENDING_TIMEOUT_MS,
  );
});
