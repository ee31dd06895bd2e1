import { getFileAnalysis } from '../core/file-analysis.js';
import { redisCompareAndDeleteFix, sqlHolderFix } from '../core/fixes/release-fix.js';
import { findNameOnlyReleases } from '../core/verdicts/name-only-releases.js';
import { createRule } from '../util/create-rule.js';
import { codeSpan, lineSuffix } from '../core/message-text.js';
import { callHeadLoc } from '../util/report-location.js';

export type MessageIds = 'redisDelete' | 'redisCheckThenDelete' | 'sqlRelease' | 'recordRelease' | 'leaseClear' | 'etcdDelete' | 'authorityByKey' | 'useCompareAndDelete' | 'addHolderCondition';

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
      redisDelete: '{{call}} deletes the lock key by name: after expiry it frees a newer holder\'s lock.',
      redisCheckThenDelete: 'This DEL trusts the GET{{checkAt}}, a separate step: the key can pass to a newer holder in between.',
      sqlRelease: 'This release deletes the lock row by {{columns}} only: after expiry it frees a newer holder\'s lock.',
      recordRelease: 'This release deletes the lock record by {{columns}} only: after expiry it frees a newer holder\'s lock.',
      leaseClear: 'Clearing {{field}} by {{columns}} only: after expiry this frees a newer holder\'s lease.',
      etcdDelete: '{{call}} deletes the lock key by name: after expiry it frees a newer holder\'s lock.',
      authorityByKey: '{{call}} releases by key, not with the handle from {{acquire}}: it can free a newer lease.',
      useCompareAndDelete: 'Replace the DEL with a compare-and-delete script that checks {{value}}.',
      addHolderCondition: 'Release only this holder\'s row: add {{condition}}.',
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
          const call = codeSpan(sourceCode.getText(release.node), 32);
          const line = release.node.loc.start.line;
          switch (release.kind) {
            case 'redisDelete':
            case 'redisCheckThenDelete': {
              const fix = redisCompareAndDeleteFix(release, sourceCode);
              const checkAt = release.kind === 'redisCheckThenDelete' ? lineSuffix(release.check.loc.start.line, line) : '';
              context.report({
                loc: callHeadLoc(release.node),
                messageId: release.kind,
                data: { call, checkAt },
                suggest: fix ? [{ messageId: 'useCompareAndDelete', data: { value: codeSpan(fix.value, 28) }, fix: fix.fix }] : [],
              });
              break;
            }
            case 'sqlRelease': {
              if (release.cleared) {
                // A lease field of a resource row: no holder column to suggest.
                context.report({ loc: callHeadLoc(release.node), messageId: 'leaseClear', data: { field: codeSpan(release.cleared, 24), columns: codeSpan(release.nameColumns.join(', '), 24) } });
                break;
              }
              const fix = sqlHolderFix(release, tableColumns, sourceCode);
              context.report({
                loc: callHeadLoc(release.node),
                messageId: 'sqlRelease',
                data: { columns: codeSpan(release.nameColumns.join(', '), 24) },
                suggest: fix ? [{ messageId: 'addHolderCondition', data: { condition: codeSpan(fix.condition, 48) }, fix: fix.fix }] : [],
              });
              break;
            }
            case 'recordRelease':
              if (release.cleared) context.report({ loc: callHeadLoc(release.node), messageId: 'leaseClear', data: { field: codeSpan(release.cleared, 24), columns: codeSpan(release.nameColumns.join(', '), 24) } });
              else context.report({ loc: callHeadLoc(release.node), messageId: 'recordRelease', data: { columns: codeSpan(release.nameColumns.join(', '), 24) } });
              break;
            case 'etcdDelete':
              context.report({ loc: callHeadLoc(release.node), messageId: 'etcdDelete', data: { call } });
              break;
            case 'authorityByKey':
              context.report({ loc: callHeadLoc(release.node), messageId: 'authorityByKey', data: { call, acquire: lineSuffix(release.acquire.node.loc.start.line, line) ? `line ${release.acquire.node.loc.start.line}` : 'this line' } });
              break;
          }
        }
      },
    };
  },
});
