import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import type { TestProject } from 'vitest/node';
import buildConfig from '../../tsup.config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the server built for this run: `main.js` and `keys.js`. */
    serverBuild: string;
  }
}

const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The server built once for the run, as `pnpm build` builds it (tsup.config.ts), for the tests
 * that start it as a process: `node main.js` starts in half the time `tsx src/main.ts` takes, and
 * the suite starts it and its key command some hundred times. Built from the working tree at the
 * start of every run, so it is never stale; in a folder of its own (under node_modules, where the
 * built files find the server's dependencies), so it never meets `dist/`, which other packages'
 * tests start meanwhile.
 */
export default async function setup(project: TestProject) {
  if (typeof buildConfig === 'function' || Array.isArray(buildConfig)) {
    throw new Error(
      'tsup.config.ts is no longer one set of options: see test/support/server-build.ts',
    );
  }
  const entry = Object.fromEntries(
    Object.entries(buildConfig.entry as Record<string, string>).map(([name, file]) => [
      name,
      join(SERVER_ROOT, file),
    ]),
  );
  const cache = join(SERVER_ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const folder = await mkdtemp(join(cache, 'test-server-'));
  await build({
    ...buildConfig,
    entry,
    outDir: folder,
    tsconfig: join(SERVER_ROOT, 'tsconfig.json'),
    silent: true,
  });
  project.provide('serverBuild', folder);
  return () => rm(folder, { recursive: true, force: true });
}
