import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts', keys: 'src/keys/cli.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
});
