/**
 * Writes through object-shaped query APIs: Prisma, MongoDB/Mongoose, Sequelize, TypeORM,
 * Kysely, Drizzle and DynamoDB, read through the sinks catalog (`models/sinks.ts`: which
 * methods write, where their filter and values live). The fence is a token condition in the
 * filter the write itself sends (`{ fenceToken: { lt: token } }`, `{ fence_token: { $lt: token } }`,
 * `.where('fence_token', '<', token)`, `ConditionExpression: 'fence_token < :t'`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { visitorKeys as treeKeys } from '@typescript-eslint/visitor-keys';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, constantText, constObjectBefore, constValueBefore, enclosingFunction, mayBeEmpty, memberName, objectArgument, propertyKeyName, propertyValue, receiverPath, staticString, unwrap, walkPruned, type Node } from '../ast.js';
import { optimisticDrizzleCheck } from './optimistic-checks.js';
import { dynamoSetOnceClaim, setOnceChainClaim, setOnceObjectClaim } from './set-once-claims.js';
import { literalMarkerObjectClaim, transitionChainClaim, transitionObjectClaim } from './state-transitions.js';
import { readStateObjectCheck } from './optimistic-checks.js';
import { bareColumn, isCompareAndSetColumnByName, isIncrement, isMonotonicColumn, isTokenColumnByName, sameColumn, sameValueExpression, type FenceJudgeOptions } from './fence-judgement.js';
import { sinkModel, sinkWrite, type Place, type SinkModel, type SinkWrite, type WriteKind } from '../models/sinks.js';
import type { ReceiverTable } from '../modules/receivers.js';
import type { RecordWrite } from './record-writes.js';
import { BUILTIN_CATALOG } from '../models/catalog.js';

/** `object`: a project's own client declared in the settings (`SinkFamily` `object`). */
export type ObjectApi = 'prisma' | 'mongodb' | 'sequelize' | 'typeorm' | 'mikro-orm' | 'kysely' | 'drizzle' | 'supabase' | 'dynamodb' | 'object';

export interface ObjectWrite {
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  api: ObjectApi;
  /** The catalog entry of the library, and the write method (or command) it was read through. */
  model: SinkModel;
  method: string;
  kind: WriteKind;
  /** The filter object the write sends, when it is a literal (where / filter / criteria / command input). */
  filter?: TSESTree.ObjectExpression;
  /** The values object (data / $set / partial), when it is a literal. */
  values?: TSESTree.ObjectExpression;
  /** Every call of a builder chain (Kysely, Drizzle, TypeORM query builder). */
  links: TSESTree.CallExpression[];
  /** A MongoDB operation of a `bulkWrite`: its whole update document (`{ $set, $inc }`). */
  update?: TSESTree.ObjectExpression;
  /** MongoDB `bulkWrite([...])`: each operation read as a write of its own; the call is fenced when all are. */
  operations?: ObjectWrite[];
  /** An active-record write (`user.save()`): no filter of the caller's, so nothing to add a fence to. */
  record?: RecordWrite;
}

export interface ObjectVerdict {
  tokenCompared: boolean;
  tokenStored: boolean;
  column?: string;
  /** The JS value compared with the column (DynamoDB: the `:placeholder`'s value), and whether by order. */
  value?: Node;
  ordered?: boolean;
  /** DynamoDB: the attribute as the expressions write it (`#ft`) and the compared placeholder (`:t`). */
  expressionAttribute?: string;
  placeholder?: string;
  /**
   * A set-once claim (filled only while empty) or a compare-and-set on read state, rather than a
   * token: no fence whose refusal must be read.
   */
  tokenless?: boolean;
}

const PRISMA = sinkModel('prisma');
const MONGO = sinkModel('mongodb');
const DYNAMO = sinkModel('dynamodb');
const SEQUELIZE = sinkModel('sequelize');
const TYPEORM = sinkModel('typeorm');
const KYSELY = sinkModel('kysely');
const DRIZZLE = sinkModel('drizzle');
const TYPEORM_QB = sinkModel('typeorm-query-builder');
const POGI = sinkModel('pogi');
const SUPABASE = sinkModel('supabase');
const MIKRO = sinkModel('mikro-orm');
/** PostgREST filters and modifiers chained after a Supabase write: the chain may end on any of them. */
const SUPABASE_LINK = /^(?:eq|neq|gt|gte|lt|lte|like|ilike|is|in|contains|containedBy|match|not|or|filter|select|single|maybeSingle|throwOnError|returns|abortSignal|limit|order|range|csv)$/;
/** DynamoDB v3 command classes (`new UpdateCommand(input)`) and v2 DocumentClient methods. */
const DYNAMO_COMMANDS = new Set(DYNAMO.writes.filter((w) => /Command$/.test(w.method)).map((w) => w.method));

function asObject(node: Node | undefined): TSESTree.ObjectExpression | undefined {
  const n = node && unwrap(node);
  return n?.type === AST_NODE_TYPES.ObjectExpression ? n : undefined;
}

/**
 * An object argument written inline, or through a `const` bound to an object literal in an
 * enclosing block before the call (`const query = { _id: id }; Model.findOneAndUpdate(query, update)`).
 */
function argumentObject(call: TSESTree.CallExpression | TSESTree.NewExpression, index: number): TSESTree.ObjectExpression | undefined {
  const inline = objectArgument(call, index);
  if (inline) return inline;
  const arg = call.arguments[index];
  return arg && arg.type === AST_NODE_TYPES.Identifier ? constObjectBefore(arg) : undefined;
}

/**
 * A MongoDB update written as an aggregation pipeline of one stage (`[{ $set: {...} }]`): that
 * stage is the update document. A longer pipeline is read as no literal values.
 */
function pipelineStage(call: TSESTree.CallExpression | TSESTree.NewExpression, index: number): TSESTree.ObjectExpression | undefined {
  const arg = call.arguments[index] && unwrap(call.arguments[index]);
  if (arg?.type !== AST_NODE_TYPES.ArrayExpression || arg.elements.length !== 1) return undefined;
  const stage = arg.elements[0];
  return stage && stage.type === AST_NODE_TYPES.ObjectExpression ? stage : undefined;
}

/** Chain links from the outermost call down to the root. */
function chainLinks(call: TSESTree.CallExpression): TSESTree.CallExpression[] {
  const links: TSESTree.CallExpression[] = [call];
  let current: Node = unwrap(call.callee);
  while (current.type === AST_NODE_TYPES.MemberExpression) {
    const object = unwrap(current.object);
    if (object.type !== AST_NODE_TYPES.CallExpression) break;
    links.push(object);
    current = unwrap(object.callee);
  }
  return links;
}

