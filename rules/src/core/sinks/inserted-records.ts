/**
 * Records a call path has just created: `const payment = await payments.create({...})`, then an
 * update `WHERE id = payment.id`. No other holder knows that record yet, so the update is no late
 * write over a newer holder's data: the row belongs to whoever inserted it.
 *
 * An insert is a library create (`INSERT_METHOD`), a `save()` of an object built with `new` in
 * the same function, or a call to a project function whose summary returns what it inserted.
 * The record stays the holder's when it is read back by the id the insert returned
 * (`findOne(insertedId)`), carried in an object the function returns (`{ ...props, document }`),
 * or handed through the function's own steps in a `let` (`doc = await addTags(doc)`).
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, enclosingFunction, unwrap, walk, type FunctionNode, type Node } from '../ast.js';
import { INSERT_METHOD, RESULT_ROWS_MEMBERS } from '../models/sinks.js';
import { RECORD_READ_METHOD } from '../models/record-reads.js';
import { isFreshKey } from '../locks/fresh-keys.js';
import { sqlTextOf } from '../locks/advisory-scope.js';
import type { FunctionSummary } from '../modules/summaries.js';

export interface InsertedRecordInput {
  sourceCode: SourceCode;
  /** The summary of the project function a call invokes; undefined for a library call or an unknown one. */
  summaryOf(call: TSESTree.CallExpression): FunctionSummary | undefined;
}

/** The variables of `fn` bound to a record an insert in `fn` returned. */
export function insertedRecords(fn: FunctionNode, input: InsertedRecordInput): Set<string> {
  const names = new Set<string>();
  if (fn.body.type !== AST_NODE_TYPES.BlockStatement) return names;
  walk(fn.body, input.sourceCode.visitorKeys, (n) => {
    if (n.type !== AST_NODE_TYPES.VariableDeclarator || !n.init || enclosingFunction(n) !== fn) return;
    if (n.parent?.type !== AST_NODE_TYPES.VariableDeclaration || !isInsertResult(n.init, names, input)) return;
    if (n.id.type === AST_NODE_TYPES.Identifier) {
      if (n.parent.kind === 'const' || threadedThrough(n.id, input.sourceCode)) names.add(n.id.name);
    } else if (n.parent.kind === 'const') for (const name of destructuredRecords(n.id, 0, returnsRowsObject(n.init))) names.add(name);
  });
  for (const name of freshIdsInserted(fn, input.sourceCode)) names.add(name);
  for (const name of assignedOnlyInserts(fn, names, input)) names.add(name);
  return names;
}

/**
 * A `let` declared empty (`let jobId: string | null = null`) whose every assignment is an insert's
 * result (`jobId = await createJob(...)`): until then it names nothing, and after, the new record.
 */
function assignedOnlyInserts(fn: FunctionNode, known: ReadonlySet<string>, input: InsertedRecordInput): string[] {
  const out: string[] = [];
  walk(fn.body, input.sourceCode.visitorKeys, (n) => {
    if (n.type !== AST_NODE_TYPES.VariableDeclarator || n.id.type !== AST_NODE_TYPES.Identifier || enclosingFunction(n) !== fn) return;
    if (n.parent?.type !== AST_NODE_TYPES.VariableDeclaration || n.parent.kind !== 'let') return;
    const init = n.init && unwrap(n.init);
    if (init && !(init.type === AST_NODE_TYPES.Literal && init.value === null) && !(init.type === AST_NODE_TYPES.Identifier && init.name === 'undefined')) return;
    const variable = ASTUtils.findVariable(input.sourceCode.getScope(n), n.id.name);
    const writes = variable?.references.filter((r) => r.isWrite() && !r.init) ?? [];
    const fromInserts = writes.length > 0 && writes.every((r) => {
      const assignment = r.identifier.parent;
      return assignment?.type === AST_NODE_TYPES.AssignmentExpression && assignment.operator === '=' && assignment.left === r.identifier && isInsertResult(assignment.right, known, input);
    });
    if (fromInserts) out.push(n.id.name);
  });
  return out;
}

const INSERT_SQL = /^\s*INSERT\b/i;
const UPSERT_SQL = /\bON\s+(?:CONFLICT\b[\s\S]*\bDO\s+UPDATE|DUPLICATE\s+KEY\s+UPDATE)\b/i;

/**
 * Ids `fn` makes itself (`const id = \`job_${randomUUID()}\``, a project's `newId()`) and inserts a
 * record under (`INSERT INTO jobs (id, ...) VALUES ($1, ...)` bound to it, or a library create
 * whose arguments carry it): the identity of a record no other holder knows yet, as the id an
 * insert hands back is. An upsert may write over someone's row and makes nothing its own.
 */
