import { defineConfig } from 'prisma/config';

// Read by the Prisma CLI only; the server passes its URL to createPrismaClient/migrateDatabase.
export default defineConfig({
  schema: 'sqlite/schema.prisma',
  migrations: { path: 'sqlite/migrations' },
  datasource: {
    // Relative file: URLs resolve against this folder (the CLI runs the engine here).
    url: process.env.DATABASE_URL ?? 'file:./dev.db',
  },
});
