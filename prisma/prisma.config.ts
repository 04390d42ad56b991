import { defineConfig } from 'prisma/config';

// Read by the Prisma CLI only; the server passes its URL to createPrismaClient/migrateDatabase.
// Prisma takes one provider per schema and one migration history per provider: the scheme of
// DATABASE_URL picks the PostgreSQL or the SQLite schema and migrations.
const url = process.env.DATABASE_URL || 'file:./dev.db';
const provider = /^postgres(ql)?:/.test(url) ? 'postgresql' : 'sqlite';

export default defineConfig({
  schema: `${provider}/schema.prisma`,
  migrations: { path: `${provider}/migrations` },
  datasource: {
    // Relative file: URLs resolve against this folder (the CLI runs the engine here).
    url,
    // Optional, PostgreSQL only: a database `migrate dev` may wipe. Without it, the bridge
    // creates a temporary shadow database and drops it afterwards.
    ...(process.env.SHADOW_DATABASE_URL
      ? { shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL }
      : {}),
  },
});
