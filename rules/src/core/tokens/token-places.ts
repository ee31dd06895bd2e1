/**
 * Where a value becomes a fence token. A strong token name (`fenceToken`, `generation`) is a
 * token wherever it appears; a weak one (`token`, `epoch`, `version`, `seq`) only on a lease:
 * an object an authority's acquire returns, an object shaped like a lease, a lock handle's
 * member, or a token column of a lock table. Shared by the rules that ask "is this a token?"
 * about a value they followed with `ValueFlow`.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { enclosingFunction, propertyKeyName, unwrap, type FunctionNode, type Node } from '../ast.js';
import { isHandleTokenName, isIdentityName, isStrongTokenName, isTimeName, isTokenColumnName } from '../models/token-names.js';
import { functionName, thisMemberName, type ValuePlace } from './value-flow.js';
import { codeSpan, shorten } from '../message-text.js';

/** `strong`: the name alone says token. `context`: a weak name on a lease, or an issuer's result. */
export type TokenStrength = 'strong' | 'context';

export interface TokenPlaceOptions {
  /** Extra names (exact, case-insensitive) to treat as strong token names. */
  extraNames?: readonly string[];
  /** Column holding the accepted token (`settings.fencelint.tokenColumn`). */
  tokenColumn?: string;
}

/** Functions whose result is a lease: an authority's acquire, grant or assignment. */
const GRANT_FUNCTION = /^(?:try)?(?:acquire|grant|lease|obtain|claim|lock|assign|elect|takeover|takeOver|campaign|becomeLeader|issue(?:Lease|Lock|Grant|Fence)|create(?:Lease|Lock|Grant)|new(?:Lease|Lock|Grant)|open(?:Lease))/i;
/** Functions that issue a token and return it. */
const STRONG_ISSUER = /^(?:next|issue|new|allocate|mint|generate|get|take|bump|increment|create|acquire)_?(?:fence|fencing)_?(?:token|number|seq)?$|^(?:next|issue|allocate|mint|bump|increment)_?(?:generation|epoch|sequencer|term)$/i;
const WEAK_ISSUER = /^(?:next|issue|allocate|mint)_?token$/i;
const ISSUER_METHOD = /^(?:next|issue|get|take|allocate|mint|acquire|increment|bump|advance|generate)$/;
const TOKEN_CLASS = /Fenc|Token(?:Issuer|Counter|Generator|Authority|Source)|Generation|Sequencer/;
/** Keys that make an object a lease record. */
const LEASE_KEY = /^(?:lease|lock)(?:_?(?:id|key|name|owner|holder))?$/i;
const OWNER_KEY = /^(?:owner|holder|worker|consumer|leader|assignee)(?:_?(?:id|name))?$|^(?:node|instance|member)_?id$/i;
const EXPIRY_KEY = /^(?:expires?(?:_?(?:at|on|in|ms))?|expiry|expiration|ttl(?:_?ms)?|lease_?(?:until|expires?_?at|ttl|ms)|valid_?until|deadline)$/i;
/** Names of lock handles and lease records. */
const HANDLE_NAME = /^(?:lease|lock|grant|handle|fence|fencing|lockHandle|leaseHandle|acquired|acquisition|ownership|holder)$|(?:Lease|Lock|Grant)$/;
const HANDLE_TYPE = /(?:Lease|Lock|Grant|Fence|Fencing)\w*$/;
/** Tables that hold locks or leases: their weakly named columns are tokens. */
const LOCK_TABLE = /(?:^|_)(?:locks?|leases?|mutex(?:es)?|lock_holders?|fenc\w*|grants?|assignments?)$/;

