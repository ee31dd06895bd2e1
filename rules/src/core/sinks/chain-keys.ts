/**
 * The rows a builder write picks: the values its where links match by equality. Drizzle
 * `eq(t.id, v)` (also inside `and(...)`), knex and Kysely `.where('id', v)`,
 * `.where('id', '=', v)` and `.where({ id: v })`, Supabase `.eq('id', v)`; a list the column is in
 * (`.in('id', ids)`, `.whereIn('id', ids)`). Used to tell a write of
 * a record the holder has just inserted from a write of someone else's.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, staticString, unwrap, type Node } from '../ast.js';

const WHERE = /^(?:where|andWhere)$/;
/** Links that pick rows whose column is one of a list: Supabase `.in('id', ids)`, knex `.whereIn('id', ids)`. */
const IN_LIST = /^(?:in|whereIn|andWhereIn)$/;

function drizzleEqualities(node: Node, out: Node[], depth: number): void {
  const call = unwrap(node);
  if (call.type !== AST_NODE_TYPES.CallExpression || depth > 4) return;
  const name = calleeName(call);
  if (name === 'and') for (const a of call.arguments) if (a.type !== AST_NODE_TYPES.SpreadElement) drizzleEqualities(a, out, depth + 1);
  const value = call.arguments[1];
  if (name === 'eq' && value && value.type !== AST_NODE_TYPES.SpreadElement) out.push(value);
}

export function chainEqualityValues(links: readonly TSESTree.CallExpression[]): Node[] {
  const out: Node[] = [];
  for (const link of links) {
    const name = calleeName(link) ?? '';
    const [a, b, c] = link.arguments.map((x) => (x.type === AST_NODE_TYPES.SpreadElement ? undefined : x));
    if (name === 'eq' && a && staticString(a) !== undefined && b) out.push(b);
    if (IN_LIST.test(name) && a && staticString(a) !== undefined && b) out.push(b);
    if (!WHERE.test(name) || !a) continue;
    const first = unwrap(a);
    if (staticString(a) !== undefined) {
      if (b && c && staticString(b) === '=') out.push(c);
      else if (b && !c) out.push(b);
    } else if (first.type === AST_NODE_TYPES.ObjectExpression) {
      for (const p of first.properties) if (p.type === AST_NODE_TYPES.Property) out.push(p.value as Node);
    } else drizzleEqualities(a, out, 0);
  }
  return out;
}
