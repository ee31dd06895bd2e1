import { getFileAnalysis } from '../core/file-analysis.js';
import { fenceSuggestion } from '../core/fixes/fence-suggestion.js';
import { codeSpan, lineSuffix } from '../core/message-text.js';
import { checkThenWritesOf, isWriteOf } from '../core/verdicts/check-then-write.js';
import { describeWrite } from '../core/verdicts/write-effects.js';
import { createRule } from '../util/create-rule.js';
import { callHeadLoc } from '../util/report-location.js';

export type MessageIds = 'storedTokenCheck' | 'leaseValidityCheck' | 'leaseExtendCheck' | 'addFenceCondition';

export default createRule<[], MessageIds>({
  name: 'no-check-then-write',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow writes whose safety rests on an earlier, separate check of a stored token or of the lease',
      recommended: true,
    },
    hasSuggestions: true,
    messages: {
      storedTokenCheck: '{{write}} trusts a separate {{field}} check{{checkAt}}: a newer holder can write in between.',
      leaseValidityCheck: '{{write}} trusts the lease check {{check}}{{checkAt}}: the lease can expire right after.',
      leaseExtendCheck: '{{write}} trusts the lease extension {{check}}{{checkAt}}: a pause can still outlast it.',
      addFenceCondition: 'Compare and store {{column}} with {{token}} in this write.',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const analysis = getFileAnalysis(context);
        // Files without a lock word have no calls collected: nothing to check.
        if (analysis.calls.length === 0) return;
        const { sourceCode } = context;
        for (const finding of checkThenWritesOf(analysis, sourceCode)) {
          const messageId = finding.kind === 'storedToken' ? 'storedTokenCheck' : finding.kind === 'leaseExtend' ? 'leaseExtendCheck' : 'leaseValidityCheck';
          // The same write under a lock: this is its one finding, so it carries the fence suggestion too.
          const site = analysis.writes.find((w) => isWriteOf(finding, w.node));
          // A check-then-write never compares in the write itself, so the suggestion always adds the condition.
          // The field the code compared is the one to compare in the write (a version compared for equality is not fenced by `<`).
          const field = finding.field && !/version|rev/i.test(finding.field) && finding.kind === 'storedToken' && !finding.alsoUnfenced ? finding.field : undefined;
          const suggestion = site && !site.fenced ? fenceSuggestion(analysis, site, sourceCode, undefined, field) : undefined;
          const data = {
            write: site ? describeWrite(site).what : 'This write',
            field: codeSpan(finding.field ?? 'token', 24),
            check: codeSpan(sourceCode.getText(finding.check), 36),
            checkAt: lineSuffix(finding.check.loc.start.line, finding.write.node.loc.start.line),
            column: codeSpan(suggestion?.column ?? analysis.tokenColumn, 24),
            token: codeSpan(suggestion?.token ?? '', 28),
          };
          context.report({
            loc: callHeadLoc(finding.write.node),
            messageId,
            data,
            suggest: suggestion ? [{ messageId: 'addFenceCondition', data, fix: suggestion.fix }] : [],
          });
        }
      },
    };
  },
});