function normalizeKey(name: string): string {
  // `:fenceToken` (DynamoDB values), `#tok`, `X-Fence-Token` (HTTP headers).
  return name.replace(/^[:#$@]/, '').replace(/^x-/i, '').replace(/-/g, '_');
}

export function isStrongName(name: string, options: TokenPlaceOptions = {}): boolean {
  const key = normalizeKey(name);
  if (options.extraNames?.some((n) => n.toLowerCase() === key.toLowerCase())) return true;
  return (isStrongTokenName(key) || OWNER_EPOCH.test(key)) && !isTimeName(key) && !isIdentityName(key);
}

/** `leaderEpoch`, `producer_epoch`, `ownerTerm`: the epoch or term of an owner is its fence. */
const OWNER_EPOCH = /^(?:leader|holder|owner|lease|lock|shard|partition|producer|writer|coordinator|controller|primary|fencing)_?(?:epoch|term|generation|gen)$/i;
/**
 * `token`, `version`, and camel or snake compounds ending in them (`leaseToken`, `lock_version`), but
 * not auth or paging tokens. Compounds of `epoch` and `term` are left out: `lastSeenEpoch` is a time.
 */
const WEAK_COMPOUND = /(?:[a-z0-9](?:Token|Version|Revision|Seq|Sequence)|_(?:token|version|revision|seq|sequence))$/;
const NOT_FENCE_PREFIX = /^(?:access|refresh|id|csrf|xsrf|auth|api|session|bearer|reset|verify|verification|confirm|invite|page|next|continuation|cursor|push|device|client|app|schema|protocol|node|npm|package|sync)/i;

function isWeakName(name: string): boolean {
  const key = normalizeKey(name);
  if (isStrongTokenName(key) || isTimeName(key) || isIdentityName(key)) return false;
  return isHandleTokenName(key) || (WEAK_COMPOUND.test(key) && !NOT_FENCE_PREFIX.test(key));
}

/** Classes that are lock authorities or handles: their own fields and results are lease state. */
const AUTHORITY_CLASS = /Lease|Lock|Mutex|Semaphore|Authority|Fenc|Coordinator|Elector|Election|Leader|Grant|Token(?:Issuer|Counter|Generator|Service)|Sequencer/;

function enclosingClassName(node: Node): string | undefined {
  for (let cur: Node | undefined = node.parent; cur; cur = cur.parent) {
    if (cur.type === AST_NODE_TYPES.ClassBody) {
      const cls = cur.parent;
      return (cls.type === AST_NODE_TYPES.ClassDeclaration || cls.type === AST_NODE_TYPES.ClassExpression) && cls.id ? cls.id.name : undefined;
    }
  }
  return undefined;
}

function typeName(annotation: TSESTree.TypeNode | undefined): string | undefined {
  if (annotation?.type !== AST_NODE_TYPES.TSTypeReference) return undefined;
  const name = annotation.typeName;
  return name.type === AST_NODE_TYPES.Identifier ? name.name : name.type === AST_NODE_TYPES.TSQualifiedName ? name.right.name : undefined;
}

/** A function that hands out leases, by its name or its declared return type. */
export function isGrantFunction(fn: FunctionNode | undefined): boolean {
  if (!fn) return false;
  const name = functionName(fn);
  if (name && GRANT_FUNCTION.test(name)) return true;
  let returns = fn.returnType?.typeAnnotation;
  // Promise<LeaseGrant>
  if (returns?.type === AST_NODE_TYPES.TSTypeReference && typeName(returns) === 'Promise') returns = returns.typeArguments?.params[0];
  if (returns?.type === AST_NODE_TYPES.TSUnionType) returns = returns.types.find((t) => t.type === AST_NODE_TYPES.TSTypeReference);
  const type = typeName(returns);
  return !!type && HANDLE_TYPE.test(type);
}

/** `{ leaseId, token }`, `{ owner, token, expiresAt }`: an object literal shaped like a lease. */
function hasLeaseShape(object: TSESTree.ObjectExpression): boolean {
  const keys = object.properties.map((p) => (p.type === AST_NODE_TYPES.Property ? propertyKeyName(p) ?? '' : ''));
  if (keys.some((k) => LEASE_KEY.test(k))) return true;
  return keys.some((k) => OWNER_KEY.test(k)) && keys.some((k) => EXPIRY_KEY.test(k));
}

/** Where an object literal goes, one hop: its binding's name and type, a `return`, a lease map. */
function isLeaseObject(object: TSESTree.ObjectExpression, sourceCode: SourceCode): boolean {
  if (hasLeaseShape(object)) return true;
  let cur: Node = object;
  while (cur.parent && [AST_NODE_TYPES.TSAsExpression, AST_NODE_TYPES.TSSatisfiesExpression, AST_NODE_TYPES.AwaitExpression].includes(cur.parent.type)) {
    const parent: Node = cur.parent;
    if ((parent.type === AST_NODE_TYPES.TSAsExpression || parent.type === AST_NODE_TYPES.TSSatisfiesExpression) && HANDLE_TYPE.test(typeName(parent.typeAnnotation) ?? '')) return true;
    cur = parent;
  }
  const p = cur.parent;
  if (!p) return false;
  if (p.type === AST_NODE_TYPES.ReturnStatement || (p.type === AST_NODE_TYPES.ArrowFunctionExpression && p.body === cur)) return isGrantFunction(enclosingFunction(cur) ?? (p.type === AST_NODE_TYPES.ArrowFunctionExpression ? p : undefined));
  if (p.type === AST_NODE_TYPES.VariableDeclarator && p.id.type === AST_NODE_TYPES.Identifier) {
    if (HANDLE_NAME.test(p.id.name) || HANDLE_TYPE.test(typeName(p.id.typeAnnotation?.typeAnnotation) ?? '')) return true;
    // `const assignment = {...}; ... return assignment;` from a grant function.
    for (const variable of sourceCode.getDeclaredVariables(p)) {
      for (const ref of variable.references) {
        const parent = ref.identifier.parent;
        if (parent?.type === AST_NODE_TYPES.ReturnStatement && isGrantFunction(enclosingFunction(parent))) return true;
      }
    }
    return false;
  }
  if (p.type === AST_NODE_TYPES.AssignmentExpression && p.right === cur && p.left.type === AST_NODE_TYPES.MemberExpression) {
    return HANDLE_NAME.test(thisMemberName(p.left) ?? '');
  }
  // `leases.set(key, {...})`, `prisma.lease.update({ data: {...} })`, `db('locks').update({...})`,
  // `leases.updateOne(filter, { $set: {...} })`: written to a lease store.
  let arg: Node = cur;
  while (arg.parent?.type === AST_NODE_TYPES.Property && RECORD_KEY.test(propertyKeyName(arg.parent) ?? '') && arg.parent.parent.type === AST_NODE_TYPES.ObjectExpression) {
    arg = arg.parent.parent;
  }
  const call = arg.parent;
  if (call?.type === AST_NODE_TYPES.CallExpression && call.arguments.includes(arg as TSESTree.CallExpressionArgument)) {
    return mentionsLease(sourceCode.getText(call.callee));
  }
  return false;
}

/** Keys that wrap the record being written: Prisma `data`, Mongo `$set`, DynamoDB `Item`. */
const RECORD_KEY = /^(?:data|\$set|\$setOnInsert|set|values|item|Item|update|create|record)$/;

/** Whether code text names a lock or lease store (`prisma.lease`, `db('locks')`, `leaseRepo`), word by word. */
function mentionsLease(text: string): boolean {
  return text
    .slice(0, 300)
    .split(/[^A-Za-z]+|(?=[A-Z][a-z])/)
    .some((word) => /^(?:leases?|locks?|fenc\w*|grants?|holders?|mutex(?:es)?)$/i.test(word));
}

/** A lock handle or lease record receiving a member: `lease.token = ...`, `this.lease.epoch = ...`. */
function isHandleReceiver(object: Node): boolean {
  const n = unwrap(object);
  if (n.type === AST_NODE_TYPES.ThisExpression) return AUTHORITY_CLASS.test(enclosingClassName(n) ?? '');
  if (n.type === AST_NODE_TYPES.Identifier) return HANDLE_NAME.test(n.name);
  if (n.type === AST_NODE_TYPES.MemberExpression) return HANDLE_NAME.test(thisMemberName(n) ?? '');
  return false;
}

/** How surely a place holds a fence token; undefined when it does not look like one. */
export function tokenStrength(place: ValuePlace, sourceCode: SourceCode, options: TokenPlaceOptions = {}): TokenStrength | undefined {
  switch (place.kind) {
    case 'binding':
    case 'parameter':
    case 'field':
      return isStrongName(place.name, options) ? 'strong' : undefined;
    case 'property':
      if (isStrongName(place.name, options)) return 'strong';
      return isWeakName(place.name) && isLeaseObject(place.object, sourceCode) ? 'context' : undefined;
    case 'member':
      if (isStrongName(place.name, options)) return 'strong';
      return isWeakName(place.name) && isHandleReceiver(place.object) ? 'context' : undefined;
    case 'return': {
      const name = place.fnName ?? '';
      if (STRONG_ISSUER.test(name) || options.extraNames?.some((n) => n.toLowerCase() === name.toLowerCase())) return 'strong';
      if (WEAK_ISSUER.test(name)) return 'context';
      // `class FenceTokenIssuer { issue() { return ... } }`
      return ISSUER_METHOD.test(name) && TOKEN_CLASS.test(enclosingClassName(place.fn) ?? '') ? 'strong' : undefined;
    }
    case 'sql':
      return isTokenColumn(place.column, place.table, options);
    default:
      return undefined;
  }
}

/** How messages name a place: `fenceToken`, `column fence_token`, `the result of nextFenceToken()`. */
export function describePlace(place: ValuePlace): string {
  switch (place.kind) {
    case 'sql':
      return `column ${codeSpan(place.column, 24)}`;
    case 'return':
      return `the result of ${codeSpan(`${shorten(place.fnName ?? 'this function', 22)}()`, 26)}`;
    default:
      return codeSpan(place.name, 28);
  }
}

/** Is this SQL column a token column (for assignments made in SQL itself)? */
export function isTokenColumn(column: string, table: string | undefined, options: TokenPlaceOptions = {}): TokenStrength | undefined {
  const name = column.split('.').pop() ?? column;
  if (name === options.tokenColumn || isStrongName(name, options) || (isTokenColumnName(name) && !isTimeName(name))) return 'strong';
  return isWeakName(name) && !!table && LOCK_TABLE.test(table) ? 'context' : undefined;
}

/**
 * Words without which no place in a file can hold a fence token: a strong token name, a lease
 * word that gives weak names (`token`, `version`) their meaning, or an issuer's name. Lets the
 * token rules skip most files with one scan of the text. `elect` and `lease` must start a word or a
 * camelCase part, or every `select` and `release` would pass.
 */
const TOKEN_HINT = /[fF]enc|FENC|[gG]eneration|[sS]equencer|[eE]poch|(?:^|[^A-Za-z])[lL]ease|[a-z0-9_]Lease|LEASE|(?<![a-z])lock|Lock|LOCK|[gG]rant|[hH]older|[oO]wner|[lL]eader|(?:^|[^A-Za-z])[eE]lect|[a-z0-9_]Elect|[cC]laim|[tT]akeover|[aA]cquire|[aA]uthority|(?:next|issue|mint|allocate)_?[tT]oken/;

const hintCache = new WeakMap<SourceCode, boolean>();

/** Cached per file, so the token rules scan its text once between them. */
export function mayHoldFenceTokens(sourceCode: SourceCode, options: TokenPlaceOptions = {}): boolean {
  let hinted = hintCache.get(sourceCode);
  if (hinted === undefined) {
    hinted = TOKEN_HINT.test(sourceCode.text);
    hintCache.set(sourceCode, hinted);
  }
  if (hinted) return true;
  const text = sourceCode.text;
  const lower = options.extraNames?.length ? text.toLowerCase() : '';
  return (options.extraNames ?? []).some((n) => lower.includes(n.toLowerCase())) || (!!options.tokenColumn && text.includes(options.tokenColumn));
}
