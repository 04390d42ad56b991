/**
 * The check against the real server (a fresh SQLite database): every rule passes, read-only and
 * with writes, as a function and as the command users run.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type LiveServer, ROOMY, startLiveServer } from '@animal-store/server/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConformanceReport, formatReport, runConformance } from '../src/index.js';
import { COMMAND } from './support/command.js';

let server: LiveServer;
let key: string;

beforeAll(async () => {
  server = await startLiveServer('conformance');
  key = await server.createKey(ROOMY);
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
    const report = await runConformance({ baseUrl: server.baseUrl, key, plan: 'enterprise' });
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(skippedRules(report)).toContain(
      'listPets pages follow Link rel="next" in ascending id order',
    );
    expect(skippedRules(report)).toContain('ids increase in creation order');
  });

  test('with --allow-writes every rule passes, those that page included; read-only afterwards too', async () => {
    const written = await runConformance({ baseUrl: server.baseUrl, key, allowWrites: true });
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
    const { stdout } = await promisify(execFile)(process.execPath, [
      COMMAND,
      '--base-url',
      `${server.baseUrl}/v1`,
      '--key',
      key,
      '--plan',
      'enterprise',
      '--allow-writes',
    ]);
    expect(stdout).toMatch(/\d+ passed, 0 failed, \d+ skipped/);
    expect(stdout).not.toContain(key);
  });

  test('--spend-rate-limit drives the key to its 429', async () => {
    const smallKey = await server.createKey({
      plan: 'enterprise',
      perMinute: 100,
      perDay: 100_000,
    });
    const report = await runConformance({
      baseUrl: server.baseUrl,
      key: smallKey,
      spendRateLimit: true,
    });
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(skippedRules(report).filter((rule) => rule.includes('429'))).toEqual([]);
  });
});
