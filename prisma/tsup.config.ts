import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig, type Options } from 'tsup';

const require = createRequire(import.meta.url);

// The schema engine's wasm, which migrateDatabase loads from beside the bundle, so that the
// built (and deployed) package needs no Prisma CLI. See schema-engine/wasm-engine.mjs.
const ENGINE_WASM = 'schema_engine_bg.wasm';
const prismaCli = dirname(require.resolve('prisma/package.json'));

/**
 * The query compilers' wasm, loaded from beside the bundle too. Prisma's generated client
 * imports each from a module exporting it as one base64 string; an ES module is never unloaded,
 * so that string and the module's source (2.2 MB each) stayed live in every server for its
 * life. The bundle's client reads the wasm file instead; the build fails if Prisma's generated
 * loader no longer has the shape replaced here.
 */
const PROVIDERS = ['sqlite', 'postgresql'] as const;
const queryCompilerWasm = (provider: string) => `query_compiler_small_bg.${provider}.wasm`;
const BASE64_LOADER =
  /const \{ wasm \} = await import\("@prisma\/client\/runtime\/query_compiler_small_bg\.(\w+)\.wasm-base64\.mjs"\)\s*return await decodeBase64AsWasm\(wasm\)/;
const FILE_LOADER = (provider: string) =>
  `const { readFile } = await import('node:fs/promises')\n    return new WebAssembly.Module(await readFile(new URL('./${queryCompilerWasm(provider)}', import.meta.url)))`;

const queryCompilerFromFile: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'query-compiler-wasm-from-file',
  setup(build) {
    build.onLoad({ filter: /[\\/]generated[\\/]\w+[\\/]internal[\\/]class\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const loader = BASE64_LOADER.exec(source);
      if (!loader?.[1])
        throw new Error(`${args.path}: Prisma's wasm loader is not the one expected`);
      return { contents: source.replace(BASE64_LOADER, FILE_LOADER(loader[1])), loader: 'ts' };
    });
  },
};

async function writeWasmBesideBundle() {
  await copyFile(join(prismaCli, 'build', ENGINE_WASM), join('dist', ENGINE_WASM));
  for (const provider of PROVIDERS) {
    const base64Module = require.resolve(
      `@prisma/client/runtime/query_compiler_small_bg.${provider}.wasm-base64.mjs`,
    );
    const { wasm } = (await import(base64Module)) as { wasm: string };
    await writeFile(join('dist', queryCompilerWasm(provider)), Buffer.from(wasm, 'base64'));
  }
}

export default defineConfig({
  // The generated client, Prisma's client runtime and the schema-engine loader are bundled in,
  // so a deployed server needs neither @prisma/client nor the Prisma CLI (hundreds of MB) that
  // pnpm resolves as its optional peer. The runtime is CommonJS under the `node` condition: the
  // banner gives its bundled require() calls a real require.
  entry: ['src/index.ts'],
  noExternal: [/^@prisma\/client\//],
  esbuildPlugins: [queryCompilerFromFile],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  onSuccess: writeWasmBesideBundle,
});