/**
 * The chain a conflict clause's callback builds when it updates (`(oc) => oc.column('id').doUpdateSet({...}).where(...)`),
 * outermost link first; undefined when the clause does nothing or is built elsewhere.
 */
function upsertChain(links: readonly TSESTree.CallExpression[], upsert: NonNullable<SinkWrite['upsert']>): TSESTree.CallExpression[] | undefined {
  const clause = links.find((l) => calleeName(l) === upsert.link);
  const callback = clause?.arguments[0] && unwrap(clause.arguments[0] as Node);
  if (!callback || (callback.type !== AST_NODE_TYPES.ArrowFunctionExpression && callback.type !== AST_NODE_TYPES.FunctionExpression)) return undefined;
  const results: Node[] = [];
  if (callback.body.type !== AST_NODE_TYPES.BlockStatement) results.push(callback.body);
  else for (const statement of callback.body.body) if (statement.type === AST_NODE_TYPES.ReturnStatement && statement.argument) results.push(statement.argument);
  for (const result of results) {
    const outer = unwrap(result);
    if (outer.type !== AST_NODE_TYPES.CallExpression) continue;
    const chain = chainLinks(outer);
    if (chain.some((l) => calleeName(l) === upsert.update)) return chain;
  }
  return undefined;
}

/** The object a catalog place points at in a call (or in a link of its chain). */
function at(call: TSESTree.CallExpression | TSESTree.NewExpression, place: Place | undefined, links: readonly TSESTree.CallExpression[] = []): TSESTree.ObjectExpression | undefined {
  if (!place) return undefined;
  const host = place.link ? links.find((l) => calleeName(l) === place.link) : call;
  if (!host) return undefined;
  let value: TSESTree.ObjectExpression | undefined = argumentObject(host, place.arg) ?? (place.operator ? pipelineStage(host, place.arg) : undefined);
  for (const key of place.property ?? []) value = asObject(propertyValue(value, key));
  if (place.operator && value) {
    // `{ $set: {...} }`, or a replacement document without update operators.
    const inOperator = asObject(propertyValue(value, place.operator));
    if (inOperator) return inOperator;
    return value.properties.some((p) => p.type === AST_NODE_TYPES.Property && (propertyKeyName(p) ?? '').startsWith('$')) ? undefined : value;
  }
  return value;
}

function fromCatalog(
  node: TSESTree.CallExpression | TSESTree.NewExpression,
  model: SinkModel,
  write: SinkWrite,
  links: TSESTree.CallExpression[] = [],
  filterPlace: Place | undefined = write.filter,
  valuesPlace: Place | undefined = write.values,
): ObjectWrite {
  return { node, api: model.family as ObjectApi, model, method: write.method, kind: write.kind, filter: at(node, filterPlace, links), values: at(node, valuesPlace, links), links };
}

/**
 * `{ $max: { lastSeenAt: now } }`: an update made only of `$max` / `$min` moves each field one
 * way. A late writer's older value loses to the newer one already stored, so it is no late
 * write that a fence must stop (and a fence token would not order it better).
 */
function onlyMonotoneOperators(update: TSESTree.ObjectExpression | undefined): boolean {
  if (!update || update.properties.length === 0) return false;
  return update.properties.every((p) => p.type === AST_NODE_TYPES.Property && /^\$(?:max|min)$/.test(propertyKeyName(p) ?? ''));
}

/**
 * An upsert that changes nothing on a stored row: Prisma `upsert({ where, create, update: {} })`,
 * or a MongoDB update made only of `$setOnInsert`. It creates the row when absent and otherwise
 * leaves it as it is, so, like an insert, it writes over no newer data.
 */
