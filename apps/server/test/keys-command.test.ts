import { createHash } from 'node:crypto';
import { createPrismaClient } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeys } from './support/server-process.js';
import { dropScratchDatabases, scratchDatabaseUrl } from './support/test-database.js';

let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await scratchDatabaseUrl();
});
afterAll(() => dropScratchDatabases());

const keys = (...args: string[]) => runKeys(databaseUrl, args);

function expectOneLineError(result: Awaited<ReturnType<typeof keys>>, pattern: RegExp) {
  expect(result.status).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

describe('The key command', () => {
  it('create --json prints exactly one JSON object {id, key, plan, perMinute, perDay} on stdout', async () => {
    for (const [plan, perMinute, perDay] of [
      ['free', 60, 1000],
      ['pro', 300, 10000],
      ['business', 1000, 100000],
    ] as const) {
      const result = await keys('create', '--label', `a ${plan} key`, '--plan', plan, '--json');
      expect(result.status, result.stderr).toBe(0);
      const created = JSON.parse(result.stdout);
      expect(Object.keys(created).sort()).toEqual(['id', 'key', 'perDay', 'perMinute', 'plan']);
      expect(created).toMatchObject({ plan, perMinute, perDay });
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
    }
  });

  it('keys are random, at least 128 bits', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const { key } = JSON.parse(
        (await keys('create', '--label', 'r', '--plan', 'free', '--json')).stdout,
      );
      const secret = key.replace(/^ask_/, '');
      expect(Buffer.from(secret, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
      seen.add(key);
    }
    expect(seen.size).toBe(3);
  });

  it('enterprise requires --per-minute N --per-day N', async () => {
    const result = await keys(
      'create',
      '--label',
      'big',
      '--plan',
      'enterprise',
      '--per-minute',
      '5000',
      '--per-day',
      '900000',
      '--json',
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      plan: 'enterprise',
      perMinute: 5000,
      perDay: 900000,
    });
    expectOneLineError(
      await keys('create', '--label', 'big', '--plan', 'enterprise'),
      /--per-minute is required/,
    );
    expectOneLineError(
      await keys('create', '--label', 'big', '--plan', 'enterprise', '--per-minute', '10'),
      /--per-day is required/,
    );
    expectOneLineError(
      await keys(
        'create',
        '--label',
        'big',
        '--plan',
        'enterprise',
        '--per-minute',
        '0',
        '--per-day',
        '10',
      ),
      /positive whole number/,
    );
  });

  it('other plans refuse --per-minute and --per-day', async () => {
    expectOneLineError(
      await keys('create', '--label', 'x', '--plan', 'free', '--per-minute', '100'),
      /only for the enterprise plan/,
    );
    expectOneLineError(
      await keys('create', '--label', 'x', '--plan', 'pro', '--per-day', '100'),
      /only for the enterprise plan/,
    );
  });

  it('errors exit non-zero with a one-line message: unknown plan, missing flags, unknown command', async () => {
    expectOneLineError(
      await keys('create', '--label', 'x', '--plan', 'platinum'),
      /unknown plan "platinum"/,
    );
    expectOneLineError(await keys('create', '--plan', 'free'), /--label is required/);
    expectOneLineError(await keys('create', '--label', 'x'), /--plan is required/);
    expectOneLineError(
      await keys('create', '--label', 'x', '--plan', 'free', '--colour', 'red'),
      /colour/,
    );
    expectOneLineError(await keys('rotate'), /unknown command "rotate"/);
    expectOneLineError(await keys('revoke'), /needs the id/);
    expectOneLineError(await keys('revoke', 'key_nope'), /no key has id "key_nope"/);
  });

  it('list never shows secrets', async () => {
    const { key, id } = JSON.parse(
      (await keys('create', '--label', 'listed', '--plan', 'pro', '--json')).stdout,
    );
    for (const args of [['list'], ['list', '--json']]) {
      const result = await keys(...args);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(id);
      expect(result.stdout).not.toContain(key);
      expect(result.stdout).not.toContain(key.slice(4, 20));
    }
  });

  it('revoke <id> marks the key revoked; list shows it', async () => {
    const { id } = JSON.parse(
      (await keys('create', '--label', 'doomed', '--plan', 'free', '--json')).stdout,
    );
    expect((await keys('revoke', id)).status).toBe(0);
    const listed = JSON.parse((await keys('list', '--json')).stdout).keys.find(
      (key: { id: string }) => key.id === id,
    );
    expect(listed.revokedAt).toBeTruthy();
  });

  it('keys are stored only as a hash, looked up by hash', async () => {
    const { key, id } = JSON.parse(
      (await keys('create', '--label', 'hashed', '--plan', 'free', '--json')).stdout,
    );
    const db = createPrismaClient(databaseUrl);
    try {
      const row = await db.apiKey.findUniqueOrThrow({ where: { id } });
      expect(row.secretHash).toBe(createHash('sha256').update(key).digest('hex'));
      const text = JSON.stringify(row, (_key, value) =>
        typeof value === 'bigint' ? String(value) : value,
      );
      expect(text).not.toContain(key);
    } finally {
      await db.$disconnect();
    }
  });
});
