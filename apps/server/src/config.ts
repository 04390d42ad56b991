import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DATABASE_CLIENT_OPTIONS } from '@animal-store/db';
import { z } from 'zod';
import { parseTrustProxy } from './access/client-address.js';
import { DEFAULT_CLIENT_TIMEOUTS, DEFAULT_MAX_CONNECTIONS } from './http/limits.js';
import { DEFAULT_MAX_SUBJECTS } from './limits/memory-store.js';
import { DEFAULT_REDIS_KEY_PREFIX, DEFAULT_REDIS_TIMEOUTS } from './limits/redis-store.js';
import { DEFAULT_LOG_BUFFER_BYTES } from './logger.js';
import { DEFAULT_CONCURRENCY_LIMIT } from './overload/concurrency-limit.js';
import { DEFAULT_MAX_WAIT_MS } from './overload/load-shedding.js';
import { DEFAULT_SHUTDOWN } from './shutdown.js';

/** The server's own files (the default SQLite database, the development key): `<server package>/data/`. */
export const DATA_FOLDER = fileURLToPath(new URL('../data/', import.meta.url));

/** Where the embedded SQLite database lives when DATABASE_URL is not set. */
const DEFAULT_DATABASE_FILE = join(DATA_FOLDER, 'animal-store.db');

/** Which proxies' `X-Forwarded-For` is believed (`access/client-address.ts`). */
const TrustProxySchema = z
  .string()
  .default('false')
  .transform((value, context) => {
    const parsed = parseTrustProxy(value);
    if (!(parsed instanceof Error)) return parsed;
    context.addIssue({ code: z.ZodIssueCode.custom, message: parsed.message });
    return z.NEVER;
  });

/**
 * Whether `value` is an origin (what `Link` URLs and the OpenAPI document's `servers` begin
 * with): http or https, a host, a port perhaps, and nothing after it but a `/`.
 */
function isOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    !value.includes('?') &&
    !value.includes('#')
  );
}

/**
 * A whole number from `min` to `max`, written in decimal digits: `0x1269` or `1e3` are refused,
 * not read as 4713 or 1000.
 */
const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^[0-9]+$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const port = () => wholeNumber(0, 65535);

/** A deadline in milliseconds: from 10 ms to 10 minutes. */
const milliseconds = (fallback: number) => wholeNumber(10, 600_000).default(String(fallback));

/** A wait in milliseconds that may be skipped altogether: from 0 to 10 minutes. */
const waitMilliseconds = (fallback: number) => wholeNumber(0, 600_000).default(String(fallback));

/** Every setting the server reads from its environment; the operations document lists each. */
export const ConfigSchema = z.object({
  PORT: port().default('3000'),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^(file:|postgres(ql)?:\/\/)/, 'must start with file: or postgresql://')
    .default(`file:${DEFAULT_DATABASE_FILE}`),
  PUBLIC_URL: z
    .string()
    .refine(isOrigin, 'must be an origin: http(s)://host[:port], with no path, query or fragment')
    .transform((url) => new URL(url).origin)
    .optional(),
  DATABASE_POOL_SIZE: wholeNumber(1, 1000).default('10'),
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds(DEFAULT_DATABASE_CLIENT_OPTIONS.statementTimeoutMs),
  DATABASE_CONNECT_TIMEOUT_MS: milliseconds(DEFAULT_DATABASE_CLIENT_OPTIONS.connectTimeoutMs),
  DATABASE_QUERY_TIMEOUT_MS: milliseconds(DEFAULT_DATABASE_CLIENT_OPTIONS.queryTimeoutMs),
  DATABASE_BUSY_TIMEOUT_MS: milliseconds(DEFAULT_DATABASE_CLIENT_OPTIONS.busyTimeoutMs),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  REDIS_CONNECT_TIMEOUT_MS: milliseconds(DEFAULT_REDIS_TIMEOUTS.connectTimeoutMs),
  REDIS_COMMAND_TIMEOUT_MS: milliseconds(DEFAULT_REDIS_TIMEOUTS.commandTimeoutMs),
  REDIS_KEY_PREFIX: z.string().min(1).max(100).default(DEFAULT_REDIS_KEY_PREFIX),
  IPV6_PREFIX_LENGTH: wholeNumber(32, 128).default('64'),
  RATE_LIMIT_MAX_SUBJECTS: wholeNumber(1_000).default(String(DEFAULT_MAX_SUBJECTS)),
  TRUST_PROXY: TrustProxySchema,
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.string().refine(
          (origin) => URL.canParse(origin) && new URL(origin).origin === origin,
          (origin) => ({ message: `"${origin}" is not an origin like https://shop.example.com` }),
        ),
      ),
    ),
  MAX_CONNECTIONS: wholeNumber(1, 1_000_000).default(String(DEFAULT_MAX_CONNECTIONS)),
  OVERLOAD_TARGET_LATENCY_MS: wholeNumber(1, 60_000).default(
    String(DEFAULT_CONCURRENCY_LIMIT.targetLatencyMs),
  ),
  OVERLOAD_MAX_WAIT_MS: milliseconds(DEFAULT_MAX_WAIT_MS),
  HTTP_HEADERS_TIMEOUT_MS: milliseconds(DEFAULT_CLIENT_TIMEOUTS.headersMs),
  HTTP_REQUEST_TIMEOUT_MS: milliseconds(DEFAULT_CLIENT_TIMEOUTS.requestMs),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds(DEFAULT_CLIENT_TIMEOUTS.keepAliveMs),
  SHUTDOWN_DRAIN_MS: waitMilliseconds(DEFAULT_SHUTDOWN.drainMs),
  SHUTDOWN_GRACE_MS: milliseconds(DEFAULT_SHUTDOWN.graceMs),
  METRICS_PORT: port().optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_BUFFER_BYTES: wholeNumber(16_384).default(String(DEFAULT_LOG_BUFFER_BYTES)),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
});

export type Config = z.infer<typeof ConfigSchema>;

/**
 * Settings whose default is another deployment, not another value: unset, the server runs on its
 * own SQLite file, or counts rate limits in-process. Set to nothing (a secret a template did not
 * fill in), they are refused rather than taken as unset.
 */
const NEVER_BLANK = new Set(['DATABASE_URL', 'REDIS_URL']);

/**
 * The settings of `env` that are set: a variable set to nothing or spaces (`PORT=`, as a template
 * leaves it) is unset, and its default applies, rather than read as `0` or as an empty name.
 */
function setVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name, value]) => value?.trim() !== '' || NEVER_BLANK.has(name)),
  );
}

/** Reads and validates the environment once; a bad setting stops the server with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(setVariables(env));
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `  ${issue.path.join('.')}: ${issue.message}`,
  );
  throw new ConfigurationError(`Invalid configuration:\n${problems.join('\n')}`);
}

/** A setting the server cannot run with: said as is, with no stack, for an operator to fix. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

/**
 * The config, or, for a bad setting, the process ends with the problems on stderr and exit code
 * 1, with none of our code's insides (the server and `pnpm dev` start this way).
 */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    // Only modules have loaded: no hot code is being compiled on V8's threads, the one thing that
    // can hold up process.exit() (process-exit.ts).
    process.exit(1);
  }
}
