#!/usr/bin/env node
/**
 * The key command: `keys create|list|revoke`, against the server's DATABASE_URL.
 * With --json, stdout carries exactly one JSON object; everything else goes to stderr.
 */
import { parseArgs } from 'node:util';
import type { ConfigurationError } from '../config.js';
import { PLAN_NAMES, type PlanName } from '../limits/plans.js';
import { exitWhenIdle } from '../process-exit.js';
import type { ApiKeyInfo, ApiKeyStore, NewApiKey } from './api-key-store.js';

const USAGE = `Usage:
  keys create --label <label> --plan free|pro|business|enterprise [--per-minute N --per-day N] [--json]
  keys list [--json]
  keys revoke <id> [--json]`;

class UsageError extends Error {}

const OPTIONS = {
  label: { type: 'string' },
  plan: { type: 'string' },
  'per-minute': { type: 'string' },
  'per-day': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Options = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/**
 * An enterprise limit: any count of requests, up to the largest integer JSON (the `--json`
 * output, the rate-limit headers) carries exactly. The columns are 64-bit.
 */
const LIMIT_RANGE = { min: 1, max: Number.MAX_SAFE_INTEGER } as const;

function limitFlag(flag: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`--${flag} is required for the enterprise plan`);
  // Decimal digits only: Number() would also read "1e6", "0x10" or " 5" as counts.
  const limit = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(limit) || limit < LIMIT_RANGE.min) {
    throw new UsageError(
      `--${flag} must be a whole number from ${LIMIT_RANGE.min} to ${LIMIT_RANGE.max}`,
    );
  }
  return limit;
}

const LIMIT_FLAGS = ['--per-minute', '--per-day'];

/**
 * parseArgs takes the `-3` of `--per-day -3` for a flag and refuses it as ambiguous: attached
 * to its flag, a negative limit is refused for its range, like any other out of range.
 */
function withNegativeLimitsAttached(argv: string[]): string[] {
  const args: string[] = [];
  for (const arg of argv) {
    const flag = args.at(-1);
    if (flag !== undefined && LIMIT_FLAGS.includes(flag) && /^-[0-9.]/.test(arg)) {
      args[args.length - 1] = `${flag}=${arg}`;
    } else {
      args.push(arg);
    }
  }
  return args;
}

function newKeyFrom(options: Options): NewApiKey {
  const label = options.label?.trim();
  if (!label) throw new UsageError('--label is required');
  const plan = options.plan;
  if (!plan) throw new UsageError(`--plan is required: one of ${PLAN_NAMES.join(', ')}`);
  if (!PLAN_NAMES.includes(plan as PlanName)) {
    throw new UsageError(`unknown plan "${plan}": use one of ${PLAN_NAMES.join(', ')}`);
  }
  const customQuota = options['per-minute'] !== undefined || options['per-day'] !== undefined;
  if (plan !== 'enterprise') {
    if (customQuota)
      throw new UsageError(
        `--per-minute and --per-day are only for the enterprise plan; ${plan} keys are held to the plan table`,
      );
    return { label, plan: plan as Exclude<PlanName, 'enterprise'> };
  }
  const quota = {
    perMinute: limitFlag('per-minute', options['per-minute']),
    perDay: limitFlag('per-day', options['per-day']),
  };
  return { label, plan, quota };
}

function describe(key: ApiKeyInfo): string {
  const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
  return `${key.id}  ${key.plan} (${key.quota.perMinute}/min, ${key.quota.perDay}/day)  ${state}  ${key.label}`;
}

const out = (line: string) => process.stdout.write(`${line}\n`);

/** What the command line asks for, checked in full before the database is touched. */
type Action =
  | { command: 'create'; newKey: NewApiKey }
  | { command: 'list' }
  | { command: 'revoke'; id: string };

function actionOf(command: string, rest: string[], options: Options): Action {
  if (command === 'create') return { command, newKey: newKeyFrom(options) };
  if (command === 'list') return { command };
  if (command === 'revoke') {
    const [id] = rest;
    if (!id) throw new UsageError('revoke needs the id of the key (see: keys list)');
    return { command, id };
  }
  throw new UsageError(`unknown command "${command}"`);
}

async function perform(action: Action, keys: ApiKeyStore, json: boolean) {
  if (action.command === 'create') {
    const { key, secret } = await keys.create(action.newKey);
    if (json) {
      out(
        JSON.stringify({
          id: key.id,
          key: secret,
          plan: key.plan,
          perMinute: key.quota.perMinute,
          perDay: key.quota.perDay,
        }),
      );
    } else {
      out(`Created ${describe(key)}`);
      out(`API key (shown once, store it now): ${secret}`);
    }
  } else if (action.command === 'list') {
    const all = await keys.list();
    if (json) {
      out(
        JSON.stringify({
          keys: all.map(({ id, label, plan, quota, createdAt, revokedAt }) => ({
            id,
            label,
            plan,
            ...quota,
            createdAt,
            revokedAt,
          })),
        }),
      );
    } else {
      out(
        all.length
          ? all.map(describe).join('\n')
          : 'No keys yet. Create one with: keys create --label <label> --plan free',
      );
    }
  } else {
    if (!(await keys.revoke(action.id))) throw new UsageError(`no key has id "${action.id}"`);
    out(json ? JSON.stringify({ id: action.id, revoked: true }) : `Revoked ${action.id}`);
  }
}

async function run(argv: string[]): Promise<void> {
  const { values: options, positionals } = parseArgs({
    args: withNegativeLimitsAttached(argv),
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const [command, ...rest] = positionals;
  if (options.help || !command) {
    out(USAGE);
    return;
  }
  // A mistyped command is refused at once, with no database reached, migrated or waited for,
  // and before the database's modules (Prisma's clients, the schema engine) are even loaded.
  const action = actionOf(command, rest, options);
  const [{ loadConfig }, { createPrismaClient, migrateDatabase }, { createApiKeyStore }] =
    await Promise.all([
      import('../config.js'),
      import('@animal-store/db'),
      import('./api-key-store.js'),
    ]);
  const { DATABASE_URL } = loadConfig();
  await migrateDatabase(DATABASE_URL);
  const db = createPrismaClient(DATABASE_URL);
  try {
    await perform(action, createApiKeyStore(db), options.json);
  } finally {
    await db.$disconnect();
  }
}

/** By its name: the class is in a module loaded only once the command line is valid. */
const isConfigurationError = (error: unknown): error is ConfigurationError =>
  error instanceof Error && error.name === 'ConfigurationError';

run(process.argv.slice(2)).then(
  () => exitWhenIdle(0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    // One line, so scripts can show it as is; `keys --help` has the usage. A bad setting's
    // problems are each one line of its message: all of them are said.
    const lines = message.split('\n').map((line) => line.trim());
    const line = isConfigurationError(error) ? lines.filter(Boolean).join(' ') : (lines[0] ?? '');
    process.stderr.write(`keys: ${line} (see keys --help)\n`);
    exitWhenIdle(1);
  },
);
