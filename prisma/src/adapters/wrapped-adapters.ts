import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/** `adapter` with the methods `overrides` names replaced, the rest delegated as they are. */
export function adapterWith(
  adapter: SqlDriverAdapter,
  overrides: Partial<Omit<SqlDriverAdapter, 'provider' | 'adapterName'>>,
): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
    ...overrides,
  };
}

/** A factory whose every connection is `factory`'s, passed through `wrap`. */
export function factoryWrapping(
  factory: SqlDriverAdapterFactory,
  wrap: (adapter: SqlDriverAdapter) => SqlDriverAdapter,
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => wrap(await factory.connect()),
  };
}
