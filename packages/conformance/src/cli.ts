#!/usr/bin/env node
/**
 * npx @animal-store/conformance --base-url <url> --key <key> [--plan <plan> [--per-minute <n>
 * --per-day <n>]] [--revoked-key <key>] [--origin <origin>] [--allow-writes] [--spend-rate-limit]
 * [--json]: exit code 0 when every rule passed, 1 when one failed, 2 when the command was misused.
 */
import { parseArgs } from 'node:util';
import { KEY_VARIABLE, REVOKED_KEY_VARIABLE } from './http/exchange.js';
import { PLANS, type Plan } from './options.js';
import { describeWait } from './pacing.js';
import { formatReport } from './report.js';
import { runConformance } from './run.js';

const USAGE = `Usage: animal-store-conformance --base-url <url> [--key <key>] [options]

Checks a running Animal Store API v1 deployment against the interface, black-box over HTTP.
Read-only unless --allow-writes: no pet is created.

  --base-url <url>      The deployment's origin, e.g. https://api.animal-store.example
  --key <key>           An API key of the deployment (default: $${KEY_VARIABLE}, which keeps it
                        out of the shell's history)
  --plan <plan>         The key's plan (${PLANS.join(', ')}): X-RateLimit-Limit must show its numbers
  --per-minute <n>      With --plan enterprise, the key's own requests per minute (with --per-day)
  --per-day <n>         With --plan enterprise, the key's own requests per day (with --per-minute)
  --revoked-key <key>   A revoked key of the deployment, which must be refused (default:
                        $${REVOKED_KEY_VARIABLE}); without it, that rule is skipped
  --origin <origin>     A browser origin the deployment allows (CORS_ORIGINS), e.g.
                        https://shop.example.com: its preflights must be answered
  --allow-writes        Also create pets: creates, Idempotency-Key replays and 409s, paging while
                        pets are added. For staging: the interface cannot delete a pet
  --spend-rate-limit    Also drive the key to 429 (spends the rest of its minute)
  --json                Print the report as JSON
  --help                Print this
`;

class UsageError extends Error {}

const WHOLE_NUMBER = /^[1-9][0-9]*$/;

/** --per-minute and --per-day: both, with --plan enterprise only, as the key command takes them. */
function enterpriseLimits(
  plan: string | undefined,
  perMinute: string | undefined,
  perDay: string | undefined,
): { perMinute?: number; perDay?: number } {
  if (perMinute === undefined && perDay === undefined) return {};
  if (plan !== 'enterprise' || perMinute === undefined || perDay === undefined) {
    throw new UsageError('--per-minute and --per-day go together, with --plan enterprise');
  }
  for (const [flag, value] of [
    ['--per-minute', perMinute],
    ['--per-day', perDay],
  ]) {
    if (!WHOLE_NUMBER.test(value as string) || !Number.isSafeInteger(Number(value))) {
      throw new UsageError(`${flag} must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`);
    }
  }
  return { perMinute: Number(perMinute), perDay: Number(perDay) };
}

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'base-url': { type: 'string' },
      key: { type: 'string' },
      plan: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
      'revoked-key': { type: 'string' },
      origin: { type: 'string' },
      'allow-writes': { type: 'boolean', default: false },
      'spend-rate-limit': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const baseUrl = values['base-url'];
  if (baseUrl === undefined || !URL.canParse(baseUrl)) {
    throw new UsageError(
      '--base-url must be an absolute URL, e.g. https://api.animal-store.example',
    );
  }
  const key = values.key ?? process.env[KEY_VARIABLE];
  if (!key) throw new UsageError(`an API key is needed: --key <key>, or $${KEY_VARIABLE}`);
  const { plan } = values;
  if (plan !== undefined && !PLANS.includes(plan as Plan)) {
    throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  }
  const origin = values.origin;
  if (origin !== undefined && !(URL.canParse(origin) && new URL(origin).origin === origin)) {
    throw new UsageError('--origin must be an origin, e.g. https://shop.example.com');
  }
  return {
    options: {
      baseUrl,
      key,
      plan: plan as Plan | undefined,
      ...enterpriseLimits(plan, values['per-minute'], values['per-day']),
      revokedKey: values['revoked-key'] || process.env[REVOKED_KEY_VARIABLE] || undefined,
      origin,
      allowWrites: values['allow-writes'],
      spendRateLimit: values['spend-rate-limit'],
    },
    json: values.json,
  };
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  const report = await runConformance({
    ...parsed.options,
    // On stderr: progress, which --json's report on stdout leaves out.
    onWait: (wait) => process.stderr.write(`${describeWait(wait)}\n`),
  });
  process.stdout.write(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.passed ? 0 : 1;
}

// Not a top-level await: the same file builds as CommonJS too.
void main().then((code) => {
  process.exitCode = code;
});