function freshIdsInserted(fn: FunctionNode, sourceCode: SourceCode): string[] {
  const fresh: TSESTree.Identifier[] = [];
  walk(fn.body, sourceCode.visitorKeys, (n) => {
    if (n.type !== AST_NODE_TYPES.VariableDeclarator || n.id.type !== AST_NODE_TYPES.Identifier || !n.init || enclosingFunction(n) !== fn) return;
    if (n.parent?.type === AST_NODE_TYPES.VariableDeclaration && n.parent.kind === 'const' && isFreshKey(n.init, sourceCode, () => false)) fresh.push(n.id);
  });
  if (fresh.length === 0) return [];
  const out: string[] = [];
  const mentions = (nodes: readonly Node[], name: string) => {
    let found = false;
    for (const node of nodes) walk(node, sourceCode.visitorKeys, (m) => { if (m.type === AST_NODE_TYPES.Identifier && m.name === name) found = true; });
    return found;
  };
  walk(fn.body, sourceCode.visitorKeys, (n) => {
    if (n.type !== AST_NODE_TYPES.CallExpression && n.type !== AST_NODE_TYPES.TaggedTemplateExpression) return;
    const text = sqlTextOf(n);
    const sqlInsert = text !== undefined && INSERT_SQL.test(text) && !UPSERT_SQL.test(text);
    const libraryInsert = n.type === AST_NODE_TYPES.CallExpression && calleeObject(n) !== undefined && INSERT_METHOD.test(calleeName(n) ?? '') && !/upsert/i.test(calleeName(n) ?? '');
    if (!sqlInsert && !libraryInsert) return;
    const carried: Node[] = n.type === AST_NODE_TYPES.TaggedTemplateExpression ? n.quasi.expressions : n.arguments;
    for (const id of fresh) if (!out.includes(id.name) && mentions(carried, id.name)) out.push(id.name);
  });
  return out;
}

/**
 * The names a destructuring of an insert's result binds to the new records or their identity:
 * `const [row] = ...returning()`, `const [{ id }] = ...`, `const { id } = await repo.create(x)`;
 * not another record's key (`const { orderId } = ...`).
 */
function destructuredRecords(pattern: TSESTree.DestructuringPattern, depth = 0, rowsObject = false): string[] {
  if (depth > 3) return [];
  const p = pattern.type === AST_NODE_TYPES.AssignmentPattern ? pattern.left : pattern;
  if (p.type === AST_NODE_TYPES.Identifier) return [p.name];
  if (p.type === AST_NODE_TYPES.ArrayPattern) return p.elements.flatMap((e) => (e && e.type !== AST_NODE_TYPES.RestElement ? destructuredRecords(e, depth + 1) : []));
  if (p.type !== AST_NODE_TYPES.ObjectPattern) return [];
  const out: string[] = [];
  for (const prop of p.properties) {
    if (prop.type !== AST_NODE_TYPES.Property || prop.computed || prop.key.type !== AST_NODE_TYPES.Identifier) continue;
    // `const { data: rows } = await db.from('t').insert(x).select()`: the member holding the new rows.
    if (rowsObject && RESULT_ROWS_MEMBERS.has(prop.key.name)) {
      out.push(...destructuredRecords(prop.value as TSESTree.DestructuringPattern, depth + 1));
      continue;
    }
    if (!IDENTITY_MEMBER.test(prop.key.name)) continue;
    const value = prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value;
    if (value.type === AST_NODE_TYPES.Identifier) out.push(value.name);
  }
  return out;
}

/** A builder's insert run for its rows (`.insert(x).select()`), which resolves to a result object holding them. */
function returnsRowsObject(init: Node): boolean {
  const n = unwrap(init.type === AST_NODE_TYPES.AwaitExpression ? init.argument : init);
  if (n.type !== AST_NODE_TYPES.CallExpression || calleeName(n) !== 'select') return false;
  const object = calleeObject(n);
  return !!object && insertInChain(object);
}

/**
 * A `let` whose every later value is the record handed through a step of the function and
 * returned (`doc = await addTags(doc, props)`, `doc = await notify({ newDoc: doc })`): still the
 * record it was bound to.
 */
function threadedThrough(id: TSESTree.Identifier, sourceCode: SourceCode): boolean {
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  if (!variable) return false;
  return variable.references.every((ref) => {
    if (!ref.isWrite() || ref.init) return true;
    const value = ref.writeExpr && unwrap(ref.writeExpr as Node);
    if (value?.type !== AST_NODE_TYPES.CallExpression) return false;
    return value.arguments.some((arg) => {
      const a = unwrap(arg);
      if (a.type === AST_NODE_TYPES.Identifier) return a.name === id.name;
      return a.type === AST_NODE_TYPES.ObjectExpression && a.properties.some((p) => p.type === AST_NODE_TYPES.Property && unwrap(p.value as Node).type === AST_NODE_TYPES.Identifier && (unwrap(p.value as Node) as TSESTree.Identifier).name === id.name);
    });
  });
}