function insertsOnly(update: Node | undefined): boolean {
  const u = update && unwrap(update);
  if (u?.type !== AST_NODE_TYPES.ObjectExpression) return false;
  if (u.properties.length === 0) return true;
  return u.properties.every((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === '$setOnInsert');
}

/**
 * Whether a place can be read in this call: the argument is missing (the write sends no such
 * condition) or an object literal down the property path. An argument held in a variable, or
 * built at run time, cannot be judged, so the write is not reported.
 */
function placeReadable(call: TSESTree.CallExpression, place: Place | undefined): boolean {
  if (!place) return true;
  const arg = call.arguments[place.arg];
  if (!arg) return !call.arguments.some((a) => a.type === AST_NODE_TYPES.SpreadElement);
  let value: Node | undefined = arg.type === AST_NODE_TYPES.SpreadElement ? undefined : unwrap(arg);
  for (const key of place.property ?? []) {
    if (value?.type !== AST_NODE_TYPES.ObjectExpression) return false;
    if (value.properties.some((p) => p.type === AST_NODE_TYPES.SpreadElement)) return false;
    const inner = propertyValue(value, key);
    if (!inner) return true;
    value = unwrap(inner);
  }
  return value?.type === AST_NODE_TYPES.ObjectExpression;
}

/** A write of a project's own client, declared in the settings: `api.put(url, body, { headers })`, `repo.save(key, value, cond)`. */
function ownObjectWrite(node: TSESTree.CallExpression, model: SinkModel, method: string): ObjectWrite | undefined {
  const write = sinkWrite(model, method);
  if (!write) return undefined;
  if (!placeReadable(node, write.filter) || !placeReadable(node, write.values)) return undefined;
  return fromCatalog(node, model, write);
}

/** Drizzle's conflict clause that updates the stored row: its `where`/`setWhere` is the write's condition. */
const DRIZZLE_UPSERT = 'onConflictDoUpdate';
const TERMINAL = /^(?:execute|executeTakeFirst|executeTakeFirstOrThrow|run|then|returning|returningAll|execute\w*)$/;

/**
 * Recognises an object-API write; undefined for anything else. Receivers resolved through
 * `receivers` (imports, factories, callbacks, types) decide the library; when a receiver
 * resolves to nothing, the call's shape and the catalog's receiver names are the last resort.
 */
export function readObjectWrite(node: TSESTree.CallExpression | TSESTree.NewExpression, receivers?: ReceiverTable): ObjectWrite | undefined {
  if (node.type === AST_NODE_TYPES.NewExpression) {
    const name = calleeName(node);
    if (!name || !DYNAMO_COMMANDS.has(name)) return undefined;
    return fromCatalog(node, DYNAMO, sinkWrite(DYNAMO, name)!);
  }
  const method = calleeName(node);
  if (!method) return undefined;
  // Every write below goes through a catalog write method, `bulkWrite` or the end of a builder chain: most calls
  // (`rows.map`, `list.push`) stop here, before their receiver is resolved.
  if (!(receivers?.catalog ?? BUILTIN_CATALOG).writeMethodNames.has(method) && !TERMINAL.test(method) && method !== 'where' && method !== 'set' && method !== DRIZZLE_UPSERT && method !== 'bulkWrite' && !SUPABASE_LINK.test(method)) return undefined;
  const callee = unwrap(node.callee);
  const object = callee.type === AST_NODE_TYPES.MemberExpression ? callee.object : undefined;
  const path = object ? receiverPath(object) : [];
  const receiver = path[path.length - 1] ?? '';
  // What the receiver resolves to; for Prisma the client is the receiver's receiver (`prisma.account`).
  const resolved = object ? receivers?.sinkModelOf(object) : undefined;
  const resolvedOwner = object && unwrap(object).type === AST_NODE_TYPES.MemberExpression ? receivers?.sinkModelOf((unwrap(object) as TSESTree.MemberExpression).object) : undefined;
  // A project's own client: its entry says which methods write; nothing else is read on it.
  if (resolved?.family === 'object') return ownObjectWrite(node, resolved, method);
  // A method the project defines on a receiver nothing resolves (`this.jobRepo.update(id, values)`):
  // the method's summary says what it writes, not the library its receiver's name suggests.
  if (!resolved && !resolvedOwner && receivers?.projectMethod?.(node)) return undefined;
  const supabase = supabaseWrite(node, method, receivers);
  if (supabase !== undefined) return supabase || undefined;
  if (SUPABASE_LINK.test(method) && !(receivers?.catalog ?? BUILTIN_CATALOG).writeMethodNames.has(method)) return undefined;

  // Prisma: prisma.<model>.update({ where, data }).
  const prismaWrite = sinkWrite(PRISMA, method);
  if (prismaWrite && object && unwrap(object).type === AST_NODE_TYPES.MemberExpression && node.arguments.length === 1) {
    const owner = resolvedOwner ?? resolved;
    const arg = objectArgument(node, 0);
    // Unresolved: a Prisma-like name, or Prisma's own shape (one `{ where, data }` argument, which no Mongo write takes).
    const prismaShape = !!arg && !!propertyValue(arg, 'where') && (prismaWrite.kind === 'delete' || !!propertyValue(arg, 'data') || !!propertyValue(arg, 'update'));
    const isPrisma = owner ? owner.id === 'prisma' : PRISMA.receiverNames!.test(path[path.length - 2] ?? '') || path[path.length - 2] === 'this' || prismaShape;
    if (isPrisma && arg && prismaWrite.kind === 'upsert' && insertsOnly(propertyValue(arg, 'update'))) return undefined;
    if (isPrisma && arg && (propertyValue(arg, 'where') || propertyValue(arg, 'data') || propertyValue(arg, 'update'))) return fromCatalog(node, PRISMA, prismaWrite);
  }
  // pogi: pgdb.<schema>.<table>.update(conditions, fields), the table read off a schema (`public`, PostgreSQL's default, by any client).
  const pogiWrite = sinkWrite(POGI, method);
  const pogiShape = path.length >= 3 && (POGI.receiverNames!.test(path[path.length - 3]) || path[path.length - 2] === 'public');
  if (pogiWrite && !resolved && (resolvedOwner ? resolvedOwner.id === 'pogi' : pogiShape) && objectArgument(node, 0)) {
    return fromCatalog(node, POGI, pogiWrite);
  }
  // DynamoDB DocumentClient v2: docClient.update({ TableName, Key, ... }).
  const dynamoWrite = sinkWrite(DYNAMO, method);
  if (dynamoWrite && !DYNAMO_COMMANDS.has(method) && (!resolved || resolved.id === 'dynamodb') && propertyValue(objectArgument(node, 0), 'TableName')) {
    return fromCatalog(node, DYNAMO, dynamoWrite);
  }
  // MikroORM, on a receiver known to be its EntityManager or repository: em.nativeUpdate(Entity, where, data), repo.nativeUpdate(where, data).
  const mikroWrite = sinkWrite(MIKRO, method);
  if (mikroWrite && (resolved ?? resolvedOwner)?.id === 'mikro-orm') {
    const entityFirst = !objectArgument(node, 0) && node.arguments.length >= (mikroWrite.kind === 'update' ? 3 : 2);
    const shift = (p: Place | undefined): Place | undefined => (p && entityFirst ? { ...p, arg: p.arg + 1 } : p);
    return fromCatalog(node, MIKRO, mikroWrite, [], shift(mikroWrite.filter), shift(mikroWrite.values));
  }
  if (resolved && resolved.id !== 'mongodb' && resolved.id !== 'sequelize' && resolved.id !== 'typeorm' && resolved.family !== 'kysely' && resolved.family !== 'drizzle' && resolved.id !== 'typeorm-query-builder') {
    // A pg pool, knex, Redis, Prisma or DynamoDB client: not one of the libraries below.
    if (!TERMINAL.test(method) && method !== 'where' && method !== 'set') return undefined;
  }
  // MongoDB / Mongoose: coll.bulkWrite([{ updateOne: { filter, update } }, ...]).
  if (method === 'bulkWrite' && node.type === AST_NODE_TYPES.CallExpression && (resolved ? resolved.id === 'mongodb' : /^[A-Z]/.test(receiver) || MONGO.receiverNames?.test(receiver))) {
    return bulkWriteOf(node);
  }
  // MongoDB / Mongoose: coll.updateOne(filter, update).
  const mongoWrite = sinkWrite(MONGO, method);
  if (mongoWrite && node.arguments.length >= 1 && (!resolved || resolved.id === 'mongodb')) {
    if (mongoWrite.kind === 'update' && onlyMonotoneOperators(argumentObject(node, 1))) return undefined;
    if (mongoWrite.kind === 'update' && argumentObject(node, 1)?.properties.length && insertsOnly(argumentObject(node, 1))) return undefined;
    const write = fromCatalog(node, MONGO, mongoWrite);
    if (argumentObject(node, 0) || argumentObject(node, 1)) return write;
  }
  // Sequelize: Model.update(values, { where }), Model.destroy({ where }).
  const sequelizeWrite = sinkWrite(SEQUELIZE, method);
  if (sequelizeWrite && (resolved ? resolved.id === 'sequelize' : /^[A-Z]/.test(receiver))) {
    const write = fromCatalog(node, SEQUELIZE, sequelizeWrite);
    if (write.filter) return write;
  }
  // TypeORM repository: repo.update(criteria, partial) / manager.update(Entity, criteria, partial).
  const typeormWrite = sinkWrite(TYPEORM, method);
  // `anything.getRepository(Entity).update(...)`: made by the library's own factory, whatever it was called on.
  const madeByFactory = !!object && unwrap(object).type === AST_NODE_TYPES.CallExpression && TYPEORM.clientFactories.includes(calleeName(unwrap(object) as TSESTree.CallExpression) ?? '');
  if (typeormWrite && (resolved ? resolved.id === 'typeorm' : TYPEORM.receiverNames!.test(receiver) || madeByFactory)) {
    // The manager form names the entity first: manager.update(Entity, criteria, partial), manager.delete(Entity, criteria).
    const entityFirst = !objectArgument(node, 0) && node.arguments.length >= (typeormWrite.kind === 'update' ? 3 : 2);
    const offset = /manager$/i.test(receiver) || entityFirst ? 1 : 0;
    const shift = (p: Place | undefined): Place | undefined => (p ? { ...p, arg: p.arg + offset } : undefined);
    return fromCatalog(node, TYPEORM, typeormWrite, [], shift(typeormWrite.filter), shift(typeormWrite.values));
  }
  // Builders: Kysely updateTable/deleteFrom, Drizzle update/delete(table), TypeORM createQueryBuilder().update().
  if (TERMINAL.test(method) || method === 'where' || method === 'set' || method === DRIZZLE_UPSERT) {
    const links = chainLinks(node);
    // Only the outermost link of a chain is the write; inner links are reached from it.
    if (node.parent?.type === AST_NODE_TYPES.MemberExpression && node.parent.object === node && node.parent.parent?.type === AST_NODE_TYPES.CallExpression) return undefined;
    const names = links.map((l) => calleeName(l) ?? '');
    for (const write of KYSELY.writes) {
      if (!names.includes(write.method)) continue;
      if (!write.upsert) return fromCatalog(node, KYSELY, write, links);
      // An insert writes over a stored row only through its conflict clause; its where links count too.
      const conflict = upsertChain(links, write.upsert);
      if (conflict) return fromCatalog(node, KYSELY, write, [...links, ...conflict]);
    }
    const root = links[links.length - 1];
    const rootName = calleeName(root) ?? '';
    if (names.includes('createQueryBuilder') || resolved?.id === 'typeorm-query-builder') {
      const write = TYPEORM_QB.writes.find((w) => names.includes(w.method));
      if (write) return { ...fromCatalog(node, TYPEORM_QB, write, links), api: 'typeorm' };
    }
    const drizzleWrite = sinkWrite(DRIZZLE, rootName);
    const drizzleLink = rootName === 'update' ? 'set' : rootName === 'insert' ? DRIZZLE_UPSERT : 'where';
    if (drizzleWrite && names.includes(drizzleLink) && root.arguments.length === 1 && unwrap(root.arguments[0] as Node).type !== AST_NODE_TYPES.ObjectExpression) {
      return fromCatalog(node, DRIZZLE, drizzleWrite, links);
    }
  }
  return undefined;
}

/**
 * Supabase: the outermost link of a chain rooted at `client.from(table)` that holds a write
 * link; false for another link of such a chain (the outermost one is the write), undefined when
 * the chain is not Supabase's.
 */
function supabaseWrite(node: TSESTree.CallExpression, method: string, receivers: ReceiverTable | undefined): ObjectWrite | false | undefined {
  if (!SUPABASE_LINK.test(method) && !sinkWrite(SUPABASE, method)) return undefined;
  const links = chainLinks(node);
  const root = links[links.length - 1];
  const client = calleeName(root) === 'from' ? calleeObject(root) : undefined;
  if (!client || root === node) return undefined;
  const resolved = receivers?.sinkModelOf(client);
  if (resolved ? resolved.id !== 'supabase' : !SUPABASE.receiverNames!.test(receiverPath(client).join('.'))) return undefined;
  const writeLink = links.find((l) => sinkWrite(SUPABASE, calleeName(l) ?? ''));
  if (!writeLink) return undefined;
  if (node.parent?.type === AST_NODE_TYPES.MemberExpression && node.parent.object === node && node.parent.parent?.type === AST_NODE_TYPES.CallExpression) return false;
  const write = sinkWrite(SUPABASE, calleeName(writeLink)!)!;
  // `upsert(rows, { ignoreDuplicates: true })` inserts or does nothing: it writes over no stored row.
  if (write.kind === 'upsert') {
    const ignore = propertyValue(objectArgument(writeLink, 1), 'ignoreDuplicates');
    if (ignore && unwrap(ignore).type === AST_NODE_TYPES.Literal && (unwrap(ignore) as TSESTree.Literal).value === true) return false;
  }
  return fromCatalog(node, SUPABASE, write, links);
}

const ORDERED = /^(?:lt|lte|\$lt|\$lte)$/;
const EQUAL = /^(?:equals|\$eq)$/;

export function camel(column: string): string {
  return column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}


/** The whole update document a MongoDB write sends (`{ $set, $inc, ... }`); the values object of the others. */
function wholeUpdate(write: ObjectWrite): TSESTree.ObjectExpression | undefined {
  const place = write.api === 'mongodb' && write.kind === 'update' && write.node.type === AST_NODE_TYPES.CallExpression ? sinkWrite(write.model, write.method)?.values : undefined;
  return place ? argumentObject(write.node, place.arg) : write.values;
}

/**
 * The fields an update empties, or may empty: `field: null` (or `x || null`, a record's state
 * written back) among its values, and the keys of a MongoDB `$unset` beside (or instead of) its
 * `$set` (`{ $unset: { lockedBy: '', lockedAt: '' } }`).
 */
export function clearedFields(write: ObjectWrite): string[] {
  const fields: string[] = [];
  const place = write.api === 'mongodb' && write.kind === 'update' && write.node.type === AST_NODE_TYPES.CallExpression ? sinkWrite(write.model, write.method)?.values : undefined;
  const update = place && argumentObject(write.node, place.arg);
  // `const $set = { ... }; updateOne(filter, { $set })`.
  const set = propertyValue(update, '$set');
  const values = write.values ?? (set && unwrap(set).type === AST_NODE_TYPES.Identifier ? constObjectBefore(unwrap(set) as TSESTree.Identifier) : undefined);
  for (const p of values?.properties ?? []) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p);
    if (key !== undefined && mayBeEmpty(p.value)) fields.push(key);
  }
  const unset = asObject(propertyValue(update, '$unset'));
  for (const p of unset?.properties ?? []) {
    const key = p.type === AST_NODE_TYPES.Property ? propertyKeyName(p) : undefined;
    if (key !== undefined) fields.push(key);
  }
  return fields;
}

