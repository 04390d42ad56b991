/**
 * The mock is faithful as the conformance check sees a deployment: against it over real HTTP,
 * with each plan's key, read-only and with writes and a spent rate limit, every rule passes. And
 * the check paces itself: a run that needs more than a Free key's minute waits for the next one
 * on the mock's clock, and meets no 429 but the one it drives the key to.
 */
import {
  type ConformanceReport,
  formatReport,
  type RateLimitWait,
  runConformance,
} from '@animal-store/conformance';
import type { NewPet } from '@animal-store/contract';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  DEMO_PETS,
  ENTERPRISE_QUOTA,
  type MockServer,
  manualClock,
  startMockServer,
} from '../src/index.js';

let server: MockServer;

/** A page origin the mock lets call it, as a deployment's CORS_ORIGINS would. */
const ORIGIN = 'https://app.animal-store.example';

async function startServer(seed?: readonly NewPet[]): Promise<void> {
  server = await startMockServer({
    port: 0,
    clock: manualClock(),
    corsOrigins: [ORIGIN],
    ...(seed && { seed }),
  });
}

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
  // The run's waits for a rate-limit window move the mock's clock, not the test's.
  sleep: async (ms: number) => server.mock.clock.advance(ms),
});

/**
 * Spending a plan's minute is one request after another, the Business plan's 1,000 of them: on a
 * machine busy with the rest of the test command they took up to 60 ms each (the Pro plan's 300
 * took 17 s), past the 30 s every other test gets.
 */
const SPENDING_TIMEOUT_MS = 180_000;

describe.each(PLANS)('with the %s key', (plan) => {
  beforeEach(() => startServer());

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

/**
 * A catalogue whose walk while pets are added (pages of two) alone takes more requests than a
 * Free key's minute: the run needs well over 60 of them, as it would with more rules.
 */
const LARGE_CATALOGUE: readonly NewPet[] = [
  ...DEMO_PETS,
  ...Array.from({ length: 60 }, (_, index) => ({ name: `Pet ${index + 7}`, categoryId: 1 })),
];

describe("a run that needs more than the key's minute", () => {
  beforeEach(() => startServer(LARGE_CATALOGUE));

  /** The run with writes and the 429 spent, and the waits it made. */
  async function runWithWrites(told: Parameters<typeof runConformance>[0]) {
    const waits: RateLimitWait[] = [];
    const report = await runConformance({
      ...told,
      allowWrites: true,
      spendRateLimit: true,
      onWait: (wait) => waits.push(wait),
    });
    return { report, waits };
  }

  test("on a Free key it waits for the next minute on the mock's clock: every rule passes, none is skipped", async () => {
    const { report, waits } = await runWithWrites(told('free'));

    expect(failures(report), formatReport(report)).toEqual([]);
    expect(skipped(report)).toEqual([]);
    expect(waits).toContainEqual(expect.objectContaining({ budget: 'key' }));
  });

  test('a deployment that refuses before the plan it is said to be on fails the rule on its limits, and only that one', async () => {
    // The Free key, said to be on the Pro plan: refused after 60 requests a minute, not 300.
    const { report, waits } = await runWithWrites({ ...told('free'), plan: 'pro' });

    expect(
      failures(report).map(({ rule }) => rule),
      formatReport(report),
    ).toEqual(["answers to the key show its plan's limits (--plan)"]);
    expect(waits).not.toEqual([]);
  });
});
