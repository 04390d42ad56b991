import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';

/** One statement the database ran (or refused), as the client's `onQuery` observer sees it. */
export interface QueryEvent {
  durationMs: number;
  failed: boolean;
}

export type QueryObserver = (event: QueryEvent) => void;

function timed<T>(observe: QueryObserver, run: () => Promise<T>): Promise<T> {
  const startedAt = performance.now();
  return run().then(
    (result) => {
      observe({ durationMs: performance.now() - startedAt, failed: false });
      return result;
    },
    (error: unknown) => {
      observe({ durationMs: performance.now() - startedAt, failed: true });
      throw error;
    },
  );
}

/** `queryable`'s statements, each reported to `observe`; the rest of it delegated as it is. */
function observedQueries<T extends SqlQueryable>(queryable: T, observe: QueryObserver) {
  return {
    provider: queryable.provider,
    adapterName: queryable.adapterName,
    queryRaw: (query: SqlQuery) => timed(observe, () => queryable.queryRaw(query)),
    executeRaw: (query: SqlQuery) => timed(observe, () => queryable.executeRaw(query)),
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
  return {
    ...observedQueries(adapter, observe),
    executeScript: (script) => timed(observe, () => adapter.executeScript(script)),
    startTransaction: async (isolationLevel) =>
      observedTransaction(await adapter.startTransaction(isolationLevel), observe),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
  };
}

/**
 * A driver adapter factory whose connections report every statement they run: its duration and
 * whether it failed. This is where a Prisma client's database traffic can be counted and timed.
 */
export function observedAdapterFactory(
  factory: SqlDriverAdapterFactory,
  observe: QueryObserver,
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => observedAdapter(await factory.connect(), observe),
  };
}
