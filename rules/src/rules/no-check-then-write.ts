import { findCheckThenWrites, type CheckThenWrite } from '../core/verdicts/check-then-write.js';
import { getFileAnalysis } from '../core/file-analysis.js';
import { createRule } from '../util/create-rule.js';
import { callHeadLoc, oneLine } from '../util/report-location.js';

export type MessageIds = 'storedTokenCheck' | 'leaseValidityCheck' | 'leaseExtendCheck';

/** How the comparison looks inside this kind of write, with the compared column when known. */
function example(finding: CheckThenWrite, column: string): string {
  switch (finding.write.sink) {
    case 'sql':
      return `\`UPDATE … WHERE … AND ${column} < $n\``;
    case 'knex':
      return `\`.where('${column}', '<', token)\``;
    case 'object':
      return `a filter such as \`{ ${column}: { lt: token } }\` or a \`ConditionExpression\``;
    case 'redis':
      return 'a script that compares and sets in one step';
  }
}

export default createRule<[], MessageIds>({
  name: 'no-check-then-write',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow writes whose safety rests on an earlier, separate check of a stored token or of the lease',
      recommended: true,
    },
    hasSuggestions: false,
    messages: {
      storedTokenCheck:
        'This write on line {{writeLine}} relies on the comparison of the stored `{{field}}` on line {{checkLine}}, read by a separate statement: a newer holder can write between the check and this write, which then overwrites it. Move the comparison inside the write itself ({{example}}) and treat "0 rows" as stale.',
      leaseValidityCheck:
        'This write on line {{writeLine}} relies on the lease check `{{check}}` on line {{checkLine}}: the lease can expire and pass to a newer holder between the check and the write, which then lands late. Move a fence-token comparison inside the write itself ({{example}}) and treat "0 rows" as stale.',
      leaseExtendCheck:
        'This write on line {{writeLine}} relies on extending the lease with `{{check}}` on line {{checkLine}}: a pause after the extension can still outlast the lease, and the write then lands late. Move a fence-token comparison inside the write itself ({{example}}) and treat "0 rows" as stale.',
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
        for (const finding of findCheckThenWrites(analysis, sourceCode)) {
          const column = finding.field ?? analysis.tokenColumn;
          const messageId: MessageIds = finding.kind === 'storedToken' ? 'storedTokenCheck' : finding.kind === 'leaseExtend' ? 'leaseExtendCheck' : 'leaseValidityCheck';
          context.report({
            loc: callHeadLoc(finding.write.node),
            messageId,
            data: {
              checkLine: finding.check.loc.start.line,
              writeLine: finding.write.node.loc.start.line,
              check: oneLine(sourceCode.getText(finding.check)),
              field: finding.field ?? 'token',
              example: example(finding, column),
            },
          });
        }
      },
    };
  },
});
