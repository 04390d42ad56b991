import { migrateDatabase } from '@animal-store/db';
import type { TestProject } from 'vitest/node';
import { providerOf, templateLocation } from '../../testing/test-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/**
 * Migrates one template database for each project's run (on the database the project's
 * environment names); each test file then works on its own copy.
 */
export default async function setup(project: TestProject) {
  const template = await templateLocation(providerOf(project.config.env));
  await migrateDatabase(template.url);
  project.provide('templateDatabase', template.template);
  return () => template.drop();
}
