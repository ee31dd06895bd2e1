import { getFileAnalysis } from '../core/file-analysis.js';
import { redisCompareAndDeleteFix, sqlHolderFix } from '../core/fixes/release-fix.js';
import { findNameOnlyReleases } from '../core/verdicts/name-only-releases.js';
import { createRule } from '../util/create-rule.js';
import { callHeadLoc, oneLine } from '../util/report-location.js';

export type MessageIds = 'redisDelete' | 'redisCheckThenDelete' | 'sqlRelease' | 'recordRelease' | 'etcdDelete' | 'authorityByKey' | 'useCompareAndDelete' | 'addHolderCondition';

export default createRule<[], MessageIds>({
  name: 'no-release-by-name',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow lock releases that identify the lock by its name only instead of by its holder',
      recommended: true,
    },
    hasSuggestions: true,
    messages: {
      redisDelete:
        '`{{call}}` deletes the lock key by name only: once this holder\'s lease has expired the key may belong to a newer holder, and this DEL frees that holder\'s lock. Delete the key only while it still holds this owner\'s value, in one atomic compare-and-delete script.',
      redisCheckThenDelete:
        'This DEL relies on the GET on line {{checkLine}}, a separate step: the key can expire and be taken by a newer holder in between, and the DEL then frees that holder\'s lock. Compare and delete in one atomic step with a compare-and-delete script.',
      sqlRelease:
        'This release deletes the lock row by `{{columns}}` only: once this lease has expired the row may belong to a newer holder, and this frees that holder\'s lock. Add the owner and lease id (or the token) to the WHERE and check the row count.',
      recordRelease:
        'This release deletes the lock record by `{{columns}}` only: once this lease has expired the record may belong to a newer holder, and this frees that holder\'s lock. Add the owner and lease id (or the token) to the filter, or a condition on them, and check that one record was deleted.',
      etcdDelete:
        '`{{call}}` deletes the lock key by name only: once this lease has expired the key may belong to a newer holder, and this frees that holder\'s lock. Delete it in a transaction that compares the key\'s lease or value, or release the etcd3 Lock itself.',
      authorityByKey:
        '`{{call}}` releases the lock by its resource key although the acquire on line {{line}} returned a handle: a holder whose lease has expired frees the newer holder\'s lease. Release with the handle (or its lease id) so the authority can refuse a stale release.',
      useCompareAndDelete: 'Replace the DEL with a compare-and-delete script that checks `{{value}}`.',
      addHolderCondition: 'Release only this holder\'s row: add `{{condition}}`.',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const analysis = getFileAnalysis(context);
        // Files without a lock word have no calls collected: nothing to release.
        if (analysis.calls.length === 0) return;
        const { sourceCode } = context;
        const { releases, tableColumns } = findNameOnlyReleases(analysis, sourceCode);
        for (const release of releases) {
          const call = oneLine(sourceCode.getText(release.node));
          switch (release.kind) {
            case 'redisDelete':
            case 'redisCheckThenDelete': {
              const fix = redisCompareAndDeleteFix(release, sourceCode);
              const checkLine = release.kind === 'redisCheckThenDelete' ? release.check.loc.start.line : undefined;
              context.report({
                loc: callHeadLoc(release.node),
                messageId: release.kind,
                data: { call, checkLine: checkLine ?? '' },
                suggest: fix ? [{ messageId: 'useCompareAndDelete', data: { value: fix.value }, fix: fix.fix }] : [],
              });
              break;
            }
            case 'sqlRelease': {
              const fix = sqlHolderFix(release, tableColumns, sourceCode);
              context.report({
                loc: callHeadLoc(release.node),
                messageId: 'sqlRelease',
                data: { columns: release.nameColumns.join(', ') },
                suggest: fix ? [{ messageId: 'addHolderCondition', data: { condition: fix.condition }, fix: fix.fix }] : [],
              });
              break;
            }
            case 'recordRelease':
              context.report({ loc: callHeadLoc(release.node), messageId: 'recordRelease', data: { columns: release.nameColumns.join(', ') } });
              break;
            case 'etcdDelete':
              context.report({ loc: callHeadLoc(release.node), messageId: 'etcdDelete', data: { call } });
              break;
            case 'authorityByKey':
              context.report({ loc: callHeadLoc(release.node), messageId: 'authorityByKey', data: { call, line: release.acquire.node.loc.start.line } });
              break;
          }
        }
      },
    };
  },
});
