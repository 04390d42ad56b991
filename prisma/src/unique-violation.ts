import { errorLayers } from './error-layers.js';

/** Prisma's code for a write a unique key refused, on both databases. */
const UNIQUE_VIOLATION = 'P2002';

/**
 * Whether `error`, or anything under it (the layers `isDatabaseFault` looks through), says that
 * a unique key refused the write: a row with its key is there already, committed by someone
 * else, which callers read as a race lost (an idempotency key taken, a secret stored first).
 */
export function isUniqueViolation(error: unknown): boolean {
  for (const { code } of errorLayers(error)) if (code === UNIQUE_VIOLATION) return true;
  return false;
}
