/**
 * knex query-builder writes: `db('t').where(...).update({...})`, `.del()`, and
 * `.insert(row).onConflict(k).merge()`. The fence is a `.where(<token column>, '<', token)`
 * link in the same chain.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, memberName, propertyKeyName, staticString, unwrap, type Node } from '../ast.js';
import { sinkModel, type SinkModel } from '../models/sinks.js';
import { receiverKey, type ReceiverTable } from '../modules/receivers.js';
import { bareColumn, isCompareAndSetColumnByName, isIncrement, isMonotonicColumn, isTokenColumnByName, sameColumn, sameValueExpression, type FenceJudgeOptions } from './fence-judgement.js';

const KNEX = sinkModel('knex');
/** The write methods of the catalog's knex entry. */
const TERMINALS = new Set(KNEX.writes.map((w) => w.method));
const ROOT_METHODS = new Set(['table', 'from', 'into', 'queryBuilder', 'update']);
const WHERE_METHODS = /^(?:where|andWhere|whereRaw|andWhereRaw|orWhere|orWhereRaw)$/;

export interface KnexWrite {
  node: TSESTree.CallExpression;
  model: SinkModel;
  method: string;
  kind: 'update' | 'delete' | 'upsert';
  table?: string;
  /** Every link of the chain, outermost first (links after the terminal included). */
  links: TSESTree.CallExpression[];
  /** The object given to `.update(obj)` / `.merge(obj)` / `.insert(obj)`. */
  values?: TSESTree.ObjectExpression;
}

function linkObject(call: TSESTree.CallExpression): Node | undefined {
  const callee = unwrap(call.callee);
  return callee.type === AST_NODE_TYPES.MemberExpression ? unwrap(callee.object) : undefined;
}

/**
 * Objection.js (a model layer over knex): `Device.query(trx).where('user_id', id).patch({...})`,
 * `Order.query().findById(id).delete()`, `row.$query(trx).patch({...})`, `Item.query().patchAndFetchById(id, {...})`.
 * The chain is knex's, so a `.where(<token column>, '<', token)` link fences it the same way.
 */
const OBJECTION_WRITES: Record<string, { kind: KnexWrite['kind']; valuesArg?: number }> = {
  patch: { kind: 'update', valuesArg: 0 },
  update: { kind: 'update', valuesArg: 0 },
  patchAndFetch: { kind: 'update', valuesArg: 0 },
  updateAndFetch: { kind: 'update', valuesArg: 0 },
  patchAndFetchById: { kind: 'update', valuesArg: 1 },
  updateAndFetchById: { kind: 'update', valuesArg: 1 },
  delete: { kind: 'delete' },
  deleteById: { kind: 'delete' },
};

/** A node without the type-only wrappers around it (`x as Model`, `x!`), keeping an `await`. */
function withoutTypeWrappers(node: Node): Node {
  let current = node;
  while (current.type === AST_NODE_TYPES.TSAsExpression || current.type === AST_NODE_TYPES.TSNonNullExpression || current.type === AST_NODE_TYPES.TSSatisfiesExpression || current.type === AST_NODE_TYPES.TSTypeAssertion) current = current.expression;
  return current;
}

/** The `.query(...)` (or an instance's `.$query(...)`) a chain starts from, when it starts from a model. */
function objectionRoot(call: TSESTree.CallExpression): TSESTree.CallExpression[] | undefined {
  const links: TSESTree.CallExpression[] = [call];
  let current: Node | undefined = linkObject(call);
  while (current && current.type === AST_NODE_TYPES.CallExpression) {
    links.push(current);
    const name = calleeName(current);
    const owner = linkObject(current);
    if (name === '$query' || name === '$relatedQuery') return links;
    if (name === 'query' && owner) {
      const root = unwrap(owner);
      // `unwrap` steps through `await`: ask of the object as written whether it is an awaited value.
      const callee = unwrap(current.callee);
      const awaited = callee.type === AST_NODE_TYPES.MemberExpression && withoutTypeWrappers(callee.object).type === AST_NODE_TYPES.AwaitExpression;
      // A model class (`Device.query()`, `models.Device.query()`), `this.query()` in one of its statics,
      // or a model handed back at run time (`(await this.modelFor(kind)).query()`).
      const last = root.type === AST_NODE_TYPES.Identifier ? root.name : root.type === AST_NODE_TYPES.MemberExpression ? memberName(root) : undefined;
      if ((last && /^[A-Z]/.test(last)) || root.type === AST_NODE_TYPES.ThisExpression || awaited) return links;
      return undefined;
    }
    current = owner;
  }
  return undefined;
}

