import { getFileAnalysis } from '../core/file-analysis.js';
import { staleCheckFix } from '../core/fixes/stale-check-fix.js';
import { findStaleResults, type StaleResultKind } from '../core/verdicts/stale-results.js';
import { createRule } from '../util/create-rule.js';
import { callHeadLoc, oneLine } from '../util/report-location.js';

export type MessageIds = StaleResultKind | 'misreadPair' | 'throwOnStale' | 'checkCount';

export default createRule<[], MessageIds>({
  name: 'require-stale-check',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require the refusal of a fenced write (zero rows, a failed condition) to be handled as a stale outcome',
      recommended: true,
    },
    hasSuggestions: true,
    messages: {
      ignored: "This fenced write's `{{member}}` is never checked, so a refused stale write looks like success{{lock}}.",
      misread: '`{{read}}` cannot tell a refused stale write; check `{{member}}` instead{{lock}}.',
      misreadPair: '`{{read}}` reads the [header, fields] pair, not the header, so it tells nothing{{lock}}.',
      loggedOnly: "This fenced write's refusal (`{{member}}`) is only logged, then treated as success{{lock}}.",
      swallowed: 'The catch on line {{line}} turns `{{member}}` from this fenced write into success{{lock}}.',
      unobservable: '`{{method}}` resolves to nothing for this fenced write, so a refused stale write cannot be told.',
      returnedIgnored: "This fenced write's result goes to a caller that ignores it (line {{line}}), so a refusal looks like success.",
      throwOnStale: 'Bind the result and throw when `{{check}}`.',
      checkCount: 'Check `{{check}}` instead.',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const analysis = getFileAnalysis(context);
        if (analysis.calls.length === 0) return;
        const { sourceCode } = context;
        for (const finding of findStaleResults(analysis, sourceCode)) {
          const { site } = finding;
          const lock = site.acquire ? ` (lock on line ${site.acquire.node.loc.start.line})` : '';
          const fix = staleCheckFix(finding, sourceCode);
          const suggest = fix ? [{ messageId: finding.kind === 'ignored' ? ('throwOnStale' as const) : ('checkCount' as const), data: { check: fix.check }, fix: fix.fix }] : [];
          const line = finding.kind === 'returnedIgnored' ? finding.caller?.loc.start.line : finding.at?.loc.start.line;
          const method = site.sink === 'sql' ? site.call.method ?? 'this call' : 'this call';
          context.report({
            loc: callHeadLoc(site.node),
            messageId: finding.kind === 'misread' && finding.binding ? 'misreadPair' : finding.kind,
            data: { member: finding.member, read: oneLine(finding.read ?? '', 40), lock, line: line ?? '', method },
            suggest,
          });
        }
      },
    };
  },
});