/** The value the write stores under `key`, when its values object is a literal. */
function storedValue(write: ObjectWrite, key: string): Node | undefined {
  const record = write.api === 'dynamodb' ? asObject(propertyValue(write.filter, 'Item')) : write.values;
  for (const p of record?.properties ?? []) {
    if (p.type === AST_NODE_TYPES.Property && sameColumn(propertyKeyName(p) ?? '', key)) return p.value;
  }
  return undefined;
}

/** `data: { version: { increment: 1 } }`, Mongo `$inc: { version: 1 }`. */
function bumps(write: ObjectWrite, key: string): boolean {
  if (isIncrement(storedValue(write, key), key)) return true;
  if (write.api !== 'mongodb' || write.node.type !== AST_NODE_TYPES.CallExpression) return false;
  const inc = asObject(propertyValue(argumentObject(write.node, 1), '$inc'));
  return !!inc?.properties.some((p) => p.type === AST_NODE_TYPES.Property && sameColumn(propertyKeyName(p) ?? '', key));
}

/** Whether comparing `key` with `value` (`ordered`: less-than) checks a fence token (see `fence-judgement.ts`). */
function comparesToken(write: ObjectWrite, key: string, ordered: boolean, value: Node | undefined, options: FenceJudgeOptions): boolean {
  if (value && options.isTokenValue(value)) return true;
  if (value && !options.isNonTokenValue?.(value) && isMonotonicColumn(key)) {
    const stored = storedValue(write, key);
    if (ordered && stored && sameValueExpression(stored, value)) return true;
    if (!ordered && bumps(write, key)) return true;
  }
  if (isTokenColumnByName(key, options)) return true;
  return !ordered && isCompareAndSetColumnByName(key);
}

