import { dirname } from 'node:path';
import { getFileAnalysis, type ReceivedWriteSite, type WriteSite } from '../core/file-analysis.js';
import { RECEIVED_LEASE_ADVICE } from '../core/models/locks.js';
import { camel } from '../core/sinks/object-writes.js';
import { knexFenceFix, objectFenceFix, sqlFenceFix } from '../core/fixes/fence-fix.js';
import { formatLocation } from '../core/modules/summaries.js';
import { createRule } from '../util/create-rule.js';
import { callHeadLoc } from '../util/report-location.js';

export type Options = [{ tokenColumn?: string }];
export type MessageIds =
  | 'missingFence'
  | 'missingFenceNoToken'
  | 'receivedTokenUnused'
  | 'receivedLeaseUnfenced'
  | 'callWritesUnfenced'
  | 'addFenceCondition';

/** The token column of another fenced write in the same file, so suggestions follow the file's own schema. */
function inferTokenColumn(writes: ReadonlyArray<WriteSite | ReceivedWriteSite>): string | undefined {
  for (const write of writes) {
    if (!write.fenced) continue;
    if (write.sink === 'sql') {
      const column = write.verdicts.find((v) => v.tokenCompared && v.column)?.column;
      if (column) return column;
    } else if (write.sink !== 'api' && write.sink !== 'call' && write.verdict.column) {
      return write.verdict.column;
    }
  }
  return undefined;
}

/** The fence in the write's own vocabulary: SQL, a knex link or an object filter. */
function exampleFor(write: WriteSite | ReceivedWriteSite, column: string): string {
  if (write.sink === 'sql') return `AND ${column} < $n … SET ${column} = $n`;
  if (write.sink === 'knex') return `.where('${column}', '<', token)`;
  if (write.sink === 'call') return `pass the token in and compare and store \`${column}\` there`;
  if (write.sink === 'api') {
    if (write.write.api === 'redis') return 'a Lua script that compares the stored token and sets value and token together';
    if (write.write.api === 's3') return 'a conditional put with `IfMatch` on the ETag you read';
    return 'send the token in a fence or `If-Match` header that the API compares';
  }
  switch (write.write.api) {
    case 'prisma':
      return `where: { ${camel(column)}: { lt: token } }, data: { ${camel(column)}: token }`;
    case 'mongodb':
      return `{ ${column}: { $lt: token } } in the filter and in $set`;
    case 'sequelize':
      return `where: { ${camel(column)}: { [Op.lt]: token } }`;
    case 'typeorm':
      return `{ ${camel(column)}: LessThan(token) } in the criteria`;
    case 'dynamodb':
      return `ConditionExpression: '${column} < :token'`;
    default:
      return `.where('${column}', '<', token)`;
  }
}

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
      missingFence:
        'This write runs under the lock taken by {{acquire}} on line {{line}}, but the resource does not check a fence token: if the lease expires before the write lands, it overwrites a newer holder\'s data. Compare and store the token in the write itself ({{example}}) and treat "0 rows" as stale.',
      missingFenceNoToken:
        'This write runs under the lock taken by {{acquire}} on line {{line}}, but the resource does not check a fence token: if the lease expires before the write lands, it overwrites a newer holder\'s data. No fence token is in scope here; {{advice}}, then compare and store it in the write ({{example}}).',
      receivedTokenUnused:
        'This write runs in `{{fn}}`, whose caller hands it the fence token `{{token}}` (line {{line}}), but the write\'s condition does not compare it: if the caller\'s lease expires before the write lands, it overwrites a newer holder\'s data. Compare and store `{{token}}` in the write itself ({{example}}) and treat "0 rows" as stale.',
      receivedLeaseUnfenced:
        'This write runs in `{{fn}}`, whose caller hands it the lease `{{lease}}` (line {{line}}), but the resource does not check a fence token: if the lease expires before the write lands, it overwrites a newer holder\'s data. {{advice}}, then compare and store it in the write ({{example}}).',
      callWritesUnfenced:
        '{{callee}} writes ({{write}} at {{where}}) under the lock taken by {{acquire}} on line {{line}}, but that write checks no fence token: if the lease expires first, it overwrites a newer holder\'s data. Pass the token in and compare and store it there.',
      addFenceCondition: 'Fence this write: compare and store `{{column}}` with `{{token}}`.',
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
        const all: Array<WriteSite | ReceivedWriteSite> = [...analysis.writes, ...analysis.receivedWrites];
        const column = inferTokenColumn(all) ?? options.tokenColumn ?? analysis.tokenColumn;
        for (const write of all) {
          if (write.fenced) continue;
          const acquire = 'acquire' in write ? write.acquire : undefined;
          const received = 'received' in write ? write.received : undefined;
          if (write.sink === 'call' && acquire) {
            context.report({
              loc: callHeadLoc(write.node),
              messageId: 'callWritesUnfenced',
              data: {
                callee: `\`${write.callee.name}\``,
                write: write.write.label,
                where: formatLocation(write.write.at, dirname(context.physicalFilename ?? context.filename)),
                acquire: acquire.label,
                line: acquire.node.loc.start.line,
              },
            });
            continue;
          }
          if (write.sink === 'call') continue;
          const token = received?.token ?? analysis.tracer.tokenInScope(write.node, acquire);
          const compared = write.sink === 'sql' ? write.verdicts.every((v) => v.tokenCompared) : write.sink === 'api' ? !!write.verdict?.tokenCompared : write.verdict.tokenCompared;
          // Compared but not stored: `require-token-update` reports it.
          if (compared) continue;
          const fix =
            token === undefined
              ? undefined
              : write.sink === 'sql'
                ? sqlFenceFix(write, token, column, context.sourceCode)
                : write.sink === 'knex'
                  ? knexFenceFix(write, token, column, context.sourceCode)
                  : write.sink === 'object'
                    ? objectFenceFix(write, token, column, context.sourceCode)
                    : undefined;
          const storedColumn =
            write.sink === 'sql' ? write.verdicts.find((v) => v.tokenCompared && !v.tokenStored)?.column : write.sink === 'api' ? undefined : write.verdict.column;
          const example = exampleFor(write, column);
          const data = {
            acquire: acquire?.label ?? '',
            line: acquire ? acquire.node.loc.start.line : received!.param.loc.start.line,
            example,
            advice: acquire?.advice ?? RECEIVED_LEASE_ADVICE,
            column: storedColumn ?? (write.sink === 'object' ? camel(column) : column),
            token: token ?? '',
            fn: received?.fnName ?? '',
            lease: received?.param.name ?? '',
          };
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
            suggest: fix ? [{ messageId: 'addFenceCondition', data, fix }] : [],
          });
        }
      },
    };
  },
});
