import { defineConfig } from 'tsup';

export default defineConfig((options) => ({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  // Watch mode rewrites in place: a cleaned folder would break the apps reading it meanwhile.
  clean: !options.watch,
  // Runs in Node 20+ and in current browsers, so no Node-specific output.
  target: 'es2022',
  platform: 'neutral',
}));