/** `{ fenceToken: { lt: t } }`, `{ fence_token: { $lt: t } }`, `{ fenceToken: LessThan(t) }`, `{ fenceToken: { [Op.lt]: t } }`, `{ fenceToken: t }`. */
interface FoundComparison {
  key: string;
  ordered: boolean;
  value?: Node;
}

function filterComparesToken(write: ObjectWrite, filter: TSESTree.ObjectExpression | undefined, options: FenceJudgeOptions): FoundComparison | undefined {
  for (const p of filter?.properties ?? []) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p);
    const value = unwrap(p.value);
    if (key === 'AND' || key === '$and') {
      const list = value.type === AST_NODE_TYPES.ArrayExpression ? value.elements : [value];
      for (const item of list) {
        const found = item && item.type !== AST_NODE_TYPES.SpreadElement ? filterComparesToken(write, asObject(item), options) : undefined;
        if (found) return found;
      }
      continue;
    }
    if (key === undefined) continue;
    if (value.type === AST_NODE_TYPES.ObjectExpression) {
      for (const inner of value.properties) {
        if (inner.type !== AST_NODE_TYPES.Property) continue;
        const op = propertyKeyName(inner) ?? (inner.computed ? memberName(inner.key) : undefined);
        if (!op) continue;
        const ordered = ORDERED.test(op);
        if ((ordered || EQUAL.test(op)) && comparesToken(write, key, ordered, inner.value, options)) return { key, ordered, value: inner.value };
      }
      continue;
    }
    if (value.type === AST_NODE_TYPES.CallExpression && /^(?:LessThan|LessThanOrEqual|Equal)$/.test(calleeName(value) ?? '')) {
      const ordered = calleeName(value) !== 'Equal';
      const arg = value.arguments[0];
      if (comparesToken(write, key, ordered, arg && arg.type !== AST_NODE_TYPES.SpreadElement ? arg : undefined, options)) return { key, ordered, value: arg && arg.type !== AST_NODE_TYPES.SpreadElement ? arg : undefined };
      continue;
    }
    // pogi and massive.js: `{ 'fence_token <': token }`, the operator after the column.
    const suffixed = /^\s*([\w.]+)\s*(<=|<|=)\s*$/.exec(key);
    if (suffixed) {
      const column = bareColumn(suffixed[1]);
      const ordered = suffixed[2] !== '=';
      if (comparesToken(write, column, ordered, value, options)) return { key: column, ordered, value };
      continue;
    }
    if (comparesToken(write, key, false, value, options)) return { key, ordered: false, value };
  }
  return undefined;
}

/** MongoDB: `{ $max: { fenceToken: t } }` stores the token as well as `$set` does. */
function mongoStoresElsewhere(write: ObjectWrite, column: string): boolean {
  if (write.api !== 'mongodb') return false;
  const max = asObject(propertyValue(argumentObject(write.node, 1), '$max'));
  return !!max && max.properties.length > 0 && valuesStore(max, column);
}

function valuesStore(values: TSESTree.ObjectExpression | undefined, column: string): boolean {
  if (!values) return true; // cannot see the values: do not claim they miss the token
  return values.properties.some((p) => {
    if (p.type !== AST_NODE_TYPES.Property) return p.type === AST_NODE_TYPES.SpreadElement;
    const key = propertyKeyName(p);
    return key !== undefined && sameColumn(key, column);
  });
}

/** TypeORM `where('r.epoch < :epoch', { epoch })`: the value bound to `:name`. */
function namedBinding(link: TSESTree.CallExpression, name: string): Node | undefined {
  const bindings = objectArgument(link, 1);
  for (const p of bindings?.properties ?? []) if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name) return p.value;
  return undefined;
}

