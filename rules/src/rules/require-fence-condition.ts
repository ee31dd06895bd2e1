import { getFileAnalysis, type ReceivedWriteSite, type WriteSite } from '../core/file-analysis.js';
import { comparesToken, fenceColumn, fenceSuggestion, inferTokenColumn } from '../core/fixes/fence-suggestion.js';
import { codeSpan, fileLabel, lineSuffix } from '../core/message-text.js';
import { checkThenWritesOf, isWriteOf } from '../core/verdicts/check-then-write.js';
import { acquirePlace, describeWrite } from '../core/verdicts/write-effects.js';
import { createRule } from '../util/create-rule.js';
import { callHeadLoc } from '../util/report-location.js';

export type Options = [{ tokenColumn?: string }];
export type MessageIds =
  | 'missingFence'
  | 'missingFenceNoToken'
  | 'receivedTokenUnused'
  | 'receivedLeaseUnfenced'
  | 'callWritesUnfenced'
  | 'callWritesSeveralUnfenced'
  | 'callPassesNonToken'
  | 'recordWriteUnfenced'
  | 'addFenceCondition';

export default createRule<Options, MessageIds>({
  name: 'require-fence-condition',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require writes made under a lock to compare and store a fence token in the same statement',
      recommended: true,
    },
    hasSuggestions: true,
    messages: {
      missingFence: '{{write}} under {{acquire}} compares no fence token: a stale holder can {{effect}}.',
      missingFenceNoToken: '{{write}} under {{acquire}} compares no fence token, and none is in scope to compare.',
      receivedTokenUnused: '{{write}} in {{fn}} does not compare the fence token {{token}} it is given{{at}}.',
      receivedLeaseUnfenced: '{{write}} in {{fn}} gets the lease {{lease}}{{at}} but compares no fence token.',
      callWritesUnfenced: '{{write}} ({{where}}) runs under {{acquire}} unfenced.',
      callWritesSeveralUnfenced: '{{write}} ({{where}}) and {{others}} run under {{acquire}} unfenced.',
      callPassesNonToken: '{{write}} ({{where}}) under {{acquire}} is fenced on {{value}}, not a token.',
      recordWriteUnfenced: '{{write}} under {{acquire}} writes a record back: it cannot carry a fence condition.',
      addFenceCondition: 'Compare and store {{column}} with {{token}} in this write.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          tokenColumn: {
            type: 'string',
            minLength: 1,
            description: 'Column the suggestion stores the fence token in when no other write of the file is fenced (otherwise it follows that write). Defaults to `settings.fencelint.tokenColumn`, then to `fence_token`. Any column counts as fenced when the write compares it with the token and stores the token in it.',
          },
        },
        additionalProperties: false,
      },
    ],
  },
  defaultOptions: [{}],
  create(context, [options]) {
    return {
      'Program:exit'() {
        const analysis = getFileAnalysis(context);
        if (analysis.writes.length === 0 && analysis.receivedWrites.length === 0) return;
        const { sourceCode } = context;
        // A write guarded by an earlier, separate check of its token or lease is one finding: no-check-then-write's.
        const findings = checkThenWritesOf(analysis, sourceCode);
        const all: Array<WriteSite | ReceivedWriteSite> = [...analysis.writes, ...analysis.receivedWrites];
        const column = inferTokenColumn(all) ?? options.tokenColumn ?? analysis.tokenColumn;
        // A same-file helper several locked calls reach is reported at each of those calls.
        const sites = all.flatMap((w): Array<WriteSite | ReceivedWriteSite> => (w.fenced || findings.some((f) => !f.alsoUnfenced && isWriteOf(f, w.node)) ? [] : 'reachedFrom' in w && w.reachedFrom ? w.reachedFrom : [w]));
        // A call is one finding however many writes it leads to.
        const reportedCalls = new Set<WriteSite['node']>();
        for (const write of sites) {
          if (write.sink === 'call') {
            if (reportedCalls.has(write.node)) continue;
            reportedCalls.add(write.node);
          }
          const acquire = 'acquire' in write ? write.acquire : undefined;
          const received = 'received' in write ? write.received : undefined;
          const reportedLine = write.node.loc.start.line;
          if (write.sink === 'call') {
            if (!acquire) continue;
            // One finding per call, however many unfenced writes it leads to: the first named, the others listed.
            const further = write.furtherUnfenced ?? [];
            const placeOf = (w: { at: { file: string; line: number } }) => `${fileLabel(w.at.file)}:${w.at.line}`;
            // Places in the first write's file come first, then file by file; a place in the same
            // file as the one before it is its line alone (`:82`), to keep the message one line.
            const shown = further.slice(0, 3).map((w, i) => ({ w, i })).sort((a, b) => (a.w.at.file === b.w.at.file ? a.i - b.i : a.w.at.file === write.write.at.file ? -1 : b.w.at.file === write.write.at.file ? 1 : a.w.at.file < b.w.at.file ? -1 : 1));
            const places = shown.map(({ w }, i) => (w.at.file === (i === 0 ? write.write : shown[i - 1].w).at.file ? `:${w.at.line}` : placeOf(w))).join(', ') + (further.length > 3 ? ', ...' : '');
            const others = `${further.length} more (${places})`;
            context.report({
              loc: callHeadLoc(write.node),
              messageId: write.nonTokenArgument ? 'callPassesNonToken' : further.length > 0 ? 'callWritesSeveralUnfenced' : 'callWritesUnfenced',
              data: {
                // The file and line are enough here; the code flow (SARIF, related information) has the path.
                write: codeSpan(write.write.label.replace(/^`|`$/g, ''), 24),
                where: placeOf(write.write) + (write.nonTokenArgument && further.length > 0 ? `; unfenced: ${places}` : ''),
                others,
                acquire: acquirePlace(acquire, reportedLine),
                value: write.nonTokenArgument ? codeSpan(sourceCode.getText(write.nonTokenArgument), 24) : '',
              },
            });
            continue;
          }
          // Compared but not stored is require-token-update's finding.
          if (comparesToken(write)) continue;
          const suggestion = fenceSuggestion(analysis, write, sourceCode, options.tokenColumn);
          const token = received ? received.token : analysis.tracer.tokenInScope(write.node, acquire);
          const { what, effect } = describeWrite(write);
          const data = {
            write: what,
            acquire: acquire ? acquirePlace(acquire, reportedLine) : '',
            effect,
            column: codeSpan(suggestion?.column ?? fenceColumn(write, column), 24),
            token: codeSpan(suggestion?.token ?? token ?? '', 28),
            fn: codeSpan(received?.fnName ?? '', 24),
            lease: codeSpan(received?.param.name ?? '', 20),
            at: received ? lineSuffix(received.param.loc.start.line, reportedLine) : '',
          };
          // `user.save()` under the lock: the ORM sends its own `WHERE id = ...`, so no suggestion can add a fence to it.
          if (write.sink === 'object' && write.write.record && acquire) {
            context.report({ loc: callHeadLoc(write.node), messageId: 'recordWriteUnfenced', data: { ...data, write: `This ${codeSpan(`${write.write.method}()`, 20)}` } });
            continue;
          }
          const messageId: MessageIds = received
            ? token === undefined
              ? 'receivedLeaseUnfenced'
              : 'receivedTokenUnused'
            : token === undefined
              ? 'missingFenceNoToken'
              : 'missingFence';
          context.report({
            loc: callHeadLoc(write.node),
            messageId,
            data,
            suggest: suggestion ? [{ messageId: 'addFenceCondition', data, fix: suggestion.fix }] : [],
          });
        }
      },
    };
  },
});
