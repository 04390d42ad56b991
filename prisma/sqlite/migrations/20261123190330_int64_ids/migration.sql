/*
  Warnings:

  - You are about to alter the column `per_day` on the `api_keys` table. The data in that column could be lost. The data in that column will be cast from `Int` to `BigInt`.
  - You are about to alter the column `per_minute` on the `api_keys` table. The data in that column could be lost. The data in that column will be cast from `Int` to `BigInt`.
  - You are about to alter the column `pet_id` on the `idempotency_records` table. The data in that column could be lost. The data in that column will be cast from `Int` to `BigInt`.

*/
-- Nothing is lost: each table is copied row by row, and INTEGER and BIGINT columns hold the same
-- 64-bit integers in SQLite; the declared type only tells Prisma to read a bigint.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_api_keys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "label" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "per_minute" BIGINT NOT NULL,
    "per_day" BIGINT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" DATETIME
);
INSERT INTO "new_api_keys" ("created_at", "id", "label", "per_day", "per_minute", "plan", "revoked_at", "secret_hash") SELECT "created_at", "id", "label", "per_day", "per_minute", "plan", "revoked_at", "secret_hash" FROM "api_keys";
DROP TABLE "api_keys";
ALTER TABLE "new_api_keys" RENAME TO "api_keys";
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");
CREATE TABLE "new_idempotency_records" (
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "pet_id" BIGINT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("scope", "key")
);
INSERT INTO "new_idempotency_records" ("created_at", "key", "pet_id", "request_hash", "scope") SELECT "created_at", "key", "pet_id", "request_hash", "scope" FROM "idempotency_records";
DROP TABLE "idempotency_records";
ALTER TABLE "new_idempotency_records" RENAME TO "idempotency_records";
CREATE INDEX "idempotency_records_created_at_idx" ON "idempotency_records"("created_at");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Pet ids end at 2^53 - 1, the largest integer JSON carries exactly: an insert past it fails
-- rather than create a pet the service cannot serve (PostgreSQL: the MAXVALUE of pets_id_seq).
-- AFTER INSERT, since an AUTOINCREMENT id is not assigned yet when BEFORE triggers run. Prisma's
-- schema knows no triggers: a migration that redefines "pets" must create this one again.
CREATE TRIGGER "pets_id_within_json_range" AFTER INSERT ON "pets"
WHEN NEW."id" > 9007199254740991
BEGIN
    SELECT RAISE(ABORT, 'pet ids end at 9007199254740991, the largest integer JSON carries exactly');
END;
