/**
 * Which errors from a query mean that a record it required does not exist: the caller named
 * something that is not there (the server answers 404), neither a fault of the database nor a
 * bug in a statement. Prisma's query interpreter raises them after the statements ran, on both
 * databases alike: no driver adapter reports a missing record (a statement that matches no row
 * succeeds), so Prisma's codes are all there is to recognise.
 */
import { errorLayers } from './error-layers.js';

/**
 * Prisma's codes for a required record that does not exist (its error reference):
 * - P2025, "An operation failed because it depends on one or more records that were required
 *   but not found": an update or delete that matched no record, an `…OrThrow` read that found
 *   none, a nested connect to a missing record, a nested update of a missing related one.
 * - P2018, "The required connected records were not found": Prisma 7 raises it for a to-many
 *   connect that names a missing record.
 * - P2017, "The records for relation … are not connected": Prisma 7 raises it for a nested
 *   delete of a related record that is not there, whether it exists elsewhere or not at all,
 *   where the same nested update raises P2025.
 * - P2001, "The record searched for in the where condition … does not exist", and P2015, "A
 *   related record could not be found": the earlier query engine's codes for the same. Prisma
 *   7's client raises neither, but either one means this.
 *
 * Not these: P2003, a foreign key violated, names a constraint, not a record, and is raised as
 * much for deleting a record still referenced as for referring to a missing one; P2021 and
 * P2022, a table or column that does not exist, are the schema missing: a fault of the
 * deployment (`isDatabaseFault`).
 */
const RECORD_NOT_FOUND_CODES = new Set(['P2025', 'P2018', 'P2017', 'P2001', 'P2015']);

/**
 * Whether `error`, or anything under it (the layers `isDatabaseFault` looks through), says that
 * a record the operation required does not exist. None of these codes is a fault's, so an
 * error is never both a fault and a missing record.
 */
export function isRecordNotFound(error: unknown): boolean {
  for (const { code } of errorLayers(error)) {
    if (typeof code === 'string' && RECORD_NOT_FOUND_CODES.has(code)) return true;
  }
  return false;
}
