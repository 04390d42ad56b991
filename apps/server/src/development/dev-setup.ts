/**
 * The first step of `pnpm dev`: migrates the development database (creating it on the first
 * run), seeds a few animals into an empty one, and prints a development API key with the URLs.
 * The key is kept beside the default database, so every later `pnpm dev` prints the same one.
 * Only the raw key can authenticate and the server stores only its hash, so this file is what
 * lets a restart show it again; it is git-ignored with the rest of `data/`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_PETS } from '@animal-store/contract/examples';
import { createPrismaClient, type DatabaseClient, migrateDatabase } from '@animal-store/db';
import { z } from 'zod';
import { configOrExit, DATA_FOLDER } from '../config.js';
import { createApiKeyStore, hashSecret } from '../keys/api-key-store.js';
import { createPetStore } from '../pets/pet-store.js';
import { exitWhenIdle } from '../process-exit.js';

const DEV_KEY_FILE = join(DATA_FOLDER, 'dev-api-key.json');

const SavedKeySchema = z.object({ databaseUrl: z.string(), key: z.string() });
type SavedKey = z.infer<typeof SavedKeySchema>;

/** The saved key, or nothing when the file is missing or unreadable (a new key replaces it). */
async function readSavedKey(): Promise<SavedKey | undefined> {
  try {
    const parsed = SavedKeySchema.safeParse(JSON.parse(await readFile(DEV_KEY_FILE, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The saved key while it still works on this database; otherwise a new one, saved. */
async function developmentKey(db: DatabaseClient, databaseUrl: string): Promise<string> {
  const keys = createApiKeyStore(db);
  const saved = await readSavedKey();
  if (saved?.databaseUrl === databaseUrl && (await keys.findActiveByHash(hashSecret(saved.key)))) {
    return saved.key;
  }
  // Business limits: generous for development, and still the real rate-limit headers.
  const { secret } = await keys.create({
    label: 'pnpm dev',
    plan: 'business',
  });
  await mkdir(DATA_FOLDER, { recursive: true });
  await writeFile(DEV_KEY_FILE, `${JSON.stringify({ databaseUrl, key: secret })}\n`, {
    mode: 0o600,
  });
  return secret;
}

async function seedAnimals(db: DatabaseClient): Promise<number> {
  if ((await db.pet.count()) > 0) return 0;
  await createPetStore(db).insertPets(DEMO_PETS);
  return DEMO_PETS.length;
}

const config = configOrExit();
await migrateDatabase(config.DATABASE_URL);
const db = createPrismaClient(config.DATABASE_URL);
try {
  const seeded = await seedAnimals(db);
  const key = await developmentKey(db, config.DATABASE_URL);
  const api = `http://localhost:${config.PORT}`;
  const web = `http://localhost:${process.env.WEB_PORT ?? 5173}`;
  const banner = [
    '',
    'Animal Store development',
    `  Web app   ${web}`,
    `  API       ${api}/v1/pets`,
    `  API docs  ${api}/docs`,
    `  API key   ${key}`,
    `  Database  ${config.DATABASE_URL}${seeded ? ` (new: ${seeded} sample animals added)` : ''}`,
    '',
    '',
  ].join('\n');
  process.stdout.write(banner);
} finally {
  await db.$disconnect();
}
exitWhenIdle(0);
