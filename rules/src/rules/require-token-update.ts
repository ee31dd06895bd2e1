import { getFileAnalysis } from '../core/file-analysis.js';
import { tokenStoreFix } from '../core/fixes/token-store-fix.js';
import { findConditionalWrites, storedLater } from '../core/verdicts/conditional-writes.js';
import { createRule } from '../util/create-rule.js';
import { callHeadLoc } from '../util/report-location.js';

export type MessageIds = 'tokenNotStored' | 'scriptTokenNotStored' | 'storeToken';

export default createRule<[], MessageIds>({
  name: 'require-token-update',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require a write that compares a fence token to store that token in the same write',
      recommended: true,
    },
    hasSuggestions: true,
    messages: {
      tokenNotStored: 'This write compares `{{column}}` with the token but never stores it: older tokens keep passing{{lock}}.',
      scriptTokenNotStored: 'This script compares `{{arg}}` with `{{column}}` but never stores it, so older tokens keep passing{{lock}}.',
      storeToken: 'Store `{{value}}` in `{{column}}` in the same write.',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const analysis = getFileAnalysis(context);
        if (analysis.calls.length === 0) return;
        for (const write of findConditionalWrites(analysis, context.sourceCode)) {
          if (write.stored || storedLater(write, analysis)) continue;
          const { site } = write;
          const lock = site.acquire ? ` (lock on line ${site.acquire.node.loc.start.line})` : '';
          const fix = tokenStoreFix(write, context.sourceCode);
          const suggest = fix ? [{ messageId: 'storeToken' as const, data: { value: fix.value, column: fix.column }, fix: fix.fix }] : [];
          const script = site.sink === 'api' ? site.write.script : undefined;
          if (script && site.sink === 'api') {
            context.report({
              loc: callHeadLoc(site.node),
              messageId: 'scriptTokenNotStored',
              data: { arg: `ARGV[${site.verdict?.arg ?? '?'}]`, column: write.column ?? 'the stored token', lock },
              suggest,
            });
            continue;
          }
          context.report({ loc: callHeadLoc(site.node), messageId: 'tokenNotStored', data: { column: write.column ?? 'the token column', lock }, suggest });
        }
      },
    };
  },
});
