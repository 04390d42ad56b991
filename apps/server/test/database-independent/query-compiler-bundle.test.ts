/**
 * The server loads the database package's bundle (`prisma/dist`), whose Prisma client reads its
 * query compiler from a wasm file beside it (prisma/tsup.config.ts). Prisma's own loader imports
 * the wasm as a base64 string from a module of its own; ES modules are never unloaded, so the
 * string and that module's source (2.2 MB each) stayed live in every server for its life. Every
 * test that starts the built server runs the loader replaced here; this one fails if the build
 * goes back to the base64 module.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../support/repository-checkout.js';

const databasePackage = join(REPOSITORY_ROOT, 'prisma');

/** Where the built server finds the package: its `exports` entry under Node's own conditions. */
async function bundleFolder(): Promise<string> {
  const manifest = JSON.parse(await readFile(join(databasePackage, 'package.json'), 'utf8')) as {
    exports: { '.': { default: string } };
  };
  return dirname(join(databasePackage, manifest.exports['.'].default));
}

it('the database bundle holds no base64 copy of a query compiler, and each is a wasm file beside it', async () => {
  const folder = await bundleFolder();
  const files = await readdir(folder);
  expect(files.filter((file) => file.includes('base64'))).toEqual([]);

  for (const provider of ['sqlite', 'postgresql']) {
    const wasmFile = `query_compiler_small_bg.${provider}.wasm`;
    expect(files).toContain(wasmFile);
    // A WebAssembly module: its magic number and version 1, then Prisma's compiler (MBs).
    const wasm = await readFile(join(folder, wasmFile));
    expect(wasm.subarray(0, 8)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    expect(wasm.length).toBeGreaterThan(1_000_000);
  }
  const bundle = await readFile(join(folder, 'index.js'), 'utf8');
  expect(bundle).not.toMatch(/decodeBase64AsWasm\d*\(wasm\)/);
});
