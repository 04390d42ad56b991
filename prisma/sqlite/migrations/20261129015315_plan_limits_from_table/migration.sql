-- A key on a table plan (free, pro, business) follows the plan table in
-- apps/server/src/limits/plans.ts as it stands, so its row keeps no numbers: they are set to NULL
-- here. Only an enterprise key has numbers of its own, which the key store writes for it alone.
-- No CHECK says so: prisma/README.md, "Adding a migration", says why.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_api_keys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "label" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "per_minute" BIGINT,
    "per_day" BIGINT,
    "secret_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" DATETIME
);
INSERT INTO "new_api_keys" ("created_at", "id", "label", "per_day", "per_minute", "plan", "revoked_at", "secret_hash") SELECT "created_at", "id", "label", CASE WHEN "plan" = 'enterprise' THEN "per_day" END, CASE WHEN "plan" = 'enterprise' THEN "per_minute" END, "plan", "revoked_at", "secret_hash" FROM "api_keys";
DROP TABLE "api_keys";
ALTER TABLE "new_api_keys" RENAME TO "api_keys";
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
