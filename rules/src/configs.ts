import type { Linter } from 'eslint';

/**
 * The files `recommended` applies to: JavaScript and TypeScript in every module flavour. Without
 * a `files` entry ESLint lints only `.js`/`.mjs`/`.cjs`, and a TypeScript project would get no
 * finding at all. TypeScript still needs a parser (`tseslint.configs.base` or
 * `@typescript-eslint/parser`), as any rule over TypeScript does.
 */
export const RECOMMENDED_FILES = ['**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}'] as const;

/** Rules in `recommended`: each catches a late-write hazard with few false reports. */
export const recommendedRules: Linter.RulesRecord = {
  'fencelint/require-fence-condition': 'error',
  'fencelint/require-token-update': 'error',
  'fencelint/require-stale-check': 'error',
  'fencelint/no-release-by-name': 'error',
  'fencelint/no-check-then-write': 'error',
  'fencelint/no-clock-token': 'error',
  'fencelint/no-memory-token-counter': 'error',
};
