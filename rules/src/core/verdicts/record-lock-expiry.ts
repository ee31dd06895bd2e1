import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, receiverPath, unwrap, type Node } from '../ast.js';
import { LOCK_EXPIRY_COLUMN } from '../models/lock-tables.js';
import { tableName } from '../sinks/object-writes.js';
import type { FileAnalysis } from '../file-analysis.js';

/**
 * Whether a lock record never expires, as far as the file shows: the file creates records in
 * the lock table (`new Mutex({ _id }).save()`, `Mutex.create({ ... })`,
 * `prisma.mutex.create({ data })`, an upsert), and every one is a literal that sets no
 * expiry-named field and no value from the clock. Such a record is held until it is deleted:
 * no lease lapses, so a delete by its name frees no newer holder's lock. When the file creates
 * none, or one it cannot read in full (a spread, a variable), the record may expire: false.
 */
export function lockRecordNeverExpires(table: string, analysis: FileAnalysis): boolean {
  let created = 0;
  for (const node of analysis.constructed) {
    if (tableName(calleeName(node)) !== table) continue;
    const fields = firstObject(node.arguments);
    if (!fields || mayExpire(fields)) return false;
    created++;
  }
  for (const call of analysis.calls) {
    const method = calleeName(call) ?? '';
    if (!CREATE.test(method) && !UPSERT.test(method)) continue;
    const object = calleeObject(call);
    if (!object || tableName(receiverPath(object).pop()) !== table) continue;
    const documents = createdDocuments(call, method);
    if (documents === undefined) continue;
    if (documents === false || documents.some(mayExpire)) return false;
    created++;
  }
  return created > 0;
}

/** Methods that insert a record through an object API. */
const CREATE = /^(?:create|createOne|insert|insertOne|save|findOrCreate)$/;
/** Methods that insert a record when their option says `upsert: true`. */
const UPSERT = /^(?:updateOne|findOneAndUpdate|upsert)$/;
/** A value read off the clock, or a duration that sets one (`Date.now() + ttl`, `dayjs().add(...)`). */
const CLOCK_TEXT = /\b(?:Date|now|moment|dayjs|DateTime|Temporal|ttl|expire|timeout)\b/i;

/**
 * The literals a creating call writes: Prisma `{ data }` (and an upsert's `create`), Sequelize
 * `findOrCreate({ where, defaults })`, a MongoDB upsert's filter and update document, or the
 * record itself. undefined when the call creates nothing (an update without `upsert: true`);
 * false when what it writes is not a literal.
 */
function createdDocuments(call: TSESTree.CallExpression, method: string): TSESTree.ObjectExpression[] | false | undefined {
  const first = firstObject(call.arguments);
  if (method === 'updateOne' || method === 'findOneAndUpdate') {
    const options = asObject(call.arguments[2]);
    const upsert = options && property(options, 'upsert');
    if (!upsert || unwrap(upsert).type !== AST_NODE_TYPES.Literal || (unwrap(upsert) as TSESTree.Literal).value !== true) return undefined;
    const update = asObject(call.arguments[1]);
    return first && update ? [first, update] : false;
  }
  if (!first) return call.arguments.length > 0 ? false : undefined;
  const data = property(first, 'data') ?? property(first, 'create');
  if (data) return asObject(data) ? [asObject(data)!] : false;
  if (method === 'findOrCreate') {
    const parts = [property(first, 'where'), property(first, 'defaults')].filter((p): p is Node => p !== undefined);
    const objects = parts.map(asObject);
    return objects.every((o) => o !== undefined) ? (objects as TSESTree.ObjectExpression[]) : false;
  }
  return [first];
}

/** A literal that may give the record an end: a spread, an expiry-named field, or a value from the clock, at any depth. */
function mayExpire(object: TSESTree.ObjectExpression): boolean {
  for (const p of object.properties) {
    if (p.type === AST_NODE_TYPES.SpreadElement) return true;
    const key = p.key.type === AST_NODE_TYPES.Identifier ? p.key.name : p.key.type === AST_NODE_TYPES.Literal ? String(p.key.value) : undefined;
    if (key === undefined || LOCK_EXPIRY_COLUMN.test(key)) return true;
    const value = unwrap(p.value as Node);
    if (value.type === AST_NODE_TYPES.ObjectExpression) {
      if (mayExpire(value)) return true;
    } else if (valueMayBeClock(value)) return true;
  }
  return false;
}

function valueMayBeClock(node: Node): boolean {
  if (node.type === AST_NODE_TYPES.Identifier) return CLOCK_TEXT.test(node.name) || /at$|time|date|until/i.test(node.name);
  if (node.type === AST_NODE_TYPES.Literal || node.type === AST_NODE_TYPES.TemplateLiteral) return false;
  if (node.type === AST_NODE_TYPES.MemberExpression) return receiverPath(node).some((part) => CLOCK_TEXT.test(part) || /At$|time|date|until/i.test(part));
  if (node.type === AST_NODE_TYPES.NewExpression || node.type === AST_NODE_TYPES.CallExpression) {
    const name = calleeName(node) ?? '';
    const path = node.callee.type === AST_NODE_TYPES.MemberExpression ? receiverPath(node.callee) : [name];
    if (path.some((part) => CLOCK_TEXT.test(part))) return true;
    return node.arguments.some((a) => a.type === AST_NODE_TYPES.SpreadElement || valueMayBeClock(unwrap(a as Node)));
  }
  if (node.type === AST_NODE_TYPES.BinaryExpression) return valueMayBeClock(unwrap(node.left as Node)) || valueMayBeClock(unwrap(node.right));
  // Anything else (a conditional, a template with parts, an await) may hold a time.
  return true;
}

function firstObject(args: readonly TSESTree.CallExpressionArgument[]): TSESTree.ObjectExpression | undefined {
  return asObject(args[0]);
}

function asObject(node: Node | undefined): TSESTree.ObjectExpression | undefined {
  const n = node && node.type !== AST_NODE_TYPES.SpreadElement ? unwrap(node) : undefined;
  return n?.type === AST_NODE_TYPES.ObjectExpression ? n : undefined;
}

function property(object: TSESTree.ObjectExpression, name: string): Node | undefined {
  for (const p of object.properties) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = p.key.type === AST_NODE_TYPES.Identifier ? p.key.name : p.key.type === AST_NODE_TYPES.Literal ? String(p.key.value) : undefined;
    if (key === name) return p.value as Node;
  }
  return undefined;
}
