/**
 * The pg client of every pool the PostgreSQL adapter opens: pg's own, with the two things
 * adapter-pg needs of it that pg does not do, both in its one `query()`.
 */
import pg from 'pg';
import { reportUnknownSystemTypesAsText } from './postgres-system-types.js';

/** pg's error when the answer to a query has not come within `query_timeout`. */
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * What pg and pg-pool say, in their errors' messages alone, when a connection was lost, could
 * not be made in time (`connectionTimeoutMillis`) or gave no answer in time: parts of pg 8's
 * texts ("Connection terminated unexpectedly", "Client was closed and is not queryable", …).
 */
export const PG_CONNECTION_LOST_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  READ_TIMEOUT_MESSAGE,
  'is not queryable',
] as const;

type QueryCallback = (error: unknown, result: unknown) => void;

/** pg's query(), declared as a dozen overloads and implemented as one function taking them all. */
const pgQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * Marks `client` not queryable once an answer did not come in time. pg leaves such a client
 * connected and still waiting for that answer: a query sent next on it waits behind it for its
 * own whole deadline, and a pool hands it on to the next caller, since adapter-pg gives a
 * transaction's client back without an error. Not queryable, it fails at once, and pg-pool
 * closes it when it is given back (pg-pool reads the same private flag to decide that).
 */
function giveUpAfterReadTimeout(client: pg.Client, error: unknown) {
  if (error instanceof Error && error.message === READ_TIMEOUT_MESSAGE) {
    (client as unknown as { _queryable: boolean })._queryable = false;
  }
}

/**
 * pg's query(), its results' unmapped system types reported as text, and the client given up
 * after a read timeout. For the two forms pg-pool and adapter-pg call it in: a callback as the
 * last argument, or none, and the promise pg then returns.
 */
function query(this: pg.Client, ...args: unknown[]): unknown {
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === 'function') {
    args[last] = (error: unknown, result: unknown) => {
      giveUpAfterReadTimeout(this, error);
      (callback as QueryCallback)(error, error ? result : reportUnknownSystemTypesAsText(result));
    };
  }
  const returned = pgQuery.apply(this, args);
  return returned instanceof Promise
    ? returned.then(reportUnknownSystemTypesAsText, (error: unknown) => {
        giveUpAfterReadTimeout(this, error);
        throw error;
      })
    : returned;
}

export class PostgresClient extends pg.Client {}
Object.assign(PostgresClient.prototype, { query });
