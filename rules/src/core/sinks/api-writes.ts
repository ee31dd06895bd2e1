/**
 * Writes to Redis keys, HTTP resources, S3 objects and ClickHouse tables made while a lock is
 * held. Plain commands cannot compare a token, so a Redis write is fenced only through a script
 * (which is not a plain write and is not read here); an HTTP write is fenced when it sends the
 * token (a fence or `If-Match` header, or the token in the body for the API to compare); an S3
 * put or delete when it is conditional (`IfMatch` / `IfNoneMatch`); a ClickHouse mutation never.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { visitorKeys } from '@typescript-eslint/visitor-keys';
import { calleeName, calleeObject, constObjectBefore, enclosingFunction, isFunctionNode, objectArgument, propertyKeyName, propertyValue, staticString, unwrap, walk, type FunctionNode, type Node } from '../ast.js';
import { REDIS_REFILL_COMMAND, sinkModel, type SinkModel } from '../models/sinks.js';
import type { RedisScript } from './redis-scripts.js';
import { receiverKey, type ReceiverTable } from '../modules/receivers.js';

export type ApiKind = 'redis' | 'http' | 's3' | 'clickhouse';

export interface ApiWrite {
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  api: ApiKind;
  /** The catalog entry of the client (`redis`, `fetch`, `axios`, `s3`). */
  model: SinkModel;
  /** A Redis write made through a Lua script (`eval`, a `defineCommand` command). */
  script?: RedisScript;
  /** For Redis: the key's source text. */
  keyText?: string;
  /** Request options / command input, when literal. */
  options?: TSESTree.ObjectExpression;
}

const REDIS = sinkModel('redis');
const FETCH = sinkModel('fetch');
const AXIOS = sinkModel('axios');
const S3 = sinkModel('s3');
const CLICKHOUSE = sinkModel('clickhouse');
const CLICKHOUSE_WRITES = new Set(CLICKHOUSE.writes.map((w) => w.method));
/**
 * Statements that change stored rows: mutations (`ALTER TABLE t DELETE/UPDATE`, partition drops),
 * lightweight `DELETE`/`UPDATE`, `TRUNCATE`, `DROP TABLE`. Reads, DDL that creates, settings and
 * plain `INSERT`s (appends, as in SQL) are not.
 */
const CLICKHOUSE_MUTATION = /^\s*(?:(?:DELETE|UPDATE|TRUNCATE)\b|DROP\s+(?:TABLE|PARTITION)\b|ALTER\s+TABLE\b[\s\S]*\b(?:DELETE|UPDATE|DROP\s+PARTITION|REPLACE\s+PARTITION)\b)/i;
/** Redis commands that overwrite or remove state (the catalog's Redis writes), in either case. */
const REDIS_OVERWRITES = new Set(REDIS.writes.map((w) => w.method.toLowerCase()));
const HTTP_VERBS = new Set([...FETCH.writes, ...AXIOS.writes].map((w) => w.method.toLowerCase()));
/** v3 command classes (`new DeleteObjectCommand(input)`) and client methods (`s3.deleteObject(input)`). */
const S3_COMMANDS = new Set(S3.writes.map((w) => w.method).filter((m) => /^[A-Z]/.test(m)));
const S3_METHODS = new Set(S3.writes.map((w) => w.method).filter((m) => /^[a-z]/.test(m)));
const FENCE_HEADER = /fenc|if-match|generation|epoch|lease|token/i;
/** bluebird's `promisifyAll` adds `<command>Async` to every method of a callback client. */
const PROMISIFIED_SUFFIX = /(?<=[a-z])Async$/;

/** Where the one stored value is, for Redis commands that store one (`SET k v`, `SETEX k ttl v`, `HSET k f v`). */
const CLOCK_VALUE_ARG: Readonly<Record<string, number>> = { set: 1, setex: 2, psetex: 2, hset: 2 };
/** Keys and fields that record that someone is alive or last ran, not when a state changed. */
const LIVENESS_NAME = /heart_?beat|beats?\b|alive|liveness|ping|seen|last_?run|last_?active|started|touched/i;