function readObjectionWrite(call: TSESTree.CallExpression, method: string): KnexWrite | undefined {
  const spec = OBJECTION_WRITES[method];
  const links = spec && objectionRoot(call);
  if (!spec || !links) return undefined;
  let outer: Node = call;
  while (outer.parent?.type === AST_NODE_TYPES.MemberExpression && outer.parent.object === outer && outer.parent.parent?.type === AST_NODE_TYPES.CallExpression) {
    outer = outer.parent.parent;
    links.unshift(outer as TSESTree.CallExpression);
  }
  const valuesArg = spec.valuesArg !== undefined ? call.arguments[spec.valuesArg] : undefined;
  const values = valuesArg && valuesArg.type === AST_NODE_TYPES.ObjectExpression ? valuesArg : undefined;
  return { node: call, model: KNEX, method, kind: spec.kind, links, values };
}

/** The chain as a knex write, or undefined when the call is not one. */
export function readKnexWrite(call: TSESTree.CallExpression, receivers: ReceiverTable): KnexWrite | undefined {
  const method = calleeName(call);
  if (!method) return undefined;
  if (Object.hasOwn(OBJECTION_WRITES, method)) {
    const objection = readObjectionWrite(call, method);
    if (objection) return objection;
  }
  if (!TERMINALS.has(method)) return undefined;
  // `.update()` inside a longer chain (`.update(...).returning('*')`) is still the write.
  const links: TSESTree.CallExpression[] = [call];
  let current: Node | undefined = linkObject(call);
  let table: string | undefined;
  let rootKnown = false;
  // A table named at run time (`this.db(this.table)` in a generic repository) is still a write
  // when the root is known to be knex by what it is, not by its name.
  let rootResolved = false;
  let tableGiven = false;
  while (current && current.type === AST_NODE_TYPES.CallExpression) {
    links.push(current);
    const callee = unwrap(current.callee);
    // `this.db('t')`: a knex instance kept in a field (or any member) is called like `knex('t')`.
    const calledMember = callee.type === AST_NODE_TYPES.MemberExpression && receivers.kindOf(callee)?.type === 'knex';
    if (callee.type === AST_NODE_TYPES.Identifier || calledMember || (callee.type === AST_NODE_TYPES.MemberExpression && ROOT_METHODS.has(calleeName(current) ?? '') && !(unwrap(callee.object).type === AST_NODE_TYPES.CallExpression))) {
      // Root: `knex('t')` or `knex.table('t')`.
      table = current.arguments[0] ? staticString(current.arguments[0]) : undefined;
      tableGiven = current.arguments[0] !== undefined && current.arguments[0].type !== AST_NODE_TYPES.SpreadElement;
      const rootReceiver = callee.type === AST_NODE_TYPES.Identifier || calledMember ? callee : unwrap(callee.object);
      const kind = receivers.kindOf(rootReceiver);
      const key = receiverKey(rootReceiver) ?? '';
      // Resolved receivers decide; a name is the last resort for one that resolves to nothing.
      rootKnown = kind ? kind.type === 'knex' : KNEX.receiverNames!.test(key.split('.').pop() ?? '');
      rootResolved = kind?.type === 'knex';
      break;
    }
    current = linkObject(current);
  }
  if (!rootKnown || (table === undefined && !(rootResolved && tableGiven))) return undefined;
  // Links after the terminal belong to the same query: `.merge().where(...)`, `.update(...).returning('*')`.
  let outer: Node = call;
  while (outer.parent?.type === AST_NODE_TYPES.MemberExpression && outer.parent.object === outer && outer.parent.parent?.type === AST_NODE_TYPES.CallExpression) {
    outer = outer.parent.parent;
    links.unshift(outer as TSESTree.CallExpression);
  }
  const names = links.map((l) => calleeName(l));
  if (method === 'merge' && !(names.includes('onConflict') && names.includes('insert'))) return undefined;
  const kind = method === 'merge' ? 'upsert' : method === 'update' ? 'update' : 'delete';
  const valueLink = links.find((l) => ['update', 'merge'].includes(calleeName(l) ?? '') && l.arguments[0]?.type === AST_NODE_TYPES.ObjectExpression) ?? links.find((l) => calleeName(l) === 'insert');
  const valuesArg = valueLink?.arguments[0];
  const values = valuesArg && valuesArg.type === AST_NODE_TYPES.ObjectExpression ? valuesArg : undefined;
  return { node: call, model: KNEX, method, kind, table, links, values };
}

