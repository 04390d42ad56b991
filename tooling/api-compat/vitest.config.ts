import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace's packages from their sources, as the type check reads them: see
  // docs/decisions/008-workspace-reads-sources.md.
  ssr: { resolve: { conditions: ['@animal-store/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    // API Extractor builds a TypeScript program per report: seconds each on a busy machine.
    testTimeout: 60_000,
  },
});
