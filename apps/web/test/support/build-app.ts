/**
 * Vitest global setup: the tests drive the built app, so build it from the current sources,
 * into a folder of the tests' own: turbo may be building `dist` at the same moment.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { TEST_BUILD } from './static-server.js';

export default async function buildApp(): Promise<void> {
  // Vitest sets NODE_ENV=test, which would give a development React build; build as users do.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: fileURLToPath(new URL('../..', import.meta.url)),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir: TEST_BUILD, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}
