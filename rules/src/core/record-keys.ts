/**
 * The values a write picks its records by: an object write's filter (`where`, a Mongo filter) or,
 * without a literal one, its first argument (`findByIdAndUpdate(id, ...)`, `updateOne(filter, ...)`);
 * a builder's equality and id-list links; the values bound to an SQL write's key (`WHERE id = $1`,
 * an upsert's `ON CONFLICT (post_id)`); a Redis command's key. Both passes ask it whether a write
 * picks a record its holder has just inserted (see `sinks/inserted-records.ts`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, type Node } from './ast.js';
import { ID_FILTER_LINK } from './models/sinks.js';
import { chainEqualityValues } from './sinks/chain-keys.js';
import type { WriteReading } from './file-analysis.js';

export function recordKeysOf(reading: WriteReading): Node[] {
  // SQL: the values an UPDATE or DELETE matches with `=`, or an upsert's conflict target takes.
  if (reading.sink === 'sql') {
    const params = reading.verdicts.flatMap(({ statement }) =>
      statement.upsert
        ? (statement.insertedValues ?? []).filter((v) => statement.conflictColumns?.includes(v.column)).flatMap((v) => v.value.params)
        : statement.kind === 'update' || statement.kind === 'delete'
          ? statement.conditions.filter((c) => c.op === '=').flatMap((c) => c.value.params)
          : [],
    );
    return [...new Set(params)].map((n) => reading.call.param(n)).filter((v): v is Node => v !== undefined);
  }
  if (reading.sink === 'knex') return chainEqualityValues(reading.write.links);
  // Redis: the key the command writes (`room:${room.id}` after the room was created).
  if (reading.sink === 'api' && reading.write.api === 'redis') {
    const key = reading.write.node.type === AST_NODE_TYPES.CallExpression ? reading.write.node.arguments[0] : undefined;
    return key && key.type !== AST_NODE_TYPES.SpreadElement ? [key] : [];
  }
  if (reading.sink !== 'object' || reading.write.record) return [];
  // Builders: `.where(and(eq(t.org, org), eq(t.id, jobId)))`, `.where('id', '=', id)`, Supabase `.eq('id', id)`.
  if (reading.write.links.length > 0 && !reading.write.filter) {
    const matched = chainEqualityValues(reading.write.links);
    if (matched.length > 0) return matched;
  }
  // `{ id }`, `{ _id: id, state: 'open' }`, `{ id: { equals: id } }`: the values the filter names.
  const values = (o: TSESTree.ObjectExpression): Node[] =>
    o.properties.flatMap((p) => (p.type !== AST_NODE_TYPES.Property ? [] : p.value.type === AST_NODE_TYPES.ObjectExpression ? values(p.value) : [p.value]));
  if (reading.write.filter) return values(reading.write.filter);
  // A builder picking rows by their ids (`.whereInIds(ids)`): those ids.
  const byIds = reading.write.links.find((l) => ID_FILTER_LINK.test(calleeName(l) ?? ''));
  const ids = byIds?.arguments[0];
  if (ids && ids.type !== AST_NODE_TYPES.SpreadElement) return [ids];
  const first = reading.node.type === AST_NODE_TYPES.CallExpression ? reading.node.arguments[0] : undefined;
  return first && first.type !== AST_NODE_TYPES.SpreadElement ? [first] : [];
}
