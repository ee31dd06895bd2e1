import type { TSESTree } from '@typescript-eslint/utils';
import { memoryCounterAt, counterTokenPlace, type Increment } from '../core/verdicts/memory-counters.js';
import { tokenColumnSetting } from '../core/settings.js';
import { describePlace, isGrantFunction, isStrongName, mayHoldFenceTokens, tokenStrength } from '../core/tokens/token-places.js';
import { ValueFlow, type PlaceReach, type ValuePlace } from '../core/tokens/value-flow.js';
import { codeSpan, lineSuffix } from '../core/message-text.js';
import { createRule } from '../util/create-rule.js';

export type Options = [{ tokenNames?: string[] }];
export type MessageIds = 'memoryCounter';

/** Counters named for fencing are token counters whatever happens to their value. */
const FENCE_NAME = /fenc/i;

export default createRule<Options, MessageIds>({
  name: 'no-memory-token-counter',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow fence tokens issued from a counter that lives only in process memory',
      recommended: true,
    },
    messages: {
      memoryCounter: '{{where}} comes from {{counter}}, an in-memory counter that a restart resets.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          tokenNames: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            uniqueItems: true,
            description: 'Extra names (exact, case-insensitive) of counters, variables, properties and columns that hold a fence token in your code, e.g. `ballot` or `leaderTerm`.',
          },
        },
        additionalProperties: false,
      },
    ],
  },
  defaultOptions: [{}],
  create(context, [options]) {
    const sourceCode = context.sourceCode;
    const increments: Increment[] = [];
    const placeOptions = { extraNames: options.tokenNames ?? [], tokenColumn: tokenColumnSetting(context.settings) };
    // A file whose text names no token place cannot hold a token counter: no listeners at all.
    if (!mayHoldFenceTokens(sourceCode, placeOptions)) return {};
    const isFenceName = (name: string) => (FENCE_NAME.test(name) || placeOptions.extraNames.some((n) => n.toLowerCase() === name.toLowerCase())) && isStrongName(name, placeOptions);
    const record = (node: Increment) => {
      // `for (...; ...; i++)`: a loop counter, never state that outlives the call.
      if (node.parent?.type === 'ForStatement' && node.parent.update === node) return;
      increments.push(node);
    };
    return {
      'UpdateExpression[operator="++"]': record,
      'AssignmentExpression[operator="+="]': record,
      'AssignmentExpression[operator="="][right.type="BinaryExpression"]': record,
      'BinaryExpression[operator="+"]': (node: TSESTree.BinaryExpression) => {
        if (node.left.type === 'Literal' || node.right.type === 'Literal') record(node);
      },
      'Program:exit'() {
        if (increments.length === 0) return;
        const flow = new ValueFlow(sourceCode);
        const readsMemo = new Map<string, ValuePlace | undefined>();
        for (const node of increments) {
          const counter = memoryCounterAt(node, sourceCode, flow);
          if (!counter || counter.loaded) continue;
          // A counter returned as is from an acquire/grant is the token that acquire hands out;
          // one built into a longer string (`host:pid:seq`) is part of an owner id, unless a token name says otherwise.
          const isToken = (p: Parameters<typeof tokenStrength>[0], reach: PlaceReach) => {
            const strength = tokenStrength(p, sourceCode, placeOptions);
            if (reach.inString) return strength === 'strong';
            return strength !== undefined || (p.kind === 'return' && isGrantFunction(p.fn));
          };
          const place = counterTokenPlace(counter, flow, isToken, isFenceName, readsMemo);
          if (!place) continue;
          context.report({
            node,
            messageId: 'memoryCounter',
            data: {
              where: place === 'name' ? 'This fence token' : `The fence token in ${describePlace(place)}${lineSuffix(place.node.loc.start.line, node.loc.start.line)}`,
              counter: codeSpan(counter.label, 28),
            },
          });
        }
      },
    };
  },
});
