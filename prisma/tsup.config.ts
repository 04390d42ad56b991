import { copyFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig } from 'tsup';

// The schema engine's wasm, which migrateDatabase loads from beside the bundle, so that the
// built (and deployed) package needs no Prisma CLI. See schema-engine/wasm-engine.mjs.
const ENGINE_WASM = 'schema_engine_bg.wasm';
const prismaCli = dirname(createRequire(import.meta.url).resolve('prisma/package.json'));

export default defineConfig({
  // The generated client, Prisma's client runtime and the schema-engine loader are bundled in,
  // so a deployed server needs neither @prisma/client nor the Prisma CLI (hundreds of MB) that
  // pnpm resolves as its optional peer. The runtime is CommonJS under the `node` condition: the
  // banner gives its bundled require() calls a real require.
  entry: ['src/index.ts'],
  noExternal: [/^@prisma\/client\//],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  onSuccess: () => copyFile(join(prismaCli, 'build', ENGINE_WASM), join('dist', ENGINE_WASM)),
});
