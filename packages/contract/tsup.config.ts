import { defineConfig } from 'tsup';

export default defineConfig((options) => ({
  entry: {
    index: 'src/index.ts',
    openapi: 'src/openapi.ts',
    'examples/index': 'src/examples/index.ts',
    'rules/index': 'src/rules/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  // Watch mode rewrites in place: a cleaned folder would break the apps reading it meanwhile.
  clean: !options.watch,
  target: 'node20',
  // The document as a file, `@animal-store/contract/openapi.json`, from the code just built.
  onSuccess: 'node scripts/write-openapi-json.mjs',
}));
