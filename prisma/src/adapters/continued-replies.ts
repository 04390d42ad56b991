import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { adapterWith, factoryWrapping } from './wrapped-adapters.js';

/** What a statement's reply passes through before Prisma goes on with it. */
export type ReplyContinuation = <T>(reply: Promise<T>) => Promise<T>;

/**
 * A driver adapter factory whose connections hand each statement's reply to `continueReply`,
 * and Prisma the promise it returns: the caller decides when Prisma goes on. Statements of
 * interactive transactions and scripts are answered as they are.
 */
export function repliesContinuedBy(
  factory: SqlDriverAdapterFactory,
  continueReply: ReplyContinuation,
): SqlDriverAdapterFactory {
  return factoryWrapping(factory, (adapter) =>
    adapterWith(adapter, {
      queryRaw: (query) => continueReply(adapter.queryRaw(query)),
      executeRaw: (query) => continueReply(adapter.executeRaw(query)),
    }),
  );
}
