import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
} from '@prisma/driver-adapter-utils';

/** What a statement's reply passes through before Prisma goes on with it. */
export type ReplyContinuation = <T>(reply: Promise<T>) => Promise<T>;

function adapterContinuingReplies(
  adapter: SqlDriverAdapter,
  continueReply: ReplyContinuation,
): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query: SqlQuery) => continueReply(adapter.queryRaw(query)),
    executeRaw: (query: SqlQuery) => continueReply(adapter.executeRaw(query)),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
  };
}

/**
 * A driver adapter factory whose connections hand each statement's reply to `continueReply`,
 * and Prisma the promise it returns: the caller decides when Prisma goes on. Statements of
 * interactive transactions and scripts are answered as they are.
 */
export function repliesContinuedBy(
  factory: SqlDriverAdapterFactory,
  continueReply: ReplyContinuation,
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => adapterContinuingReplies(await factory.connect(), continueReply),
  };
}