/** `Date.now()`, `new Date()`, and those as text (`.toString()`, `.toISOString()`, `String(...)`, a template): the current time. */
function isCurrentTime(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.expressions.length === 1 && n.quasis.every((q) => q.value.cooked === '') && isCurrentTime(n.expressions[0]);
  if (n.type === AST_NODE_TYPES.NewExpression) return n.callee.type === AST_NODE_TYPES.Identifier && n.callee.name === 'Date' && n.arguments.length === 0;
  if (n.type !== AST_NODE_TYPES.CallExpression) return false;
  const callee = unwrap(n.callee);
  if (callee.type === AST_NODE_TYPES.Identifier) return callee.name === 'String' && !!n.arguments[0] && n.arguments[0].type !== AST_NODE_TYPES.SpreadElement && isCurrentTime(n.arguments[0]);
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return false;
  const method = calleeName(n);
  if (method === 'now' && callee.object.type === AST_NODE_TYPES.Identifier && callee.object.name === 'Date') return true;
  return /^(?:toString|toISOString|toJSON|getTime|valueOf)$/.test(method ?? '') && n.arguments.length === 0 && isCurrentTime(callee.object);
}

/** The Redis command a method sends: `hsetAsync` is `hset`. */
export function redisCommandOf(method: string): string {
  return method.replace(PROMISIFIED_SUFFIX, '').toLowerCase();
}


/** `DEL key` that the same function follows with a command putting data under that key again, on the same client. */
function refilledLater(del: TSESTree.CallExpression, client: Node, sourceText: (n: Node) => string): boolean {
  const fn = enclosingFunction(del);
  const key = del.arguments[0];
  if (!fn || !key || key.type === AST_NODE_TYPES.SpreadElement) return false;
  const keyText = sourceText(key);
  const clientText = sourceText(client);
  let refilled = false;
  walk(fn.body, visitorKeys as SourceCode.VisitorKeys, (call) => {
    if (refilled || call.type !== AST_NODE_TYPES.CallExpression || call.range[0] <= del.range[1]) return;
    const object = calleeObject(call);
    const first = call.arguments[0];
    refilled = !!object && !!first && REDIS_REFILL_COMMAND.test(calleeName(call) ?? '') && sourceText(object) === clientText && sourceText(first) === keyText;
  });
  return refilled;
}

/** A Redis client by what resolves it, or by its last name (the catalog's `receiverNames`) when nothing does. */
function isRedisReceiver(object: Node, receivers: ReceiverTable): boolean {
  const kind = receivers.kindOf(object);
  if (kind) return kind.type === 'redis';
  if (receivers.isBuiltHere(object)) return false;
  const name = receiverKey(object)?.split('.').pop();
  return name !== undefined && REDIS.receiverNames!.test(name);
}

