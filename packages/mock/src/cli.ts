#!/usr/bin/env node
/**
 * npx @animal-store/mock [--port 4010] [--host 127.0.0.1] [--empty] [--cors-origin <origin>]: serves the mock until
 * SIGINT or SIGTERM, after printing its URL and a key of each plan. Exit code 2 when misused.
 */
import { parseArgs } from 'node:util';
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
`;

const DEFAULT_PORT = 4010;

class UsageError extends Error {}

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

function keyLines(keys: Record<string, string>): string[] {
  const numbers = { ...PLAN_QUOTAS, enterprise: ENTERPRISE_QUOTA };
  return Object.entries(numbers).map(
    ([plan, quota]) =>
      `  ${plan.padEnd(10)} ${keys[plan]}  (${quota.perMinute}/minute, ${quota.perDay}/day)`,
  );
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  const server = await startMockServer(options);
  const { keys } = server.mock;
  process.stdout.write(
    [
      `Animal Store API mock listening on ${server.url} (API at ${server.url}/v1)`,
      'API keys:',
      ...keyLines({ ...keys }),
      `  revoked    ${keys.revoked}  (answered 401)`,
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

// Not a top-level await: the same file builds as CommonJS too.
void main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
