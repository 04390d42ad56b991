import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built command, as `npx @animal-store/conformance` runs it (turbo builds it before the tests). */
export const COMMAND = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

if (!existsSync(COMMAND)) {
  throw new Error(`${COMMAND} is missing: build @animal-store/conformance first (turbo does)`);
}
