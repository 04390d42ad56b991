import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'schema-engine/**/*.test.ts'],
    // The bridge tests run the Prisma CLI, about two seconds a command.
    testTimeout: 60_000,
  },
});
