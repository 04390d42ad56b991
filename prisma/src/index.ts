export type { ApiKey, IdempotencyRecord, Pet, ServerSecret } from '../generated/sqlite/client.js';
export { Prisma } from '../generated/sqlite/client.js';
export type { ReplyContinuation } from './adapters/continued-replies.js';
export type { QueryEvent, QueryObserver } from './adapters/observed-adapter.js';
export type { TextRead } from './adapters/text-reads.js';
export {
  createPrismaClient,
  type DatabaseClient,
  type DatabaseClientOptions,
  DEFAULT_DATABASE_CLIENT_OPTIONS,
  databaseProvider,
  type PoolStats,
  poolStatsOf,
  providerOf,
  textReaderOf,
} from './client.js';
export { isDatabaseFault } from './database-faults.js';
export { migrateDatabase } from './migrate.js';
export { isRecordNotFound } from './record-not-found.js';
export { isUniqueViolation } from './unique-violation.js';
