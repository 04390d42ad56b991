import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'schema-engine/**/*.test.ts'],
    // Tests that also run on Node 24 (`pnpm test:node24`): CONTRIBUTING.md, "Tests", says which.
    tags: [
      {
        name: 'node-runtime',
        description: "Rests on Node's own behaviour, which can change between Node versions",
      },
    ],
    // The bridge tests run the Prisma CLI, several commands a test: about two seconds a command on
    // a quiet machine, but up to 25 s while CI runs every package's tests at once on two cores,
    // and on a slow day more (a test of four commands took 192 s in a clean-clone run).
    testTimeout: 420_000,
    // A suite's setup migrates databases the same way: 10 s (vitest's default) was seen to run out
    // while every package's tests ran beside it.
    hookTimeout: 180_000,
  },
});
