import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // As the server suite's: beside every other suite of the test command on two cores, a test
    // took up to ten times its quiet time (the documents' walk of the repository: 5 s against 0.5).
    testTimeout: 60_000,
  },
});
