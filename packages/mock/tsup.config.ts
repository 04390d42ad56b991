import { defineConfig } from 'tsup';

export default defineConfig({
  // index.ts is the handler and the Node server, msw.ts the MSW handlers, cli.ts the `bin`.
  entry: ['src/index.ts', 'src/msw.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: ['src/index.ts', 'src/msw.ts'] },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  // The OpenAPI document is served as the contract built it: inlined, so that neither module
  // system has to import JSON from another package at run time.
  noExternal: ['@animal-store/contract/openapi.json'],
});
