import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateDatabase } from '@animal-store/db';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabaseFile: string;
  }
}

/** Migrates one template database for the whole run; each test file then works on its own copy. */
export default async function setup(project: TestProject) {
  const folder = await mkdtemp(join(tmpdir(), 'animal-store-template-'));
  const templateDatabaseFile = join(folder, 'template.db');
  await migrateDatabase(`file:${templateDatabaseFile}`);
  project.provide('templateDatabaseFile', templateDatabaseFile);
  return () => rm(folder, { recursive: true, force: true });
}
