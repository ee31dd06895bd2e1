import noCheckThenWrite from './no-check-then-write.js';
import noClockToken from './no-clock-token.js';
import noMemoryTokenCounter from './no-memory-token-counter.js';
import noReleaseByName from './no-release-by-name.js';
import requireFenceCondition from './require-fence-condition.js';
import requireStaleCheck from './require-stale-check.js';
import requireTokenUpdate from './require-token-update.js';

/** Every rule of the plugin, by name. Add a rule here and to the configs in ../configs.ts. */
export const rules = {
  'require-fence-condition': requireFenceCondition,
  'require-token-update': requireTokenUpdate,
  'require-stale-check': requireStaleCheck,
  'no-release-by-name': noReleaseByName,
  'no-check-then-write': noCheckThenWrite,
  'no-clock-token': noClockToken,
  'no-memory-token-counter': noMemoryTokenCounter,
};
