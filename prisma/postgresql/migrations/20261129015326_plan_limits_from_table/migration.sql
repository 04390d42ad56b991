-- A key on a table plan (free, pro, business) follows the plan table in
-- apps/server/src/limits/plans.ts as it stands, so its row keeps no numbers: they are set to NULL
-- here. Only an enterprise key has numbers of its own, which the key store writes for it alone.
-- No CHECK says so: prisma/README.md, "Adding a migration", says why.

-- AlterTable
ALTER TABLE "api_keys" ALTER COLUMN "per_minute" DROP NOT NULL,
ALTER COLUMN "per_day" DROP NOT NULL;

UPDATE "api_keys" SET "per_minute" = NULL, "per_day" = NULL WHERE "plan" <> 'enterprise';
