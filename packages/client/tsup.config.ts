import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  // Runs in Node 20+ and in current browsers, so no Node-specific output.
  target: 'es2022',
  platform: 'neutral',
});
