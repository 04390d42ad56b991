import { migrateDatabase } from '@animal-store/db';
import type { TestProject } from 'vitest/node';
import { templateLocation } from '../../testing/test-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/** Migrates one template database for the whole run; each test file then works on its own copy. */
export default async function setup(project: TestProject) {
  const template = await templateLocation();
  await migrateDatabase(template.url);
  project.provide('templateDatabase', template.template);
  return () => template.drop();
}
