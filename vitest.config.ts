import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{rules,server,checker,fixtures,extension}/tests/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Rule tests are CPU-light; server and checker tests start real processes and databases.
    pool: 'forks',
  },
});
