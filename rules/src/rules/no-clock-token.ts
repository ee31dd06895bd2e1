import { tokenColumnSetting } from '../core/settings.js';
import { findClockTokens, type ClockTokenFinding } from '../core/verdicts/clock-tokens.js';
import { createRule } from '../util/create-rule.js';

export type Options = [{ tokenNames?: string[] }];
export type MessageIds = 'clockToken' | 'randomToken' | 'sqlClockToken' | 'sqlRandomToken';

const DURABLE = 'Issue fence tokens from a durable counter (`UPDATE … SET token = token + 1 RETURNING token`, Redis INCR with persistence, or the etcd revision).';

export default createRule<Options, MessageIds>({
  name: 'no-clock-token',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow fence tokens, generations and epochs taken from the clock or from random values',
      recommended: true,
    },
    messages: {
      clockToken: `{{place}} takes its value from \`{{source}}\` (line {{line}}): clocks repeat and go backwards across machines and restarts, so a late worker can hold a higher token than the current holder. ${DURABLE}`,
      randomToken: `{{place}} takes its value from \`{{source}}\` (line {{line}}): random values have no order, so the resource cannot tell a newer holder's token from an older one. ${DURABLE}`,
      sqlClockToken: `Column \`{{column}}\` is set from the database clock (\`{{source}}()\`): clocks repeat and go backwards across failovers and restarts, so a late worker can hold a higher token than the current holder. Take the token from a durable counter in the same statement (\`UPDATE fence_counters SET token = token + 1 … RETURNING token\`, or a sequence's \`nextval\`).`,
      sqlRandomToken: `Column \`{{column}}\` is set from \`{{source}}()\`: random values have no order, so the resource cannot tell a newer holder's token from an older one. Take the token from a durable counter in the same statement (\`UPDATE fence_counters SET token = token + 1 … RETURNING token\`, or a sequence's \`nextval\`).`,
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
    const finder = findClockTokens(context.sourceCode, placeOptions);
    const report = (finding: ClockTokenFinding) => {
      if (finding.type === 'sql') {
        context.report({
          loc: finding.loc,
          messageId: finding.kind === 'random' ? 'sqlRandomToken' : 'sqlClockToken',
          data: { column: finding.column, source: finding.source },
        });
        return;
      }
      context.report({
        node: finding.node,
        messageId: finding.kind === 'random' ? 'randomToken' : 'clockToken',
        data: { place: capitalize(finding.place), source: finding.source, line: finding.sourceLine },
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
