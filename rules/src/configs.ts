import type { Linter } from '@typescript-eslint/utils/ts-eslint';

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
