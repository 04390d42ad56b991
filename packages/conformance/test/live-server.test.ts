/**
 * The check against the real server (a fresh SQLite database): every rule passes, read-only and
 * with writes, as a function and as the command users run, and on a Free key whose minute the
 * run outgrows.
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

/**
 * Pets to add before the run with a Free key: its walk while pets are added (pages of two) then
 * needs more requests than the key's minute by itself.
 */
const PETS_ADDED = 60;

async function addPets(baseUrl: string, key: string, count: number): Promise<void> {
  for (let index = 1; index <= count; index++) {
    const answer = await fetch(`${baseUrl}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Pet ${index}`, categoryId: 1 }),
    });
    expect(answer.status).toBe(201);
  }
}

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

  test("a Free key with writes, on a catalogue whose walk takes more than the key's minute: every rule passes, --spend-rate-limit's 429 included", async () => {
    // A server of its own: every run spends some of the calling IP's 60 requests a minute, and
    // the runs above have spent most of them.
    const own = await startLiveServer('conformance-pacing');
    try {
      await addPets(own.baseUrl, await own.createKey(ROOMY), PETS_ADDED);
      const freeKey = await own.createKey({ plan: 'free' });
      const report = await runConformance({
        baseUrl: own.baseUrl,
        key: freeKey,
        plan: 'free',
        allowWrites: true,
        spendRateLimit: true,
      });
      expect(failures(report), formatReport(report)).toEqual([]);
      expect(skippedRules(report).filter((rule) => rule.includes('429'))).toEqual([]);
    } finally {
      await own.stop();
    }
    // The run waits for the next minute of the server's clock: up to 61 s, then the rest of it.
  }, 180_000);
});
