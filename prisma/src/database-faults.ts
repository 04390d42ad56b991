/**
 * Which errors from the database mean it cannot be reached or cannot serve: a fault of the
 * deployment that heals (the server answers 503), not a bug in a statement. Prisma's codes, the
 * driver adapters' error kinds, SQLite's result codes and node-postgres's messages, each
 * recognised here, beside the drivers this package configures.
 */
import { PG_CONNECTION_LOST_MESSAGES } from './adapters/postgres-client.js';
import { type ErrorLayer, errorLayers } from './error-layers.js';

/** Prisma's "cannot reach / lost the database" codes, and the socket errors under them. */
const UNAVAILABLE_CODES = new Set([
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  // A transaction that got no connection within its wait (the pool stayed busy past the
  // connect deadline), or ran past its own deadline: the database could not serve in time.
  'P2028',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: a statement ran past statement_timeout; the server is shutting down, was told
  // to end this backend, or is starting up.
  '57014',
  '57P01',
  '57P02',
  '57P03',
]);

/**
 * Driver-adapter error kinds for the same conditions. A table that does not exist means the
 * database under the server was replaced or emptied: a fault of the deployment, not a bug.
 */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TableDoesNotExist',
]);

/**
 * SQLite's primary result codes for a file that cannot serve: no permission, read-only,
 * out of memory, I/O error, corrupt, disk full, cannot open, lock protocol, not a database.
 */
const SQLITE_FAULT_CODES = new Set([3, 7, 8, 10, 11, 13, 14, 15, 26]);

function isSqliteFault(kind: unknown, extendedCode: unknown): boolean {
  // SQLite's extended codes carry the primary code in their low byte.
  return (
    kind === 'sqlite' &&
    typeof extendedCode === 'number' &&
    SQLITE_FAULT_CODES.has(extendedCode & 0xff)
  );
}

function saysConnectionLost(message: unknown): boolean {
  return (
    typeof message === 'string' &&
    PG_CONNECTION_LOST_MESSAGES.some((lost) => message.includes(lost))
  );
}

function saysUnavailable({ code, name, kind, extendedCode, message }: ErrorLayer): boolean {
  return (
    (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) ||
    (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) ||
    isSqliteFault(kind, extendedCode) ||
    name === 'PrismaClientInitializationError' ||
    saysConnectionLost(message)
  );
}

/**
 * Whether `error`, or anything under it (its `cause` chain, the driver-adapter error Prisma
 * keeps in `meta`), says the database cannot be reached or cannot serve.
 */
export function isDatabaseFault(error: unknown): boolean {
  for (const layer of errorLayers(error)) {
    if (saysUnavailable(layer)) return true;
  }
  return false;
}
