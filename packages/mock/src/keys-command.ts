/**
 * `animal-store-mock keys create|revoke`: keys made and revoked in a mock running on its own,
 * through its control path (control.ts), as the server's key command makes them in its database.
 */
import { parseArgs } from 'node:util';

export const KEYS_USAGE = `Usage: animal-store-mock keys create --plan free|pro|business [--url <mock>] [--json]
       animal-store-mock keys create --plan enterprise --per-minute N --per-day N [--url <mock>] [--json]
       animal-store-mock keys revoke <key> [--url <mock>] [--json]

Makes or revokes a key in a running mock, until it stops or is reset.

  --url <mock>      The mock's URL (default http://127.0.0.1:4010)
  --json            Print one JSON object
`;

const DEFAULT_URL = 'http://127.0.0.1:4010';

/** A command line the usage does not allow. */
export class UsageError extends Error {}

interface CreatedKey {
  readonly key: string;
  readonly plan: string;
  readonly perMinute: number;
  readonly perDay: number;
}

function parseKeysArgs(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      plan: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
      url: { type: 'string', default: DEFAULT_URL },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const [action, key, ...extra] = positionals;
  const known =
    extra.length === 0 &&
    ((action === 'create' && key === undefined) || (action === 'revoke' && key !== undefined));
  if (!known) throw new UsageError(`not a keys command: keys ${positionals.join(' ')}`);
  if (!URL.canParse(values.url)) throw new UsageError(`--url must be a URL: ${values.url}`);
  return { action: action as 'create' | 'revoke', key, ...values };
}

/** The body of a create: the plan, or the enterprise numbers as numbers (the mock checks them). */
function newKeyOf({
  plan,
  ...numbers
}: {
  plan?: string;
  'per-minute'?: string;
  'per-day'?: string;
}) {
  if (plan === undefined) throw new UsageError('--plan is required');
  return {
    plan,
    ...(numbers['per-minute'] !== undefined && { perMinute: Number(numbers['per-minute']) }),
    ...(numbers['per-day'] !== undefined && { perDay: Number(numbers['per-day']) }),
  };
}

/** The mock's answer, or its Error body's message (with the details') as the error. */
async function controlCall(url: string, init: RequestInit): Promise<Response> {
  const answer = await fetch(url, init).catch(() => {
    throw new Error(`No mock answers at ${new URL(url).origin}`);
  });
  if (answer.ok) return answer;
  const { message, details = [] } = (await answer.json()) as {
    message: string;
    details?: { message: string }[];
  };
  throw new Error([message, ...details.map((detail) => detail.message)].join(' '));
}

/** Runs `keys …`; what it prints goes to stdout. */
export async function runKeysCommand(argv: readonly string[]): Promise<string> {
  const options = parseKeysArgs(argv);
  const keysUrl = new URL('/_mock/keys', options.url).href;
  if (options.action === 'revoke') {
    const key = options.key as string;
    await controlCall(`${keysUrl}/${encodeURIComponent(key)}`, { method: 'DELETE' });
    return options.json ? JSON.stringify({ key, revoked: true }) : `Revoked ${key}`;
  }
  const answer = await controlCall(keysUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(newKeyOf(options)),
  });
  const created = (await answer.json()) as CreatedKey;
  if (options.json) return JSON.stringify(created);
  return `Created a key on ${created.plan} (${created.perMinute}/minute, ${created.perDay}/day):\n${created.key}`;
}