export function readApiWrite(node: TSESTree.CallExpression | TSESTree.NewExpression, receivers: ReceiverTable, sourceText: (n: Node) => string): ApiWrite | undefined {
  const method = calleeName(node);
  if (!method) return undefined;
  if (node.type === AST_NODE_TYPES.NewExpression) {
    return S3_COMMANDS.has(method) ? { node, api: 's3', model: S3, options: optionsArgument(node, 0) } : undefined;
  }
  const object = calleeObject(node);
  // Redis: on a client we resolved, or one named for Redis when nothing resolves it; NX writes are locks.
  if (object && REDIS_OVERWRITES.has(redisCommandOf(method)) && isRedisReceiver(object, receivers)) {
    const hasNx = node.arguments.some((a) => staticString(a)?.toUpperCase() === 'NX' || (a.type === AST_NODE_TYPES.ObjectExpression && /\bNX\b/i.test(sourceText(a))));
    if (hasNx || /^setnx$/i.test(redisCommandOf(method))) return undefined;
    // `ZADD key GT score member`: the score only moves one way, like MongoDB's `$max`.
    if (redisCommandOf(method) === 'zadd' && node.arguments.some((a) => /^(?:GT|LT)$/i.test(staticString(a) ?? '') || (a.type === AST_NODE_TYPES.ObjectExpression && /\b(?:GT|LT)\b/.test(sourceText(a))))) return undefined;
    // `multi().srem(...).hset(...).exec()`: one transaction, one write, read at its first command.
    if (queuedAfterWrite(object)) return undefined;
    // A heartbeat: the value is the clock read as the command is sent, so a late write is still
    // true. Only under a name for liveness: a state change's time (`closed-at`) goes with the state.
    const valueIndex = CLOCK_VALUE_ARG[redisCommandOf(method)];
    const value = valueIndex === undefined ? undefined : node.arguments[valueIndex];
    const key = node.arguments[0];
    const named = node.arguments.slice(0, valueIndex).map((a) => sourceText(a)).join(' ');
    if (value && value.type !== AST_NODE_TYPES.SpreadElement && isCurrentTime(value) && LIVENESS_NAME.test(named)) return undefined;
    // A flag: a string SET of a constant (`SET cooldown:7 'true' EX 3600`). Every holder stores the
    // same value, so a late write stores nothing older than what a newer holder stored.
    if (value && FLAG_COMMANDS.has(redisCommandOf(method)) && isConstantFlagValue(value)) return undefined;
    return { node, api: 'redis', model: REDIS, keyText: key ? sourceText(key) : undefined };
  }
  if (object && /^(?:del|unlink)$/.test(redisCommandOf(method)) && node.arguments.length === 1 && refilledLater(node, object, sourceText) && receivers.kindOf(object)?.type === 'redis') {
    return { node, api: 'redis', model: REDIS, keyText: sourceText(node.arguments[0]) };
  }
  // S3 operations as methods of a client resolved through its import (v3 `S3`, v2 `aws-sdk/clients/s3`).
  if (object && S3_METHODS.has(method)) {
    const kind = receivers.kindOf(object);
    return kind?.type === 'client' && kind.model.family === 's3' ? { node, api: 's3', model: S3, options: objectArgument(node, 0) } : undefined;
  }
  // ClickHouse: client.command({ query }); a query built elsewhere (a parameter) may be any statement, so it counts.
  if (object && CLICKHOUSE_WRITES.has(method)) {
    const kind = receivers.kindOf(object);
    if (kind?.type !== 'client' || kind.model.family !== 'clickhouse') return undefined;
    const options = objectArgument(node, 0);
    const query = propertyValue(options, /^query$/);
    const texts = query ? statementTexts(query) : undefined;
    return texts === undefined || texts.some((t) => CLICKHOUSE_MUTATION.test(t)) ? { node, api: 'clickhouse', model: CLICKHOUSE, options } : undefined;
  }
  // fetch(url, { method: 'PUT', headers, body }).
  if (!object && method === 'fetch') {
    const options = optionsArgument(node, 1);
    const verb = staticString(propertyValue(options, /^method$/) ?? ({ type: AST_NODE_TYPES.Literal, value: null } as unknown as Node));
    return verb && HTTP_VERBS.has(verb.toLowerCase()) && headersReadable(options) ? { node, api: 'http', model: FETCH, options } : undefined;
  }
  // axios.put(url, data, config) / http.patch(...) / got.put(url, options).
  if (object && HTTP_VERBS.has(method.toLowerCase())) {
    // An axios/got/ky instance by import or factory (`axios.create()`); by name only when it resolves to nothing.
    const kind = receivers.kindOf(object);
    const http = kind ? kind.type === 'client' && kind.model.family === 'http' : AXIOS.receiverNames!.test(receiverKey(object) ?? '');
    if (!http) return undefined;
    const index = method.toLowerCase() === 'delete' ? 1 : 2;
    // A config held in a parameter or built by a call may carry the fence header: it cannot be judged.
    const given = node.arguments[index];
    if (given && !optionsArgument(node, index) && !isNothing(given)) return undefined;
    const config = optionsArgument(node, index) ?? optionsArgument(node, 1);
    return headersReadable(config) ? { node, api: 'http', model: AXIOS, options: config } : undefined;
  }
  return undefined;
}

/** An options argument written inline or held in a `const` bound to an object literal before the call. */
function optionsArgument(call: TSESTree.CallExpression | TSESTree.NewExpression, index: number): TSESTree.ObjectExpression | undefined {
  const inline = objectArgument(call, index);
  if (inline) return inline;
  const arg = call.arguments[index];
  return arg?.type === AST_NODE_TYPES.Identifier ? constObjectBefore(arg) : undefined;
}

/** `undefined` or `null` passed where the options go: no options at all. */
function isNothing(node: Node): boolean {
  const n = unwrap(node);
  return (n.type === AST_NODE_TYPES.Identifier && n.name === 'undefined') || (n.type === AST_NODE_TYPES.Literal && n.value === null);
}

/** The headers of a request as an object literal: inline, or a `const` bound to one before the call. */
function headersOf(options: TSESTree.ObjectExpression | undefined): TSESTree.ObjectExpression | undefined {
  const headers = propertyValue(options, /^headers$/);
  if (!headers) return undefined;
  const n = unwrap(headers);
  if (n.type === AST_NODE_TYPES.ObjectExpression) return n;
  return n.type === AST_NODE_TYPES.Identifier ? constObjectBefore(n) : undefined;
}

/**
 * The header entries an object literal states: written out, or spread in from an object
 * literal or a `const` bound to one (`{ ...fence, 'content-type': 'json' }`), in every branch
 * of a conditional spread. Undefined when a spread cannot be read (a helper's result, a
 * parameter): it may carry the fence.
 */
