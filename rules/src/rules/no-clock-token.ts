import { tokenColumnSetting } from '../core/settings.js';
import { mayHoldFenceTokens } from '../core/tokens/token-places.js';
import { findClockTokens, type ClockTokenFinding } from '../core/verdicts/clock-tokens.js';
import { codeSpan, lineSuffix } from '../core/message-text.js';
import { createRule } from '../util/create-rule.js';

export type Options = [{ tokenNames?: string[] }];
export type MessageIds = 'clockToken' | 'randomToken' | 'sqlClockToken' | 'sqlRandomToken';

export default createRule<Options, MessageIds>({
  name: 'no-clock-token',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow fence tokens, generations and epochs taken from the clock or from random values',
      recommended: true,
    },
    messages: {
      clockToken: '{{place}} takes its value from {{source}}{{at}}: clock values repeat and go backwards.',
      randomToken: '{{place}} takes its value from {{source}}{{at}}: random values have no order to fence with.',
      sqlClockToken: 'Column {{column}} is set from the database clock {{source}}, which repeats and goes backwards.',
      sqlRandomToken: 'Column {{column}} is set from {{source}}: random values have no order to fence with.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          tokenNames: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            uniqueItems: true,
            description: 'Extra names (exact, case-insensitive) of variables, properties, parameters and columns that hold a fence token in your code, e.g. `ballot` or `leaderTerm`.',
          },
        },
        additionalProperties: false,
      },
    ],
  },
  defaultOptions: [{}],
  create(context, [options]) {
    const placeOptions = { extraNames: options.tokenNames ?? [], tokenColumn: tokenColumnSetting(context.settings) };
    // A file whose text names no token place cannot hold a clock token: no listeners at all.
    if (!mayHoldFenceTokens(context.sourceCode, placeOptions)) return {};
    const finder = findClockTokens(context.sourceCode, placeOptions);
    const report = (finding: ClockTokenFinding) => {
      if (finding.type === 'sql') {
        context.report({
          loc: finding.loc,
          messageId: finding.kind === 'random' ? 'sqlRandomToken' : 'sqlClockToken',
          data: { column: codeSpan(finding.column, 24), source: codeSpan(`${finding.source}()`, 28) },
        });
        return;
      }
      context.report({
        node: finding.node,
        messageId: finding.kind === 'random' ? 'randomToken' : 'clockToken',
        data: { place: capitalize(finding.place), source: codeSpan(finding.source, 28), at: lineSuffix(finding.sourceLine, finding.node.loc.start.line) },
      });
    };
    return {
      ImportDeclaration: (node) => finder.recordImport(node),
      CallExpression: (node) => finder.recordCall(node),
      NewExpression: (node) => finder.recordCall(node),
      TaggedTemplateExpression: (node) => finder.recordCall(node),
      'Program:exit': () => finder.finish(report),
    };
  },
});

function capitalize(text: string): string {
  return text.startsWith('`') ? text : text.charAt(0).toUpperCase() + text.slice(1);
}
