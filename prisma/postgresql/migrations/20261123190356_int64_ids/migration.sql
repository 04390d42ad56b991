-- Pet ids, the idempotency records' pet ids and the enterprise limits become 64-bit (issue 14).
-- Written by hand: Prisma generated `ALTER COLUMN "id" SET DATA TYPE BIGSERIAL` between dropping
-- and re-adding the primary key, and bigserial is no type a column can be altered to
-- (prisma/prisma#16825). ALTER COLUMN TYPE rewrites each table with its rows and rebuilds its
-- indexes, the primary key included.

-- AlterTable
ALTER TABLE "api_keys" ALTER COLUMN "per_minute" SET DATA TYPE BIGINT,
ALTER COLUMN "per_day" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "idempotency_records" ALTER COLUMN "pet_id" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "pets" ALTER COLUMN "id" SET DATA TYPE BIGINT;

-- A SERIAL's sequence is an integer one, ending at 2^31 - 1: make it a bigint one, ending at
-- 2^53 - 1, the largest integer JSON carries exactly. Past it nextval fails, so no pet is created
-- that the service cannot serve (SQLite: the trigger pets_id_within_json_range).
ALTER SEQUENCE "pets_id_seq" AS BIGINT MAXVALUE 9007199254740991;