export interface KnexVerdict {
  tokenCompared: boolean;
  tokenStored: boolean;
  column?: string;
  /** The JS value compared with the column, and whether by order (`<`, `<=`). */
  value?: Node;
  ordered?: boolean;
}

/** The value the write stores in `column`, when its values object is a literal. */
function storedValue(write: KnexWrite, column: string): Node | undefined {
  for (const p of write.values?.properties ?? []) {
    if (p.type === AST_NODE_TYPES.Property && sameColumn(propertyKeyName(p) ?? '', column)) return p.value;
  }
  return undefined;
}

/** Whether comparing `column` with `value` by `op` in this write checks a fence token (see `fence-judgement.ts`). */
function comparesToken(write: KnexWrite, column: string, op: string, value: Node | undefined, options: FenceJudgeOptions): boolean {
  if (value && options.isTokenValue(value)) return true;
  if (value && !options.isNonTokenValue?.(value) && isMonotonicColumn(column)) {
    const stored = storedValue(write, column);
    if ((op === '<' || op === '<=') && stored && sameValueExpression(stored, value)) return true;
    if (op === '=' && isIncrement(stored, column)) return true;
  }
  if (isTokenColumnByName(column, options)) return true;
  return op === '=' && isCompareAndSetColumnByName(column);
}

/** `?` bindings of a raw condition: `whereRaw('epoch < ?', [epoch])`. */
function rawBinding(link: TSESTree.CallExpression, index: number): Node | undefined {
  const bindings = link.arguments[1];
  if (!bindings || bindings.type !== AST_NODE_TYPES.ArrayExpression) return undefined;
  const element = bindings.elements[index];
  return element && element.type !== AST_NODE_TYPES.SpreadElement ? element : undefined;
}

/** Whether a `.where*` link of the chain compares a token, and whether the write stores it. */
export function judgeKnexWrite(write: KnexWrite, options: FenceJudgeOptions): KnexVerdict {
  let column: string | undefined;
  let op: string | undefined;
  let compared: Node | undefined;
  for (const link of write.links) {
    const name = calleeName(link) ?? '';
    if (!WHERE_METHODS.test(name)) continue;
    const [a, b, c] = link.arguments;
    if (/Raw$/.test(name)) {
      const text = a ? staticString(a) : undefined;
      const m = text && /([A-Za-z_."]+)\s*(<=|<|=)\s*(\?|:\w+|\$\d+)/.exec(text);
      if (!m) continue;
      const col = bareColumn(m[1].replace(/"/g, ''));
      const index = m[3] === '?' ? (text.slice(0, m.index).match(/\?/g) ?? []).length : -1;
      if (comparesToken(write, col, m[2], index >= 0 ? rawBinding(link, index) : undefined, options)) {
        column = col;
        op = m[2];
        compared = index >= 0 ? rawBinding(link, index) : undefined;
      }
      continue;
    }
    if (a && a.type === AST_NODE_TYPES.ObjectExpression) {
      for (const p of a.properties) {
        if (p.type !== AST_NODE_TYPES.Property) continue;
        const key = bareColumn(propertyKeyName(p) ?? '');
        if (key && comparesToken(write, key, '=', p.value, options)) {
          column = key;
          op = '=';
          compared = p.value;
        }
      }
      continue;
    }
    const col = a ? staticString(a) : undefined;
    if (col === undefined) continue;
    const operator = c !== undefined ? (b ? staticString(b) : undefined) : '=';
    const value = c ?? b;
    if (!operator || !value || value.type === AST_NODE_TYPES.SpreadElement || !['<', '<=', '='].includes(operator)) continue;
    if (comparesToken(write, bareColumn(col), operator, value, options)) {
      column = bareColumn(col);
      op = operator;
      compared = value;
    }
  }
  if (!column) return { tokenCompared: false, tokenStored: false };
  const needsStore = (op === '<' || op === '<=') && write.kind !== 'delete';
  const stored =
    !needsStore ||
    (write.values?.properties.some((p) => p.type === AST_NODE_TYPES.Property && sameColumn(propertyKeyName(p) ?? '', column)) ??
      // `.merge()` with no argument merges the inserted row; without a row object we cannot tell.
      true);
  return { tokenCompared: true, tokenStored: stored, column, value: compared, ordered: op === '<' || op === '<=' };
}
