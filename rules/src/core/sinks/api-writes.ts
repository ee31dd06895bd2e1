/**
 * Writes to Redis keys, HTTP resources and S3 objects made while a lock is held. Plain
 * commands cannot compare a token, so a Redis write is fenced only through a script (which
 * is not a plain write and is not read here); an HTTP write is fenced when it sends the token
 * (a fence or `If-Match` header, or the token in the body for the API to compare); an S3 put
 * when it is conditional (`IfMatch` / `IfNoneMatch`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, calleeObject, objectArgument, propertyKeyName, propertyValue, staticString, unwrap, type Node } from '../ast.js';
import { receiverKey, type ReceiverTable } from '../modules/receivers.js';

export type ApiKind = 'redis' | 'http' | 's3';

export interface ApiWrite {
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  api: ApiKind;
  /** For Redis: the key's source text. */
  keyText?: string;
  /** Request options / command input, when literal. */
  options?: TSESTree.ObjectExpression;
}

/** Redis commands that overwrite a key's value. Appends (LPUSH, XADD) and counters are not overwrites. */
const REDIS_OVERWRITES = /^(?:set|hset|hmset|mset|setex|psetex|hSet|mSet|setEx|pSetEx|json\.set)$/i;
const HTTP_METHODS = /^(?:put|patch|delete)$/i;
const FENCE_HEADER = /fenc|if-match|generation|epoch|lease|token/i;


export function readApiWrite(node: TSESTree.CallExpression | TSESTree.NewExpression, receivers: ReceiverTable, sourceText: (n: Node) => string): ApiWrite | undefined {
  const method = calleeName(node);
  if (!method) return undefined;
  if (node.type === AST_NODE_TYPES.NewExpression) {
    return method === 'PutObjectCommand' || method === 'CopyObjectCommand' ? { node, api: 's3', options: objectArgument(node, 0) } : undefined;
  }
  const object = calleeObject(node);
  // Redis: only on a client we resolved through its import, never by name; NX writes are locks.
  if (object && REDIS_OVERWRITES.test(method) && receivers.kindOf(object)?.type === 'redis') {
    const hasNx = node.arguments.some((a) => staticString(a)?.toUpperCase() === 'NX' || (a.type === AST_NODE_TYPES.ObjectExpression && /\bNX\b/i.test(sourceText(a))));
    if (hasNx || /^setnx$/i.test(method)) return undefined;
    const key = node.arguments[0];
    return { node, api: 'redis', keyText: key ? sourceText(key) : undefined };
  }
  // fetch(url, { method: 'PUT', headers, body }).
  if (!object && method === 'fetch') {
    const options = objectArgument(node, 1);
    const verb = staticString(propertyValue(options, /^method$/) ?? ({ type: AST_NODE_TYPES.Literal, value: null } as unknown as Node));
    return verb && HTTP_METHODS.test(verb) ? { node, api: 'http', options } : undefined;
  }
  // axios.put(url, data, config) / http.patch(...) / got.put(url, options).
  if (object && HTTP_METHODS.test(method) && /^(?:axios|http|httpClient|client|api|got|ky|request|this\.http|this\.httpClient|this\.api)$/i.test(receiverKey(object) ?? '')) {
    const config = objectArgument(node, method.toLowerCase() === 'delete' ? 1 : 2) ?? objectArgument(node, 1);
    return { node, api: 'http', options: config };
  }
  return undefined;
}

/** Whether the request carries the token for the resource to compare. */
export function apiWriteFenced(write: ApiWrite, isToken: (n: Node) => boolean, sourceText: (n: Node) => string): boolean {
  if (write.api === 'redis') return false;
  if (write.api === 's3') return !!propertyValue(write.options, /^(?:IfMatch|IfNoneMatch)$/);
  const call = write.node as TSESTree.CallExpression;
  const headers = propertyValue(write.options, /^headers$/);
  const headerObject = headers && unwrap(headers).type === AST_NODE_TYPES.ObjectExpression ? (unwrap(headers) as TSESTree.ObjectExpression) : undefined;
  for (const p of headerObject?.properties ?? []) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
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
