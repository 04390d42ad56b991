import { createHash } from 'node:crypto';
import { createPrismaClient } from '@animal-store/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_QUOTAS } from '../src/limits/plans.js';
import { dropScratchDatabases, scratchDatabaseUrl } from '../testing/test-database.js';
import { killLeftoverServers, runKeys, startServerProcess } from './support/server-process.js';

let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await scratchDatabaseUrl();
});
afterAll(async () => {
  killLeftoverServers();
  await dropScratchDatabases();
});

const keys = (...args: string[]) => runKeys(databaseUrl, args);

const LARGEST = Number.MAX_SAFE_INTEGER;

interface CreatedKey {
  id: string;
  key: string;
  perMinute: number;
  perDay: number;
}

/** `keys create` for an enterprise key with these limits, as typed. */
const enterpriseKeyArgs = (perMinute: string, perDay: string) => [
  'create',
  '--label',
  'enterprise',
  '--plan',
  'enterprise',
  '--per-minute',
  perMinute,
  '--per-day',
  perDay,
];

async function createEnterpriseKey(perMinute: string, perDay: string): Promise<CreatedKey> {
  const result = await keys(...enterpriseKeyArgs(perMinute, perDay), '--json');
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

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
      /--per-minute must be a whole number from 1 to 9007199254740991/,
    );
  });

  it('enterprise limits are whole numbers up to 2^53 − 1, exactly as a key then works with them', async () => {
    const vast = await createEnterpriseKey('9007199254740991', '100000000000');
    const largest = await createEnterpriseKey('9007199254740991', '9007199254740991');
    expect(vast).toMatchObject({ perMinute: LARGEST, perDay: 100_000_000_000 });
    expect(largest).toMatchObject({ perMinute: LARGEST, perDay: LARGEST });
    const listed = JSON.parse((await keys('list', '--json')).stdout).keys;
    for (const key of [vast, largest]) {
      expect(listed.find(({ id }: { id: string }) => id === key.id)).toMatchObject({
        perMinute: key.perMinute,
        perDay: key.perDay,
      });
    }

    const server = await startServerProcess({ DATABASE_URL: databaseUrl });
    try {
      // The headers describe the window with fewer requests left: the day for `vast`, the
      // minute for `largest` (a tie).
      for (const [key, limit] of [
        [vast, '100000000000'],
        [largest, '9007199254740991'],
      ] as const) {
        const res = await fetch(`${server.baseUrl}/v1/pets`, {
          headers: { authorization: `Bearer ${key.key}` },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe(limit);
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(BigInt(limit) - 1n));
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('enterprise limits out of range or not whole numbers are refused, naming the range', async () => {
    const create = (perMinute: string, perDay: string) =>
      keys(...enterpriseKeyArgs(perMinute, perDay));
    for (const value of ['9007199254740992', '0', '1.5', '-3', '1e6', ' 5', '']) {
      expectOneLineError(
        await create('10', value),
        /--per-day must be a whole number from 1 to 9007199254740991/,
      );
    }
    for (const value of ['99999999999999999999', '-1']) {
      expectOneLineError(
        await create(value, '10'),
        /--per-minute must be a whole number from 1 to 9007199254740991/,
      );
    }
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
    expectOneLineError(
      await runKeys('mysql://db/pets', ['list']),
      /Invalid configuration: DATABASE_URL: must start with file: or postgresql:\/\//,
    );
  });

  it('refuses a mistyped command before it reaches the database: no connection, no migration, no wait', async () => {
    // Nothing listens on port 1: a command that tried to connect would fail otherwise.
    const unreachable = 'postgresql://postgres@127.0.0.1:1/animal_store';
    expectOneLineError(
      await runKeys(unreachable, ['create', '--label', 'x', '--plan', 'platinum']),
      /unknown plan "platinum"/,
    );
    expectOneLineError(
      await runKeys(unreachable, enterpriseKeyArgs('10', '1.5')),
      /--per-day must be a whole number/,
    );
    expectOneLineError(await runKeys(unreachable, ['rotate']), /unknown command "rotate"/);
    expectOneLineError(await runKeys(unreachable, ['revoke']), /needs the id/);
  });

  it("list shows the numbers each key is held to: a table plan's from the plan table, whatever its row holds", async () => {
    const pro = JSON.parse(
      (await keys('create', '--label', 'earlier pro', '--plan', 'pro', '--json')).stdout,
    );
    const enterprise = await createEnterpriseKey('7', '5000');
    const db = createPrismaClient(databaseUrl);
    try {
      // A row whose numbers are not the table's (the table changed since the key was made).
      await db.apiKey.update({
        where: { id: pro.id },
        data: { perMinute: 5, perDay: 50 },
        select: { id: true },
      });
    } finally {
      await db.$disconnect();
    }
    const listed = JSON.parse((await keys('list', '--json')).stdout).keys;
    const entry = (id: string) => listed.find((key: { id: string }) => key.id === id);
    expect(entry(pro.id)).toMatchObject({ plan: 'pro', ...PLAN_QUOTAS.pro });
    expect(entry(enterprise.id)).toMatchObject({ perMinute: 7, perDay: 5000 });
    const text = (await keys('list')).stdout;
    expect(text).toContain(`${pro.id}  pro (300/min, 10000/day)`);
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