function headerEntries(headers: TSESTree.ObjectExpression, depth = 0): TSESTree.Property[] | undefined {
  const out: TSESTree.Property[] = [];
  for (const p of headers.properties) {
    if (p.type === AST_NODE_TYPES.Property) {
      out.push(p);
      continue;
    }
    const branches = (n: Node): Node[] => {
      const u = unwrap(n);
      return u.type === AST_NODE_TYPES.ConditionalExpression ? [...branches(u.consequent), ...branches(u.alternate)] : [u];
    };
    for (const branch of branches(p.argument)) {
      const object = branch.type === AST_NODE_TYPES.ObjectExpression ? branch : branch.type === AST_NODE_TYPES.Identifier ? constObjectBefore(branch) : undefined;
      const inner = object && depth < 4 ? headerEntries(object, depth + 1) : undefined;
      if (!inner) return undefined;
      out.push(...inner);
    }
  }
  return out;
}

/** Whether the headers can be read: absent, or an object literal whose spreads can be read. Headers built elsewhere may carry the fence. */
function headersReadable(options: TSESTree.ObjectExpression | undefined): boolean {
  if (!propertyValue(options, /^headers$/)) return true;
  const headers = headersOf(options);
  return !!headers && headerEntries(headers) !== undefined;
}

/**
 * Whether an object states a property, directly or in every branch of a spread written inline:
 * `{ ...(etag ? { IfMatch: etag } : { IfNoneMatch: '*' }) }` is conditional either way.
 */
function statesProperty(object: TSESTree.ObjectExpression | undefined, name: RegExp): boolean {
  if (!object) return false;
  if (propertyValue(object, name)) return true;
  return object.properties.some((p) => {
    if (p.type !== AST_NODE_TYPES.SpreadElement) return false;
    const branches = (n: Node): Node[] => {
      const u = unwrap(n);
      return u.type === AST_NODE_TYPES.ConditionalExpression ? [...branches(u.consequent), ...branches(u.alternate)] : [u];
    };
    return branches(p.argument).every((b) => b.type === AST_NODE_TYPES.ObjectExpression && statesProperty(b, name));
  });
}

/** Whether a chained Redis command is queued behind a write of the same `multi()` / `pipeline()` chain. */
function queuedAfterWrite(object: Node): boolean {
  for (let n = unwrap(object), i = 0; i < 30 && n.type === AST_NODE_TYPES.CallExpression; i++) {
    const method = calleeName(n);
    if (method && REDIS_OVERWRITES.has(redisCommandOf(method))) return true;
    const inner = calleeObject(n);
    if (!inner) return false;
    n = unwrap(inner);
  }
  return false;
}

/** Whether the request carries the token for the resource to compare. */
export function apiWriteFenced(write: ApiWrite, isToken: (n: Node) => boolean, sourceText: (n: Node) => string): boolean {
  if (write.api === 'redis') return false; // scripts are judged by judgeRedisScript
  if (write.api === 'clickhouse') return false; // no conditional writes
  if (write.api === 's3') return statesProperty(write.options, /^(?:IfMatch|IfNoneMatch)$/);
  const call = write.node as TSESTree.CallExpression;
  const headers = headersOf(write.options);
  for (const p of (headers && headerEntries(headers)) ?? []) {
    if (FENCE_HEADER.test(propertyKeyName(p) ?? '') || isToken(p.value)) return true;
  }
  // The token in the body: the API is given what it needs to compare.
  const bodies = [propertyValue(write.options, /^(?:body|json|data)$/), ...call.arguments.slice(1, 2)].filter((b): b is Node => !!b);
  return bodies.some((b) => containsToken(b, isToken, sourceText));
}

function containsToken(node: Node, isToken: (n: Node) => boolean, sourceText: (n: Node) => string): boolean {
  const n = unwrap(node);
  if (isToken(n)) return true;
  if (n.type === AST_NODE_TYPES.ObjectExpression) {
    return n.properties.some((p) => p.type === AST_NODE_TYPES.Property && (isToken(p.value) || /fenc|generation|epoch/i.test(propertyKeyName(p) ?? '')));
  }
  if (n.type === AST_NODE_TYPES.CallExpression && calleeName(n) === 'stringify' && n.arguments[0]) return containsToken(n.arguments[0], isToken, sourceText);
  return /fenc/i.test(sourceText(n));
}

/**
 * The statement texts an expression can be: a literal or template, or what a function of the same
 * file that builds it returns (`command({ query: exportSql(day) })`); undefined when any is unknown.
 */
