/** Vitest global setup: the tests drive the built app, so build it from the current sources. */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

export default async function buildApp(): Promise<void> {
  // Vitest sets NODE_ENV=test, which would give a development React build; build as users do.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: fileURLToPath(new URL('../..', import.meta.url)),
      mode: 'production',
      logLevel: 'warn',
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}