/** Kysely/TypeORM/Drizzle builder: a where link comparing a token. */
function chainComparesToken(write: ObjectWrite, options: FenceJudgeOptions): FoundComparison | undefined {
  for (const link of write.links) {
    const name = calleeName(link) ?? '';
    if (write.api === 'supabase') {
      const found = supabaseCompares(write, link, name, options);
      if (found) return found;
      continue;
    }
    // Drizzle: onConflictDoUpdate({ target, set, setWhere: lt(t.fenceToken, token) }).
    if (name === DRIZZLE_UPSERT) {
      const config = asObject(link.arguments[0]);
      for (const key of ['setWhere', 'where']) {
        const condition = propertyValue(config, key);
        const found = condition && drizzleCompares(write, condition, options);
        if (found) return found;
      }
      continue;
    }
    if (!/^(?:where|andWhere|orWhere)$/.test(name)) continue;
    const [a, b, c] = link.arguments;
    const col = a ? staticString(a) : undefined;
    // Kysely: where('fence_token', '<', token).
    if (col !== undefined && c) {
      const op = b ? staticString(b) : undefined;
      if (op && ['<', '<=', '='].includes(op) && comparesToken(write, bareColumn(col), op !== '=', c.type !== AST_NODE_TYPES.SpreadElement ? c : undefined, options)) return { key: bareColumn(col), ordered: op !== '=', value: c.type !== AST_NODE_TYPES.SpreadElement ? c : undefined };
      continue;
    }
    // TypeORM: where('r.fence_token < :token', { token }).
    if (col !== undefined) {
      const m = /([\w."]+)\s*(<=|<|=)\s*:(\w+)/.exec(col);
      const key = m && bareColumn(m[1].replace(/"/g, ''));
      if (m && key && comparesToken(write, key, m[2] !== '=', namedBinding(link, m[3]), options)) return { key, ordered: m[2] !== '=', value: namedBinding(link, m[3]) };
      continue;
    }
    // Drizzle: where(and(eq(t.key, key), lt(t.fenceToken, token))).
    if (a && a.type !== AST_NODE_TYPES.SpreadElement) {
      const found = drizzleCompares(write, a, options);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The equalities on a constant (or a list of them) a builder chain's `where` links hold for every
 * row they write: Drizzle `eq(t.status, 'DUE')` and `inArray(t.status, [...])` at the top or inside
 * `and(...)`, Kysely `where('status', '=', 'DUE')` and `'in'`, TypeORM `andWhere('is_lost = false')`
 * and `where('stage = :from', { from: 'queued' })`. An `or(...)` holds none of its branches for
 * every row.
 */
function chainEqualities(write: ObjectWrite): Array<{ field: string; value: Node }> {
  const out: Array<{ field: string; value: Node }> = [];
  const visit = (node: Node, depth: number) => {
    const n = unwrap(node);
    if (n.type !== AST_NODE_TYPES.CallExpression || depth > 4) return;
    const name = calleeName(n) ?? '';
    const [column, value] = n.arguments;
    if (name === 'and') for (const a of n.arguments) if (a.type !== AST_NODE_TYPES.SpreadElement) visit(a, depth + 1);
    if ((name === 'eq' || name === 'inArray') && column && value && value.type !== AST_NODE_TYPES.SpreadElement) {
      const field = memberName(unwrap(column));
      if (field) out.push({ field, value });
    }
  };
  for (const link of write.links) {
    if (!/^(?:where|andWhere)$/.test(calleeName(link) ?? '')) continue;
    const [a, b, c] = link.arguments;
    const col = a ? staticString(a) : undefined;
    if (col !== undefined && c && c.type !== AST_NODE_TYPES.SpreadElement) {
      const op = b ? staticString(b)?.toLowerCase() : undefined;
      if (op === '=' || op === 'in') out.push({ field: bareColumn(col), value: c });
    } else if (col !== undefined) {
      // TypeORM: `andWhere('is_revoked = false')`, `where('t.status = :s', { s: 'DUE' })`, each conjunct of an `AND`.
      for (const part of col.split(/\s+AND\s+/i)) {
        const m = /^\s*\(?\s*([\w."]+)\s*=\s*(?::(\w+)|(true|false|'[^']*'|-?\d+))\s*\)?\s*$/i.exec(part);
        if (!m) continue;
        const field = bareColumn(m[1].replace(/"/g, ''));
        const value = m[2] ? namedBinding(link, m[2]) : sqlLiteral(m[3]);
        if (value) out.push({ field, value });
      }
    } else if (a && a.type !== AST_NODE_TYPES.SpreadElement) visit(a, 0);
  }
  return out;
}

/**
 * Builder chains: the fields the `where` requires empty (Drizzle `isNull(t.endsAt)`, alone or in
 * an `and(...)`; Kysely `where('ends_at', 'is', null)`).
 */
function chainEmptyFields(write: ObjectWrite): string[] {
  const out: string[] = [];
  const visit = (node: Node, depth: number) => {
    const n = unwrap(node);
    if (n.type !== AST_NODE_TYPES.CallExpression || depth > 4) return;
    const name = calleeName(n) ?? '';
    if (name === 'and') for (const a of n.arguments) if (a.type !== AST_NODE_TYPES.SpreadElement) visit(a, depth + 1);
    const column = n.arguments[0];
    const field = name === 'isNull' && n.arguments.length === 1 && column && column.type !== AST_NODE_TYPES.SpreadElement ? memberName(unwrap(column)) : undefined;
    if (field) out.push(field);
  };
  for (const link of write.links) {
    if (!/^(?:where|andWhere)$/.test(calleeName(link) ?? '')) continue;
    const [a, b, c] = link.arguments;
    const col = a ? staticString(a) : undefined;
    if (col !== undefined) {
      const value = c && c.type !== AST_NODE_TYPES.SpreadElement ? unwrap(c) : undefined;
      if (b && staticString(b)?.toLowerCase() === 'is' && value?.type === AST_NODE_TYPES.Literal && value.value === null) out.push(bareColumn(col));
    } else if (a && a.type !== AST_NODE_TYPES.SpreadElement) visit(a, 0);
  }
  return out;
}

/** A SQL constant as the literal node the state readers take: `true`, `'DUE'`, `3`. */
function sqlLiteral(text: string): Node {
  const lower = text.toLowerCase();
  const value = lower === 'true' ? true : lower === 'false' ? false : text.startsWith("'") ? text.slice(1, -1) : Number(text);
  return { type: AST_NODE_TYPES.Literal, value, raw: text } as unknown as Node;
}

/** Supabase filters: `.lt('fence_token', t)`, `.filter('fence_token', 'lt', t)`, `.eq(...)`, `.match({ ... })`. */
function supabaseCompares(write: ObjectWrite, link: TSESTree.CallExpression, name: string, options: FenceJudgeOptions): FoundComparison | undefined {
  const args = link.arguments.map((a) => (a.type === AST_NODE_TYPES.SpreadElement ? undefined : a));
  let col: string | undefined;
  let op: string | undefined;
  let value: Node | undefined;
  if (/^(?:lt|lte|eq)$/.test(name)) [col, op, value] = [args[0] && staticString(args[0]), name, args[1]];
  else if (name === 'filter') [col, op, value] = [args[0] && staticString(args[0]), args[1] && staticString(args[1]), args[2]];
  else if (name === 'match') {
    for (const p of objectArgument(link, 0)?.properties ?? []) {
      const key = p.type === AST_NODE_TYPES.Property ? propertyKeyName(p) : undefined;
      if (key !== undefined && p.type === AST_NODE_TYPES.Property && comparesToken(write, key, false, p.value, options)) return { key, ordered: false, value: p.value };
    }
    return undefined;
  }
  if (col === undefined || !op || !/^(?:lt|lte|eq)$/.test(op)) return undefined;
  const ordered = op !== 'eq';
  return comparesToken(write, bareColumn(col), ordered, value, options) ? { key: bareColumn(col), ordered, value } : undefined;
}

function drizzleCompares(write: ObjectWrite, node: Node, options: FenceJudgeOptions): FoundComparison | undefined {
  const n = unwrap(node);
  // `since ? sql\`...\` : undefined`: the condition as the caller who passes the value gets it.
  if (n.type === AST_NODE_TYPES.ConditionalExpression) return drizzleCompares(write, n.consequent, options) ?? drizzleCompares(write, n.alternate, options);
  if (n.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    const table = drizzleTable(write);
    const found = table !== undefined ? optimisticDrizzleCheck(n, table, write.values, options) : undefined;
    // Compare-and-set against the value read: the write's own stamp moves the column on.
    return found ? { key: found.column, ordered: false, value: found.value } : undefined;
  }
  if (n.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const name = calleeName(n) ?? '';
  if (name === 'and') {
    for (const arg of n.arguments) {
      const found = arg.type !== AST_NODE_TYPES.SpreadElement ? drizzleCompares(write, arg, options) : undefined;
      if (found) return found;
    }
    return undefined;
  }
  if (/^(?:lt|lte|eq)$/.test(name)) {
    const [column, value] = n.arguments;
    const key = column ? memberName(unwrap(column)) : undefined;
    const ordered = name !== 'eq';
    const compared = value && value.type !== AST_NODE_TYPES.SpreadElement ? value : undefined;
    if (key && comparesToken(write, key, ordered, compared, options)) return { key, ordered, value: compared };
  }
  return undefined;
}

/** Drizzle `db.update(accounts)`: the name the updated table is bound to. */
function drizzleTable(write: ObjectWrite): string | undefined {
  const root = write.links[write.links.length - 1];
  const table = root && /^(?:update|insert)$/.test(calleeName(root) ?? '') && root.arguments.length === 1 ? unwrap(root.arguments[0] as Node) : undefined;
  return table?.type === AST_NODE_TYPES.Identifier ? table.name : undefined;
}

const NULL_LITERAL = { type: AST_NODE_TYPES.Literal, value: null } as unknown as Node;

/** The JS value of a DynamoDB `:placeholder`: `{ ':t': t }`, or the low-level `{ ':t': { N: String(t) } }`. */
function dynamoValue(input: TSESTree.ObjectExpression | undefined, placeholder: string): Node | undefined {
  const value = propertyValue(asObject(propertyValue(input, 'ExpressionAttributeValues')), placeholder);
  const typed = asObject(value);
  return typed && typed.properties.length === 1 ? (propertyValue(typed, /^(?:N|S)$/) ?? value) : value;
}

/** `ConditionExpression: '#tok < :tok'` on an attribute the write also sets (`SET #tok = :tok`, or in `Item`). */
function dynamoCompares(write: ObjectWrite, options: FenceJudgeOptions): (FoundComparison & { stored: boolean; rawAttr: string; placeholder: string }) | undefined {
  const input = write.filter;
  const condition = staticString(propertyValue(input, 'ConditionExpression') ?? NULL_LITERAL);
  if (!condition) return undefined;
  const names = asObject(propertyValue(input, 'ExpressionAttributeNames'));
  const update = staticString(propertyValue(input, 'UpdateExpression') ?? NULL_LITERAL);
  const pattern = /([#\w.]+)\s*(<=|<|=)\s*(:\w+)|(:\w+)\s*(>=|>|=)\s*([#\w.]+)/g;
  for (const m of condition.matchAll(pattern)) {
    const rawAttr = m[1] ?? m[6];
    const placeholder = m[3] ?? m[4];
    const op = m[2] ?? m[5];
    const attr = rawAttr.startsWith('#') ? (staticString(propertyValue(names, rawAttr) ?? NULL_LITERAL) ?? rawAttr) : rawAttr;
    const ordered = op !== '=';
    const assigned = update !== undefined ? new RegExp(`(?:^|[\\s,])${escape(rawAttr)}\\s*=\\s*([^,]+)`).exec(update.replace(/^\s*SET\s+/i, ' ')) : null;
    const value = dynamoValue(input, placeholder);
    const storesSame = assigned?.[1]?.trim() === placeholder || (!!value && !!storedValue(write, attr) && sameValueExpression(storedValue(write, attr)!, value));
    const compared = (value && options.isTokenValue(value)) || (ordered && storesSame && isMonotonicColumn(attr) && !(value && options.isNonTokenValue?.(value))) || isTokenColumnByName(attr, options) || (!ordered && isCompareAndSetColumnByName(attr));
    if (!compared) continue;
    const stored = !ordered || write.kind === 'delete' || (update !== undefined ? assigned !== null : write.kind === 'replace' ? storedValue(write, attr) !== undefined || !asObject(propertyValue(input, 'Item')) : true);
    return { key: attr, ordered, stored, value, rawAttr, placeholder };
  }
  return undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\#]/g, '\\$&');
}

/** The operation objects of a bulk write: an array literal, or `rows.map((r) => ({ ... }))` returning one literal. */
function bulkOperations(arg: Node | undefined, named = true): TSESTree.ObjectExpression[] | undefined {
  const n = arg && unwrap(arg);
  // `const ops = items.map(...)`, or `const ops = []` filled by `ops.push({...})` before the call.
  if (n?.type === AST_NODE_TYPES.Identifier && named) {
    const value = constValueBefore(n);
    if (value?.type === AST_NODE_TYPES.ArrayExpression && value.elements.length === 0) return pushedOperations(n);
    return value ? bulkOperations(value, false) : undefined;
  }
  if (n?.type === AST_NODE_TYPES.ArrayExpression) {
    const ops = n.elements.map((e) => (e && e.type !== AST_NODE_TYPES.SpreadElement ? asObject(e) : undefined));
    return ops.every((o): o is TSESTree.ObjectExpression => o !== undefined) ? ops : undefined;
  }
  if (n?.type === AST_NODE_TYPES.CallExpression && calleeName(n) === 'map') {
    const cb = n.arguments[0] && unwrap(n.arguments[0]);
    if (cb?.type !== AST_NODE_TYPES.ArrowFunctionExpression && cb?.type !== AST_NODE_TYPES.FunctionExpression) return undefined;
    if (cb.body.type !== AST_NODE_TYPES.BlockStatement) return asObject(cb.body) ? [asObject(cb.body)!] : undefined;
    const last = cb.body.body[cb.body.body.length - 1];
    const returned = last?.type === AST_NODE_TYPES.ReturnStatement && last.argument ? asObject(last.argument) : undefined;
    return returned ? [returned] : undefined;
  }
  return undefined;
}

/**
 * The objects pushed onto an array declared empty, in the function that sends it (`ops.push({
 * updateOne: {...} })` in a loop); undefined when anything else is pushed or it is passed on.
 */
function pushedOperations(id: TSESTree.Identifier): TSESTree.ObjectExpression[] | undefined {
  const fn = enclosingFunction(id);
  if (!fn) return undefined;
  const out: TSESTree.ObjectExpression[] = [];
  let unknown = false;
  walkPruned(fn.body, treeKeys as SourceCode.VisitorKeys, (node) => {
    if (unknown) return 'stop';
    if (node.type !== AST_NODE_TYPES.CallExpression || calleeName(node) !== 'push') return true;
    const target = calleeObject(node);
    if (!target || unwrap(target).type !== AST_NODE_TYPES.Identifier || (unwrap(target) as TSESTree.Identifier).name !== id.name) return true;
    for (const a of node.arguments) {
      const op = a.type === AST_NODE_TYPES.SpreadElement ? undefined : asObject(a);
      if (op) out.push(op);
      else unknown = true;
    }
    return true;
  });
  return unknown || out.length === 0 ? undefined : out;
}

/**
 * `bulkWrite` with operations written out: each `updateOne`/`updateMany`/`replaceOne`/`deleteOne`/
 * `deleteMany` is judged like the call of that name; inserts overwrite nothing. The operations may
 * sit in a `const` of the function (a mapped list, an array filled by `push`); operations built
 * elsewhere cannot be judged, and the call is not read.
 */
function bulkWriteOf(node: TSESTree.CallExpression): ObjectWrite | undefined {
  const ops = bulkOperations(node.arguments[0]);
  if (!ops) return undefined;
  const operations: ObjectWrite[] = [];
  for (const op of ops) {
    const entry = op.properties.length === 1 ? op.properties[0] : undefined;
    const name = entry?.type === AST_NODE_TYPES.Property ? propertyKeyName(entry) : undefined;
    const body = entry?.type === AST_NODE_TYPES.Property ? asObject(entry.value) : undefined;
    if (!name || !body) return undefined;
    if (name === 'insertOne') continue;
    const write = sinkWrite(MONGO, name);
    if (!write) return undefined;
    const update = asObject(propertyValue(body, /^(?:update|replacement)$/));
    if (write.kind === 'update' && onlyMonotoneOperators(update)) continue;
    const values = update && (asObject(propertyValue(update, '$set')) ?? (update.properties.some((p) => p.type === AST_NODE_TYPES.Property && (propertyKeyName(p) ?? '').startsWith('$')) ? undefined : update));
    operations.push({ node, api: 'mongodb', model: MONGO, method: name, kind: write.kind, filter: asObject(propertyValue(body, 'filter')), values, links: [], ...(update ? { update } : {}) });
  }
  if (operations.length === 0) return undefined;
  const kind: WriteKind = operations.every((o) => o.kind === 'delete') ? 'delete' : 'update';
  return { node, api: 'mongodb', model: MONGO, method: 'bulkWrite', kind, links: [], operations };
}

export function judgeObjectWrite(write: ObjectWrite, options: FenceJudgeOptions): ObjectVerdict {
  if (write.operations) {
    // Fenced when every operation is; otherwise the first one that is not tells what is missing.
    const verdicts = write.operations.map((o) => judgeObjectWrite(o, options));
    return verdicts.find((v) => !v.tokenCompared) ?? verdicts.find((v) => !v.tokenStored) ?? verdicts[0];
  }
  if (write.api === 'dynamodb') {
    const found = dynamoCompares(write, options);
    if (found) return { tokenCompared: true, tokenStored: found.stored, column: found.key, value: found.value, ordered: found.ordered, expressionAttribute: found.rawAttr, placeholder: found.placeholder };
    // Created (or filled) only while absent: the first writer wins and a late one is refused.
    return dynamoSetOnceClaim(write.filter, write.kind) ? { tokenCompared: true, tokenStored: true, tokenless: true } : { tokenCompared: false, tokenStored: false };
  }
  const found = write.links.length > 0 ? chainComparesToken(write, options) : filterComparesToken(write, write.filter, options);
  if (!found) {
    // Filled only while still empty: the first writer wins and a late one matches nothing.
    const claimed =
      write.kind !== 'update'
        ? undefined
        : write.links.length === 0
          ? (setOnceObjectClaim(write.filter, write.values) ?? transitionObjectClaim(write.filter, write.values) ?? literalMarkerObjectClaim(write.filter, wholeUpdate(write)))
          : write.api !== 'supabase'
            ? (transitionChainClaim(chainEqualities(write), write.values) ?? setOnceChainClaim(chainEmptyFields(write), write.values))
            : undefined;
    // Compared with the state the holder read, on a field the same write moves: an optimistic compare-and-set.
    const checked = !claimed && write.kind === 'update' && write.links.length === 0 ? readStateObjectCheck(write.filter, write.values) : undefined;
    // No token column: the claimed or checked field says nothing about which column the file's fence lives in.
    return claimed || checked ? { tokenCompared: true, tokenStored: true, tokenless: true } : { tokenCompared: false, tokenStored: false };
  }
  // Equality (a holder, a version) is compare-and-set: nothing new needs storing.
  const stored = !found.ordered || write.kind === 'delete' || valuesStore(write.values, found.key) || mongoStoresElsewhere(write, found.key);
  return { tokenCompared: true, tokenStored: stored, column: found.key, value: found.value, ordered: found.ordered };
}

/**
 * The table an object-API write targets, snake-cased: the Prisma model, the Mongo collection
 * (or the variable holding it), the Sequelize/TypeORM model, the DynamoDB `TableName`, the
 * Supabase `from(table)`.
 */
export function objectWriteTable(write: ObjectWrite, sourceCode?: SourceCode): string | undefined {
  let name: string | undefined;
  if (write.api === 'dynamodb') {
    for (const p of write.filter?.properties ?? []) if (p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === 'TableName') name = tableNameText(p.value, sourceCode);
  } else if (write.api === 'supabase') {
    // `db.from('job_locks').delete()...`: the chain's root names the table.
    const root = write.links[write.links.length - 1];
    name = root?.arguments[0] ? staticString(root.arguments[0]) : undefined;
  } else if (write.node.type === AST_NODE_TYPES.CallExpression) {
    const object = calleeObject(write.node);
    const o = object && unwrap(object);
    if (o?.type === AST_NODE_TYPES.CallExpression && calleeName(o) === 'collection' && o.arguments[0]) name = staticString(o.arguments[0]);
    else if (o) name = receiverPath(o).pop();
  }
  return tableName(name);
}

/** A DynamoDB `TableName`: a string or a `const` holding one (see `constantText`), else the constant's own name (`LOCK_TABLE`). */
function tableNameText(node: Node, sourceCode: SourceCode | undefined): string | undefined {
  const n = unwrap(node);
  return constantText(n, sourceCode) ?? (n.type === AST_NODE_TYPES.Identifier && sourceCode ? n.name : undefined);
}

/** A model, collection or repository name as a table name: `jobLockRepository` is `job_lock`. */
export function tableName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const bare = name.replace(/(?:Repository|Repo|Model|Collection|Table|Store|Entity)$/, '') || name;
  return bare.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-.]/g, '_').toLowerCase();
}