function statementTexts(node: Node): string[] | undefined {
  const n = unwrap(node);
  const text = literalText(n);
  if (text !== undefined) return [text];
  if (n.type !== AST_NODE_TYPES.CallExpression || n.callee.type !== AST_NODE_TYPES.Identifier) return undefined;
  const builder = topLevelFunction(n, n.callee.name);
  if (!builder) return undefined;
  if (builder.body.type !== AST_NODE_TYPES.BlockStatement) {
    const own = literalText(builder.body);
    return own === undefined ? undefined : [own];
  }
  const texts: string[] = [];
  let unknown = false;
  walkReturns(builder.body, (argument) => {
    const own = argument ? literalText(argument) : undefined;
    if (own === undefined) unknown = true;
    else texts.push(own);
  });
  return unknown || texts.length === 0 ? undefined : texts;
}

/** A function declared (or bound to a `const`) at the top of the file that holds `from`. */
function topLevelFunction(from: Node, name: string): FunctionNode | undefined {
  let program: Node = from;
  while (program.parent) program = program.parent;
  if (program.type !== AST_NODE_TYPES.Program) return undefined;
  for (const statement of program.body) {
    const declaration = statement.type === AST_NODE_TYPES.ExportNamedDeclaration && statement.declaration ? statement.declaration : statement;
    if (declaration.type === AST_NODE_TYPES.FunctionDeclaration && declaration.id?.name === name) return declaration;
    if (declaration.type !== AST_NODE_TYPES.VariableDeclaration || declaration.kind !== 'const') continue;
    for (const d of declaration.declarations) {
      if (d.id.type === AST_NODE_TYPES.Identifier && d.id.name === name && d.init && isFunctionNode(unwrap(d.init))) return unwrap(d.init) as FunctionNode;
    }
  }
  return undefined;
}

/** Each `return` of a function body, not of the functions nested in it. */
function walkReturns(node: Node, visit: (argument: Node | null) => void): void {
  if (isFunctionNode(node)) return;
  if (node.type === AST_NODE_TYPES.ReturnStatement) {
    visit(node.argument);
    return;
  }
  for (const key of Object.keys(node) as (keyof typeof node)[]) {
    if (key === 'parent') continue;
    const child = node[key] as unknown;
    if (Array.isArray(child)) for (const c of child) if (c && typeof (c as Node).type === 'string') walkReturns(c as Node, visit);
    if (child && typeof (child as Node).type === 'string') walkReturns(child as Node, visit);
  }
}

/** The text a literal or template spells, with each `${...}` as a blank (`ALTER TABLE ${table} DELETE` keeps its keywords). */
function literalText(node: Node): string | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.quasis.map((q) => q.value.cooked ?? '').join(' x ');
  return staticString(n);
}

const REDIS_REMOVALS = new Set(REDIS.writes.filter((w) => w.kind === 'delete').map((w) => w.method.toLowerCase()));

/** String SETs, whose value is the whole of what the key holds. */
const FLAG_COMMANDS = new Set(['set', 'setex', 'psetex']);

/** A constant stored as a flag: a string, number or boolean literal, or a template with nothing in it. */
export function isConstantFlagValue(node: Node | undefined): boolean {
  if (!node || node.type === AST_NODE_TYPES.SpreadElement) return false;
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal) return typeof n.value === 'string' || typeof n.value === 'number' || typeof n.value === 'boolean';
  return n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length === 0;
}

/** The value a Redis string SET stores (`v` in `SET k v [EX n]`), for a caller to tell a flag from data. */
export function redisFlagValue(write: ApiWrite): Node | undefined {
  if (write.api !== 'redis' || write.script || write.node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const command = redisCommandOf(calleeName(write.node) ?? '');
  if (!FLAG_COMMANDS.has(command)) return undefined;
  const value = write.node.arguments[CLOCK_VALUE_ARG[command]];
  return value && value.type !== AST_NODE_TYPES.SpreadElement ? value : undefined;
}

/**
 * What a Redis write stores besides its key: the values of a replace (`SET k v`, `ZADD k score
 * member`); none for a removal (`ZREM k member`), which only names what goes. Undefined for
 * other writes, and for scripts and transactions, whose content is not read here.
 */
export function redisContent(write: ApiWrite): Node[] | undefined {
  if (write.api !== 'redis' || write.script || write.node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const command = redisCommandOf(calleeName(write.node) ?? '');
  if (REDIS_REMOVALS.has(command)) return [];
  if (!REDIS_OVERWRITES.has(command)) return undefined;
  return write.node.arguments.slice(1);
}
