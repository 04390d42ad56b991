#!/usr/bin/env node
// @ts-check
/**
 * Runs the Prisma CLI with the wasm schema-engine bridge as its schema engine:
 *
 *   node schema-engine/with-bridge.mjs migrate dev --name add-owner
 *
 * An explicitly set PRISMA_SCHEMA_ENGINE_BINARY (a native engine) wins over the bridge.
 */
import { spawn } from 'node:child_process';
import { accessSync, chmodSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const bridge = fileURLToPath(new URL('./bridge.mjs', import.meta.url));
try {
  accessSync(bridge, constants.X_OK);
} catch {
  // Packing or copying can drop the executable bit, and the CLI spawns the file directly.
  chmodSync(bridge, 0o755);
}

const prismaCli = createRequire(import.meta.url).resolve('prisma/build/index.js');
const child = spawn(process.execPath, [prismaCli, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || bridge,
    // The bridge's `#!/usr/bin/env node` then finds the Node that runs this launcher.
    PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
  },
});

for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, as a shell expects from the command it ran.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exitCode = code ?? 1;
  }
});
