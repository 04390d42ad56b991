/**
 * The check against the real server (a fresh SQLite database): every rule passes, read-only and
 * with writes, as a function and as the command users run. (A run that outgrows a Free key's
 * minute, and waits for the next, is tested against the mock, whose clock the test holds:
 * packages/mock/test/conformance.test.ts.)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  type KeyPlan,
  type LiveServer,
  ROOMY,
  startLiveServer,
} from '@animal-store/server/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConformanceReport, formatReport, runConformance } from '../src/index.js';
import { COMMAND } from './support/command.js';

/** A browser origin the server allows (CORS_ORIGINS). */
const ORIGIN = 'https://shop.conformance.example';
/** The ROOMY key's own numbers, for --plan enterprise. */
const { perMinute, perDay } = ROOMY as Extract<KeyPlan, { plan: 'enterprise' }>;

let server: LiveServer;
let key: string;
let revokedKey: string;

beforeAll(async () => {
  // Without Redis or a public URL, as startLiveServer's own environment; browsers on ORIGIN allowed.
  const { PUBLIC_URL: _publicUrl, REDIS_URL: _redisUrl, ...inherited } = process.env;
  server = await startLiveServer('conformance', {
    env: { ...inherited, CORS_ORIGINS: ORIGIN },
  });
  key = await server.createKey(ROOMY);
  revokedKey = await server.createKey({ plan: 'free' });
  await server.revokeKey(revokedKey);
});

afterAll(async () => {
  await server?.stop();
});

const failures = (report: ConformanceReport) =>
  report.rules.filter(({ outcome }) => outcome.result === 'failed');

const skippedRules = (report: ConformanceReport) =>
  report.rules.filter(({ outcome }) => outcome.result === 'skipped').map(({ rule }) => rule);

describe('against the real server', () => {
  test('read-only on an empty catalogue: every rule passes; paging and writes are skipped', async () => {
    const report = await runConformance({
      baseUrl: server.baseUrl,
      key,
      plan: 'enterprise',
      perMinute,
      perDay,
      revokedKey,
      origin: ORIGIN,
    });
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(skippedRules(report)).toContain(
      'listPets pages follow Link rel="next" in ascending id order',
    );
    expect(skippedRules(report)).toContain('ids increase in creation order');
  });

  test('with --allow-writes every rule passes, those that page included; read-only afterwards too', async () => {
    const written = await runConformance({
      baseUrl: server.baseUrl,
      key,
      allowWrites: true,
      revokedKey,
      origin: ORIGIN,
    });
    expect(failures(written), formatReport(written)).toEqual([]);
    expect(skippedRules(written)).toEqual([
      "answers to the key show its plan's limits (--plan)",
      expect.stringContaining('answered 429'),
    ]);

    const read = await runConformance({ baseUrl: server.baseUrl, key, plan: 'enterprise' });
    expect(failures(read), formatReport(read)).toEqual([]);
    expect(read.observed).toContainEqual([
      'Origin of Link URLs',
      `${server.baseUrl}, the origin the check called`,
    ]);
  });

  test('the command, as npx runs it, passes with --allow-writes and exits 0', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        COMMAND,
        '--base-url',
        `${server.baseUrl}/v1`,
        '--key',
        key,
        '--plan',
        'enterprise',
        '--per-minute',
        String(perMinute),
        '--per-day',
        String(perDay),
        '--origin',
        ORIGIN,
        '--allow-writes',
      ],
      { env: { ...process.env, ANIMAL_STORE_REVOKED_KEY: revokedKey } },
    );
    expect(stdout).toMatch(/\d+ passed, 0 failed, \d+ skipped/);
    expect(stdout).toContain('✓ listPets answers 401 to a revoked key (--revoked-key)');
    expect(stdout).not.toContain(key);
    expect(stdout).not.toContain(revokedKey);
  });

  test('--spend-rate-limit drives the key to its 429', async () => {
    // A server of its own: every run spends some of the calling IP's 60 requests a minute, and
    // the runs above have spent most of them.
    const own = await startLiveServer('conformance-spending');
    try {
      const smallKey = await own.createKey({
        plan: 'enterprise',
        perMinute: 100,
        perDay: 100_000,
      });
      const report = await runConformance({
        baseUrl: own.baseUrl,
        key: smallKey,
        spendRateLimit: true,
      });
      expect(failures(report), formatReport(report)).toEqual([]);
      expect(skippedRules(report).filter((rule) => rule.includes('429'))).toEqual([]);
    } finally {
      await own.stop();
    }
    // A server started, then a key's 100 requests one after another: 6 s alone, past 30 s on a
    // machine busy with the rest of the test command.
  }, 120_000);
});
