import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Rule tests are CPU-light; server and checker tests start real processes and databases.
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'checker',
          include: ['checker/tests/**/*.test.ts'],
          // A real PostgreSQL server for the run (DATABASE_URL, else an embedded one); started
          // only when checker tests are selected.
          globalSetup: ['checker/tests/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{rules,server,fixtures,extension}/tests/**/*.test.ts', 'bench/**/*.test.ts'],
        },
      },
    ],
  },
});
