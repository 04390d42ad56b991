export type { ApiKey, IdempotencyRecord, Pet, ServerSecret } from '../generated/sqlite/client.js';
export { Prisma } from '../generated/sqlite/client.js';
export {
  createPrismaClient,
  type DatabaseClient,
  type DatabaseClientOptions,
  DEFAULT_DATABASE_CLIENT_OPTIONS,
  databaseProvider,
  type PoolStats,
  poolStatsOf,
} from './client.js';
export { joinNextTurn } from './event-loop-turns.js';
export { migrateDatabase } from './migrate.js';
export type { QueryEvent, QueryObserver } from './observed-adapter.js';
