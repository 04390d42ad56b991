import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { adapterWith, factoryWrapping } from './wrapped-adapters.js';

/**
 * One statement the database ran (or refused), as the client's `onQuery` observer sees it.
 */
export interface QueryEvent {
  /** The statement as sent: SQL with placeholders, never the values bound to them. */
  sql: string;
  /** When it was sent (`performance.now()`). */
  startedAt: number;
  durationMs: number;
  failed: boolean;
  /** What the driver threw, when the statement failed. */
  error?: unknown;
}

export type QueryObserver = (event: QueryEvent) => void;

function timed<T>(observe: QueryObserver, sql: string, run: () => Promise<T>): Promise<T> {
  const startedAt = performance.now();
  return run().then(
    (result) => {
      observe({ sql, startedAt, durationMs: performance.now() - startedAt, failed: false });
      return result;
    },
    (error: unknown) => {
      const durationMs = performance.now() - startedAt;
      observe({ sql, startedAt, durationMs, failed: true, error });
      throw error;
    },
  );
}

/** `queryable`'s statements, each reported to `observe`; the rest of it delegated as it is. */
function observedQueries<T extends SqlQueryable>(queryable: T, observe: QueryObserver) {
  return {
    provider: queryable.provider,
    adapterName: queryable.adapterName,
    queryRaw: (query: SqlQuery) => timed(observe, query.sql, () => queryable.queryRaw(query)),
    executeRaw: (query: SqlQuery) => timed(observe, query.sql, () => queryable.executeRaw(query)),
  };
}

function observedTransaction(transaction: Transaction, observe: QueryObserver): Transaction {
  return {
    ...observedQueries(transaction, observe),
    options: transaction.options,
    commit: () => transaction.commit(),
    rollback: () => transaction.rollback(),
    createSavepoint: transaction.createSavepoint?.bind(transaction),
    rollbackToSavepoint: transaction.rollbackToSavepoint?.bind(transaction),
    releaseSavepoint: transaction.releaseSavepoint?.bind(transaction),
  };
}

function observedAdapter(adapter: SqlDriverAdapter, observe: QueryObserver): SqlDriverAdapter {
  return adapterWith(adapter, {
    ...observedQueries(adapter, observe),
    executeScript: (script) => timed(observe, script, () => adapter.executeScript(script)),
    startTransaction: async (isolationLevel) =>
      observedTransaction(await adapter.startTransaction(isolationLevel), observe),
  });
}

/**
 * A driver adapter factory whose connections report every statement they run: its text, when it
 * was sent, its duration and whether it failed. This is where a Prisma client's database traffic
 * can be counted, timed and traced.
 */
export function observedAdapterFactory(
  factory: SqlDriverAdapterFactory,
  observe: QueryObserver,
): SqlDriverAdapterFactory {
  return factoryWrapping(factory, (adapter) => observedAdapter(adapter, observe));
}