/** An expression that is an insert's result, or read from one (`row.id`, `(await repo.create(x))._id`). */
export function isInsertResult(node: Node, known: ReadonlySet<string>, input: InsertedRecordInput): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) return known.has(n.name);
  if (n.type === AST_NODE_TYPES.MemberExpression) return isInsertResult(n.object, known, input);
  // `{ ...props, document: inserted }`: an object that carries the record.
  if (n.type === AST_NODE_TYPES.ObjectExpression) return n.properties.some((p) => p.type === AST_NODE_TYPES.Property && isInsertResult(p.value as Node, known, input));
  // `insertResult.identifiers || []`: the ids, or none.
  if (n.type === AST_NODE_TYPES.LogicalExpression) return isInsertResult(n.left, known, input);
  if (n.type !== AST_NODE_TYPES.CallExpression) return false;
  const summary = input.summaryOf(n);
  if (summary) return summary.returnsInserted === true;
  const method = calleeName(n) ?? '';
  const object = calleeObject(n);
  if (!object) return false;
  if (INSERT_METHOD.test(method)) return true;
  // `findOne(insertedId)`: the record read back by the id its insert returned.
  if (RECORD_READ_METHOD.test(method) && n.arguments.length > 0 && readsInserted(n.arguments[0], known, input.sourceCode)) return true;
  // `(result.identifiers || []).map((r) => r.id).filter(Boolean)`: the same records' ids, reshaped.
  if (ARRAY_RESHAPE.test(method)) return isInsertResult(object, known, input);
  // `qb.insert().values(rows).returning('id').execute()`: a query builder's insert, run;
  // Supabase `.from('t').insert(rows).select()` hands the new rows back the same way.
  if (BUILDER_RUN.test(method) && insertInChain(object)) return true;
  // `new Model(data).save()`, or `doc.save()` on `const doc = new Model(data)` of this function.
  return method === 'save' && builtWithNew(object, input.sourceCode);
}

const ARRAY_RESHAPE = /^(?:map|filter|flat|flatMap|slice|concat)$/;
const BUILDER_RUN = /^(?:execute|then|returning|select)$/;

/** A builder chain with an `insert()` link and no `update`/`orUpdate` link (an upsert may write over rows). */
function insertInChain(node: Node): boolean {
  let inserts = false;
  for (let current = unwrap(node); current.type === AST_NODE_TYPES.CallExpression; ) {
    const name = calleeName(current) ?? '';
    if (/^(?:update|orUpdate|onConflict|merge|upsert)$/.test(name)) return false;
    if (name === 'insert') inserts = true;
    const object = calleeObject(current);
    if (!object) break;
    current = unwrap(object);
  }
  return inserts;
}

function builtWithNew(node: Node, sourceCode: SourceCode): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.NewExpression) return true;
  if (n.type !== AST_NODE_TYPES.Identifier) return false;
  const def = ASTUtils.findVariable(sourceCode.getScope(n), n.name)?.defs[0];
  return def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.type === AST_NODE_TYPES.VariableDeclarator && !!def.node.init && unwrap(def.node.init).type === AST_NODE_TYPES.NewExpression;
}

/** Members that are a record's own identity; any other (`order.itemId`) names another record. */
const IDENTITY_MEMBER = /^(?:_?id|uuid|pk|key|insertedId)$/i;

/**
 * Whether an expression picks a record an insert returned: the record itself or its identity
 * (`row`, `row.id`, `payment._id.toString()`), not another record it refers to (`order.itemId`).
 */
export function readsInserted(node: Node | undefined, names: ReadonlySet<string>, sourceCode: SourceCode): boolean {
  if (!node || names.size === 0) return false;
  let found = false;
  walk(node, sourceCode.visitorKeys, (n) => {
    if (found || n.type !== AST_NODE_TYPES.Identifier || !names.has(n.name)) return;
    const parent = n.parent;
    if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.property === n && !parent.computed) return;
    if (parent?.type === AST_NODE_TYPES.Property && parent.key === n && !parent.shorthand) return;
    if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === n) {
      const name = parent.computed ? undefined : parent.property.type === AST_NODE_TYPES.Identifier ? parent.property.name : undefined;
      if (!name || !IDENTITY_MEMBER.test(name)) return;
    }
    found = true;
  });
  return found;
}
