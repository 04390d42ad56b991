import { defineConfig } from 'tsup';

export default defineConfig({
  // index.ts is the library, for programs that run the check themselves; cli.ts is the `bin`.
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
});
