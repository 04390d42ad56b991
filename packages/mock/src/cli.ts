#!/usr/bin/env node
/**
 * npx @animal-store/mock [--port 4010] [--host 127.0.0.1] [--empty] [--cors-origin <origin>]: serves
 * the mock until SIGINT or SIGTERM, after printing its URL and a key of each plan.
 * npx @animal-store/mock keys create|revoke …: makes or revokes a key in a running mock.
 * Exit code 2 when misused, 1 when a keys command fails.
 */
import { parseArgs } from 'node:util';
import { MOCK_KEYS } from './api-keys.js';
import { KEYS_USAGE, runKeysCommand, UsageError } from './keys-command.js';
import { ENTERPRISE_QUOTA, PLAN_QUOTAS } from './limits.js';
import { startMockServer } from './node-server.js';

const USAGE = `Usage: animal-store-mock [--port <port>] [--host <address>] [--empty] [--cors-origin <origin>]

Serves a mock of the Animal Store API v1, in memory, until stopped (Ctrl-C).

  --port <port>     The port to listen on (default 4010; 0 for any free one)
  --host <address>  The address to listen on (default 127.0.0.1)
  --empty           Start with no pets (default: the six demo pets of pnpm dev)
  --cors-origin <origin>
                    A browser origin allowed to call the mock from its own pages (CORS);
                    repeat it for more (default: none, as the server's CORS_ORIGINS)
  --help            Print this

${KEYS_USAGE}`;

const DEFAULT_PORT = 4010;

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      empty: { type: 'boolean', default: false },
      'cors-origin': { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError('--port must be a whole number from 0 to 65535');
  }
  const corsOrigins = values['cors-origin'];
  for (const origin of corsOrigins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      throw new UsageError(
        `--cors-origin must be an origin, like http://localhost:5173: ${origin}`,
      );
    }
  }
  return {
    port,
    host: values.host ?? '127.0.0.1',
    corsOrigins,
    ...(values.empty && { seed: false as const }),
  };
}

function keyLines(): string[] {
  const numbers = { ...PLAN_QUOTAS, enterprise: ENTERPRISE_QUOTA };
  return Object.entries(numbers).map(
    ([plan, quota]) =>
      `  ${plan.padEnd(10)} ${MOCK_KEYS[plan as keyof typeof numbers]}  (${quota.perMinute}/minute, ${quota.perDay}/day)`,
  );
}

async function serve(argv: string[]): Promise<number> {
  const options = parseOptions(argv);
  if (options === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  const server = await startMockServer(options);
  process.stdout.write(
    [
      `Animal Store API mock listening on ${server.url} (API at ${server.url}/v1)`,
      'API keys:',
      ...keyLines(),
      `  revoked    ${MOCK_KEYS.revoked}  (answered 401)`,
      `More: npx @animal-store/mock keys create --plan pro --url ${server.url}`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command !== 'keys') return await serve(argv);
    process.stdout.write(`${await runKeysCommand(rest)}\n`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // parseArgs's own errors (an unknown flag) are misuse too.
    const misuse =
      error instanceof UsageError ||
      String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    if (!misuse) {
      console.error(message);
      return 1;
    }
    console.error(`${message}\n\n${command === 'keys' ? KEYS_USAGE : USAGE}`);
    return 2;
  }
}

// Not a top-level await: the same file builds as CommonJS too.
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
