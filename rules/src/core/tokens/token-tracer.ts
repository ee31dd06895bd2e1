/**
 * Token tracing: decides whether a JS expression carries a fence token by where its value
 * comes from, whatever the variables are called. A value is a token when it is read off an
 * acquire's handle (the model's token properties), from a durable counter (Redis `INCR`,
 * `UPDATE ... SET n = n + 1 RETURNING n`, `nextval`), from an ordered revision (etcd
 * `header.revision`, `mod_revision`, a ZooKeeper zxid), or from a function that returns one.
 * It is followed back through assignments, destructuring, member access, conversions,
 * template literals, `.then` callbacks, class fields, parameters (what callers pass) and
 * returns. A clock or random value is never a token. Names decide only when the origin is
 * out of sight (an imported function, a parameter nobody in the file passes), and never
 * against a known origin.
 *
 * Also finds a token expression in scope at a write, for the suggestion fix (never invented:
 * only a value the code already has).
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { Scope, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, isFunctionNode, memberName, staticString, unwrap, type FunctionNode, type Node } from '../ast.js';
import type { AcquireSite } from '../locks/acquires.js';
import type { FunctionIndex } from '../modules/functions.js';
import type { ImportTable } from '../modules/imports.js';
import { isHandleTokenName, isStrongTokenName, isTimeName } from '../models/token-names.js';
import {
  ORDERED_REVISION_PATHS,
  REDIS_COMMAND_SENDERS,
  REDIS_COUNTER_COMMANDS,
  REDIS_TRANSACTION_EXEC,
  REDIS_TRANSACTION_START,
  TOKEN_ISSUER_NAME,
  TOKEN_ISSUER_WORD,
} from '../models/token-sources.js';
import { receiverKey } from '../modules/receivers.js';
import { BUILTIN_CATALOG, type Catalog } from '../models/catalog.js';
import type { TokenSourceModel } from '../models/token-sources.js';
import { counterOutputs, readSqlCall } from '../sinks/sql-writes.js';
import { clockSourceOf, isClockPackage } from '../modules/value-origin.js';

/** One step into a value: a property name, an array index, or one of the markers below. */
export type PathStep = string | number;
/** Any element of an array (`for (const row of rows)`, a computed index). */
export const ANY_ELEMENT = '[*]';
/** Asks whether the value is a lock handle rather than a token. */
const HANDLE = '[handle]';
export const HANDLE_STEP = HANDLE;

export interface TokenTracerHooks {
  /**
   * Whether a call the file cannot follow (an imported function) returns a fence token at
   * `path` inside its result (an empty path: the result itself). Names are not consulted
   * when this says yes.
   */
  returnsToken?(call: TSESTree.CallExpression, path: readonly PathStep[]): boolean;
}

export interface TokenTracerOptions {
  /** Local names bound to imports, to recognise clock and random packages. */
  imports?: ImportTable;
  hooks?: TokenTracerHooks;
  /** The configuration's catalog, for the user's own token sources and SQL wrappers. */
  catalog?: Catalog;
}

/** 'token', 'not' (a clock, random or constant value), or undefined: the origin is out of sight. */
type Verdict = 'token' | 'not' | undefined;

const CONVERSIONS = new Set(['Number', 'BigInt', 'String', 'parseInt', 'parseFloat', 'toString', 'toFixed', 'valueOf']);
const MAX_DEPTH = 10;
const HANDLE_IDENTIFIER = /^(?:lease|lock|handle|grant|fence|fencing|lockHandle|leaseHandle|acquired|acquisition|ownership)$/i;
const HANDLE_MEMBER = /^(?:lease|lock|handle|grant|fence|fencing)$/i;
const ACQUIRE_CALL_NAME = /^(?:acquire|lease|lock|grant)/i;
/** Row containers of SQL client results: pg `rows`, a mysql2 `[rows]` pair, an index. */
const ROW_CONTAINER = new Set(['rows']);

function combine(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('token')) return 'token';
  return verdicts.length > 0 && verdicts.every((v) => v === 'not') ? 'not' : undefined;
}

/** A name that on its own says fence token (last resort), unless it names a time. */
function nameSaysToken(name: string): boolean {
  return isStrongTokenName(name) && !isTimeName(name);
}

/** Steps from the root of a binding pattern down to `id`; undefined through a rest element. */
function patternPath(id: Node, root: Node): PathStep[] | undefined {
  const steps: PathStep[] = [];
  let current: Node = id;
  while (current !== root) {
    const parent = current.parent;
    if (!parent) return undefined;
    if (parent.type === AST_NODE_TYPES.Property && parent.value === current) {
      const key = parent.computed ? (parent.key.type === AST_NODE_TYPES.Literal ? String(parent.key.value) : undefined) : parent.key.type === AST_NODE_TYPES.Identifier ? parent.key.name : parent.key.type === AST_NODE_TYPES.Literal ? String(parent.key.value) : undefined;
      if (key === undefined) return undefined;
      steps.unshift(key);
      current = parent.parent; // the ObjectPattern
      continue;
    }
    if (parent.type === AST_NODE_TYPES.ArrayPattern) {
      steps.unshift(parent.elements.indexOf(current as TSESTree.DestructuringPattern));
      current = parent;
      continue;
    }
    if (parent.type === AST_NODE_TYPES.AssignmentPattern && parent.left === current) {
      current = parent;
      continue;
    }
    if (parent.type === AST_NODE_TYPES.TSParameterProperty) {
      current = parent;
      continue;
    }
    return undefined;
  }
  return steps;
}

function pathKey(path: readonly PathStep[]): string {
  return path.map((s) => (typeof s === 'number' ? `#${s}` : s)).join('\u0001');
}

/** Whether the names of a path end with an ordered revision (`header.revision`, `mod_revision`, `czxid`). */
function endsWithRevision(names: readonly PathStep[]): boolean {
  return ORDERED_REVISION_PATHS.some((suffix) => suffix.length <= names.length && suffix.every((part, i) => names[names.length - suffix.length + i] === part));
}

export class TokenTracer {
  private readonly memo = new Map<Node, Map<string, Verdict>>();
  /** Keys of bound handles (`lock`, `this.lease`) -> the acquire that produced them. */
  private readonly handles = new Map<string, AcquireSite>();
  /** Acquire calls -> their sites. */
  private readonly sites = new Map<Node, AcquireSite>();
  private readonly clockNames = new Set<string>();
  private readonly hooks: TokenTracerHooks;
  private readonly returnsOf = new Map<FunctionNode, Node[]>();
  private readonly thisWrites = new Map<Node, Map<string, Node[]>>();
  /** While set, names decide nothing: only origins count. */
  private strict = false;
  private readonly catalog: Catalog;
  private readonly imports: ImportTable | undefined;

  constructor(
    private readonly sourceCode: SourceCode,
    private readonly functions: FunctionIndex,
    acquires: readonly AcquireSite[],
    options: TokenTracerOptions = {},
  ) {
    for (const site of acquires) {
      if (site.handleKey) this.handles.set(site.handleKey, site);
      this.sites.set(site.node, site);
    }
    for (const [local, binding] of options.imports ?? []) if (isClockPackage(binding.source)) this.clockNames.add(local);
    this.hooks = options.hooks ?? {};
    this.catalog = options.catalog ?? BUILTIN_CATALOG;
    this.imports = options.imports;
  }

  /** The catalog's token source a call is (`leases.next()`, `nextFence(key)`), by the call as written. */
  private tokenSourceOf(n: TSESTree.CallExpression): TokenSourceModel | undefined {
    if (this.catalog.tokenSources.length === 0) return undefined;
    const written = receiverKey(n.callee);
    if (written === undefined) return undefined;
    const root = written.split('.')[0];
    return this.catalog.tokenSources.find((source) => source.calls.includes(written) && (source.packages.length === 0 || source.packages.includes(this.imports?.get(root)?.source ?? '')));
  }

  /** Whether the value of `node` is a fence token. */
  isToken(node: Node): boolean {
    return this.evaluate(node, [], 0) === 'token';
  }

  /** Whether the value of `node` is known not to be a token: a clock reading, a random id, a constant. */
  isNonToken(node: Node): boolean {
    return this.evaluate(node, [], 0) === 'not';
  }

  /** A lock handle or authority result: `lock`, `lease`, `this.lease`, or a value traced to an acquire. */
  isHandle(node: Node): boolean {
    const key = receiverKey(unwrap(node));
    if (key && this.handles.has(key)) return true;
    return this.evaluate(node, [HANDLE], 0) === 'token';
  }

  /** A value traced to an acquire's handle by where it comes from, names aside. */
  isHandleByOrigin(node: Node): boolean {
    const key = receiverKey(unwrap(node));
    if (key && this.handles.has(key)) return true;
    this.strict = true;
    try {
      return this.evaluate(node, [HANDLE], 0) === 'token';
    } finally {
      this.strict = false;
    }
  }

  private evaluate(node: Node, path: readonly PathStep[], depth: number): Verdict {
    if (depth > MAX_DEPTH) return undefined;
    const n = unwrap(node);
    const key = (this.strict ? '!' : '') + pathKey(path);
    let byPath = this.memo.get(n);
    if (!byPath) {
      byPath = new Map();
      this.memo.set(n, byPath);
    }
    if (byPath.has(key)) return byPath.get(key);
    byPath.set(key, undefined); // a cycle: out of sight while deciding
    const verdict = this.decide(n, path, depth + 1);
    byPath.set(key, verdict);
    return verdict;
  }

  private decide(n: Node, path: readonly PathStep[], depth: number): Verdict {
    switch (n.type) {
      case AST_NODE_TYPES.Literal:
        return path.length === 0 && n.value !== null ? 'not' : undefined;
      case AST_NODE_TYPES.TemplateLiteral:
        // `${t}` is `t`; any other template is text built around it.
        return path.length === 0 && n.expressions.length === 1 && n.quasis.every((q) => q.value.raw === '') ? this.evaluate(n.expressions[0], [], depth) : undefined;
      case AST_NODE_TYPES.Identifier:
        return this.identifier(n, path, depth);
      case AST_NODE_TYPES.MemberExpression:
        return this.member(n, path, depth);
      case AST_NODE_TYPES.ThisExpression:
        return this.thisField(n, path, depth);
      case AST_NODE_TYPES.CallExpression:
        return this.call(n, path, depth);
      case AST_NODE_TYPES.NewExpression:
        return clockSourceOf(n, this.sourceCode, this.clockNames) ? 'not' : undefined;
      case AST_NODE_TYPES.TaggedTemplateExpression:
        return this.sqlCounter(n, path);
      case AST_NODE_TYPES.ObjectExpression: {
        const [first, ...rest] = path;
        if (typeof first !== 'string' || first === HANDLE) return undefined;
        for (let i = n.properties.length - 1; i >= 0; i--) {
          const p = n.properties[i];
          if (p.type === AST_NODE_TYPES.Property && !p.computed && (p.key.type === AST_NODE_TYPES.Identifier ? p.key.name : p.key.type === AST_NODE_TYPES.Literal ? String(p.key.value) : undefined) === first) {
            return this.evaluate(p.value, rest, depth);
          }
          if (p.type === AST_NODE_TYPES.SpreadElement) {
            const spread = this.evaluate(p.argument, path, depth);
            if (spread === 'token') return spread;
          }
        }
        return undefined;
      }
      case AST_NODE_TYPES.ArrayExpression: {
        const [first, ...rest] = path;
        if (typeof first === 'number') {
          const element = n.elements[first];
          return element && element.type !== AST_NODE_TYPES.SpreadElement ? this.evaluate(element, rest, depth) : undefined;
        }
        if (first === ANY_ELEMENT) return combine(n.elements.map((e) => (e && e.type !== AST_NODE_TYPES.SpreadElement ? this.evaluate(e, rest, depth) : undefined)));
        return undefined;
      }
      case AST_NODE_TYPES.ConditionalExpression:
        return combine([this.evaluate(n.consequent, path, depth), this.evaluate(n.alternate, path, depth)]);
      case AST_NODE_TYPES.LogicalExpression: {
        // `t ?? 0`, `lease.token || fallback`: the left side is the value that matters.
        const left = this.evaluate(n.left, path, depth);
        return left === 'token' ? left : combine([left, this.evaluate(n.right, path, depth)]);
      }
      case AST_NODE_TYPES.AssignmentExpression:
        return n.operator === '=' ? this.evaluate(n.right, path, depth) : undefined;
      case AST_NODE_TYPES.SequenceExpression:
        return this.evaluate(n.expressions[n.expressions.length - 1], path, depth);
      default:
        return undefined;
    }
  }

  private variableOf(id: TSESTree.Identifier): Scope.Variable | null {
    return ASTUtils.findVariable(this.sourceCode.getScope(id), id.name);
  }

  private identifier(id: TSESTree.Identifier, path: readonly PathStep[], depth: number): Verdict {
    const variable = this.variableOf(id);
    const def = variable?.defs[0];
    let verdict: Verdict;
    let destructuredFrom: string | undefined;
    if (variable && def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator) {
      const decl = def.node;
      const inner = patternPath(def.name, decl.id);
      const last = inner?.[inner.length - 1];
      if (typeof last === 'string') destructuredFrom = last;
      const verdicts: Verdict[] = [];
      if (inner && decl.init) verdicts.push(this.evaluate(decl.init, [...inner, ...path], depth));
      // `for (const row of rows)`: an element of what is iterated.
      const loop = decl.parent?.parent;
      if (inner && !decl.init && loop?.type === AST_NODE_TYPES.ForOfStatement && loop.left === decl.parent) verdicts.push(this.evaluate(loop.right, [ANY_ELEMENT, ...inner, ...path], depth));
      // `let t; ... t = await redis.incr(key);`
      for (const ref of variable.references) {
        const parent = ref.identifier.parent;
        if (ref.isWrite() && parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.left === ref.identifier && parent.operator === '=') verdicts.push(this.evaluate(parent.right, path, depth));
      }
      verdict = combine(verdicts);
    } else if (def?.type === 'Parameter') {
      const fn = def.node;
      if (isFunctionNode(fn)) {
        const index = fn.params.findIndex((p) => p === def.name || (p.range[0] <= def.name.range[0] && def.name.range[1] <= p.range[1]));
        const inner = index >= 0 ? patternPath(def.name, fn.params[index]) : undefined;
        const last = inner?.[inner.length - 1];
        if (typeof last === 'string') destructuredFrom = last;
        if (inner) verdict = this.parameter(fn, index, [...inner, ...path], depth);
      }
    }
    if (verdict !== undefined || path.length > 1 || this.strict) return verdict;
    // Last resort, only when the origin is out of sight: the name.
    if (path.length === 0) return nameSaysToken(id.name) || (destructuredFrom !== undefined && nameSaysToken(destructuredFrom)) ? 'token' : undefined;
    return path[0] === HANDLE && HANDLE_IDENTIFIER.test(id.name) ? 'token' : undefined;
  }

  /** What callers put into parameter `index` of `fn`, at `path`. */
  private parameter(fn: FunctionNode, index: number, path: readonly PathStep[], depth: number): Verdict {
    const verdicts: Verdict[] = [];
    const argumentAt = (call: TSESTree.CallExpression, i: number) => {
      const arg = call.arguments[i];
      return arg && arg.type !== AST_NODE_TYPES.SpreadElement ? arg : undefined;
    };
    for (const call of this.functions.callersOf(fn)) {
      const arg = argumentAt(call, index);
      if (arg) verdicts.push(this.evaluate(arg, path, depth));
    }
    const holder = fn.parent;
    if (holder?.type === AST_NODE_TYPES.CallExpression && holder.arguments.includes(fn as TSESTree.CallExpressionArgument)) {
      // `promise.then((res) => ...)`: the parameter is what the promise resolves to.
      const object = calleeObject(holder);
      if (calleeName(holder) === 'then' && holder.arguments[0] === fn && index === 0 && object) verdicts.push(this.evaluate(object, path, depth));
      // `withFence(key, async (token) => ...)` where the same-file helper calls its callback with a token.
      const helper = this.functions.callee(holder);
      const callbackParam = helper?.params[holder.arguments.indexOf(fn as TSESTree.CallExpressionArgument)];
      if (helper && callbackParam?.type === AST_NODE_TYPES.Identifier) {
        const variable = this.sourceCode.getDeclaredVariables(helper).find((v) => v.name === callbackParam.name);
        for (const ref of variable?.references ?? []) {
          const call = ref.identifier.parent;
          if (call?.type !== AST_NODE_TYPES.CallExpression || call.callee !== ref.identifier) continue;
          const arg = argumentAt(call, index);
          if (arg) verdicts.push(this.evaluate(arg, path, depth));
        }
      }
    }
    return combine(verdicts);
  }

  private member(n: TSESTree.MemberExpression, path: readonly PathStep[], depth: number): Verdict {
    const name = memberName(n);
    const step: PathStep = name ?? (n.computed && n.property.type === AST_NODE_TYPES.Literal && typeof n.property.value === 'number' ? n.property.value : ANY_ELEMENT);
    if (path.length === 0 && name) {
      // `res.header.revision`, `kvs[0].mod_revision`, `stat.czxid`: ordered by the service itself.
      if (endsWithRevision(this.memberNames(n))) return 'token';
      const objectKey = receiverKey(unwrap(n.object));
      const site = objectKey ? this.handles.get(objectKey) : undefined;
      if (site && (site.tokenProperties.includes(name) || isHandleTokenName(name))) return 'token';
    }
    const verdict = this.evaluate(n.object, [step, ...path], depth);
    if (verdict !== undefined || !name || this.strict) return verdict;
    if (path.length === 0) {
      if (nameSaysToken(name)) return 'token';
      return isHandleTokenName(name) && this.isHandle(n.object) ? 'token' : undefined;
    }
    return path.length === 1 && path[0] === HANDLE && HANDLE_MEMBER.test(name) ? 'token' : undefined;
  }

  /** Member names of `a.b.c` up from the innermost non-member, with indexes dropped. */
  private memberNames(n: TSESTree.MemberExpression): string[] {
    const names: string[] = [];
    let current: Node = n;
    while (current.type === AST_NODE_TYPES.MemberExpression) {
      const name = memberName(current);
      if (name) names.unshift(name);
      current = unwrap(current.object);
    }
    return names;
  }

  /** `this.token` inside a class: what the class assigns to that field. */
  private thisField(n: TSESTree.ThisExpression, path: readonly PathStep[], depth: number): Verdict {
    const [first, ...rest] = path;
    if (typeof first !== 'string' || first === HANDLE) return undefined;
    let body: Node | undefined = n.parent;
    while (body && body.type !== AST_NODE_TYPES.ClassBody) body = body.parent;
    if (!body) return undefined;
    const writes = this.fieldWrites(body as TSESTree.ClassBody).get(first) ?? [];
    return combine(writes.map((w) => this.evaluate(w, rest, depth)));
  }

  private fieldWrites(body: TSESTree.ClassBody): Map<string, Node[]> {
    let index = this.thisWrites.get(body);
    if (index) return index;
    const found = new Map<string, Node[]>();
    index = found;
    const add = (name: string, value: Node) => {
      const list = found.get(name);
      if (list) list.push(value);
      else found.set(name, [value]);
    };
    const visit = (node: Node): void => {
      if (node.type === AST_NODE_TYPES.AssignmentExpression && node.operator === '=' && node.left.type === AST_NODE_TYPES.MemberExpression && node.left.object.type === AST_NODE_TYPES.ThisExpression) {
        const name = memberName(node.left);
        if (name) add(name, node.right);
      }
      if (node.type === AST_NODE_TYPES.PropertyDefinition && !node.computed && node.key.type === AST_NODE_TYPES.Identifier && node.value) add(node.key.name, node.value);
      if (node.type === AST_NODE_TYPES.ClassBody && node !== body) return;
      for (const key of this.sourceCode.visitorKeys[node.type] ?? []) {
        const child = (node as unknown as Record<string, unknown>)[key];
        if (Array.isArray(child)) for (const c of child) c && typeof (c as Node).type === 'string' && visit(c as Node);
        else if (child && typeof (child as Node).type === 'string') visit(child as Node);
      }
    };
    visit(body);
    this.thisWrites.set(body, index);
    return index;
  }

  private call(n: TSESTree.CallExpression, path: readonly PathStep[], depth: number): Verdict {
    const name = calleeName(n);
    const callee = unwrap(n.callee);
    // Conversions keep the value: `Number(t)`, `String(t)`, `t.toString()`.
    if (path.length === 0 && name && CONVERSIONS.has(name)) {
      if (callee.type === AST_NODE_TYPES.Identifier && n.arguments[0] && n.arguments[0].type !== AST_NODE_TYPES.SpreadElement) return this.evaluate(n.arguments[0], [], depth);
      if (callee.type === AST_NODE_TYPES.MemberExpression) return this.evaluate(callee.object, [], depth);
    }
    if (clockSourceOf(n, this.sourceCode, this.clockNames)) return 'not';
    const site = this.sites.get(n);
    if (site) {
      const [first] = path;
      if (path.length !== 1 || typeof first !== 'string') return undefined;
      return first === HANDLE || site.tokenProperties.includes(first) || isHandleTokenName(first) ? 'token' : undefined;
    }
    const declared = this.tokenSourceOf(n);
    if (declared) {
      const [step] = path;
      if (path.length === 0 && declared.tokenProperties.length === 0) return 'token';
      if (path.length === 1 && typeof step === 'string' && declared.tokenProperties.includes(step)) return 'token';
    }
    if (path.length === 0 && this.isRedisCounter(n)) return 'token';
    if (name === REDIS_TRANSACTION_EXEC && this.redisTransactionCounter(n, path)) return 'token';
    const sql = this.sqlCounter(n, path);
    if (sql) return sql;
    if (endsWithRevision(path)) return 'token';
    const verdicts: Verdict[] = [];
    // `client.put(k).value(v).then((res) => res.header.revision)`.
    const first = n.arguments[0];
    if (name === 'then' && first && isFunctionNode(first)) verdicts.push(...this.returnsOfFunction(first).map((r) => this.evaluate(r, path, depth)));
    const fn = this.functions.callee(n);
    if (fn) verdicts.push(...this.returnsOfFunction(fn).map((r) => this.evaluate(r, path, depth)));
    else if (this.hooks.returnsToken?.(n, path)) return 'token';
    const verdict = combine(verdicts);
    if (verdict !== undefined || this.strict) return verdict;
    // Last resort: the callee's name (`nextFenceToken()`, `{ token } = await acquireLease()`).
    if (path.length === 0) return name && TOKEN_ISSUER_NAME.test(name) && TOKEN_ISSUER_WORD.test(name) ? 'token' : undefined;
    const [step] = path;
    if (path.length === 1 && typeof step === 'string' && ACQUIRE_CALL_NAME.test(name ?? '')) return step === HANDLE || isHandleTokenName(step) ? 'token' : undefined;
    return undefined;
  }

  /** Expressions a function returns (its own `return`s, not those of nested functions). */
  private returnsOfFunction(fn: FunctionNode): Node[] {
    let found = this.returnsOf.get(fn);
    if (found) return found;
    const out: Node[] = [];
    found = out;
    this.returnsOf.set(fn, out);
    if (fn.body.type !== AST_NODE_TYPES.BlockStatement) {
      out.push(fn.body);
      return out;
    }
    const visit = (node: Node): void => {
      if (node !== fn.body && isFunctionNode(node)) return;
      if (node.type === AST_NODE_TYPES.ReturnStatement && node.argument) out.push(node.argument);
      for (const key of this.sourceCode.visitorKeys[node.type] ?? []) {
        const child = (node as unknown as Record<string, unknown>)[key];
        if (Array.isArray(child)) for (const c of child) c && typeof (c as Node).type === 'string' && visit(c as Node);
        else if (child && typeof (child as Node).type === 'string') visit(child as Node);
      }
    };
    visit(fn.body);
    return out;
  }

  /** `redis.incr(key)`, `client.hIncrBy(k, f, 1)`, `redis.call('INCR', key)`, `client.sendCommand(['INCR', key])`. */
  private isRedisCounter(n: TSESTree.CallExpression): boolean {
    const name = calleeName(n);
    if (!name || !calleeObject(n)) return false;
    if (REDIS_COUNTER_COMMANDS.has(name.toLowerCase())) return true;
    if (!REDIS_COMMAND_SENDERS.has(name)) return false;
    const first = n.arguments[0];
    const command = first?.type === AST_NODE_TYPES.ArrayExpression ? first.elements[0] : first;
    const text = command && command.type !== AST_NODE_TYPES.SpreadElement ? staticString(command) : undefined;
    return text !== undefined && REDIS_COUNTER_COMMANDS.has(text.toLowerCase());
  }

  /**
   * `redis.multi().incr(k).expire(k, 60).exec()` (or the commands queued on a `multi()` kept in a
   * variable): reply `i` is command `i`'s, `[err, reply]` in ioredis and the bare reply in node-redis.
   */
  private redisTransactionCounter(exec: TSESTree.CallExpression, path: readonly PathStep[]): boolean {
    const [index, inner] = path;
    if (typeof index !== 'number' || path.length > 2 || (path.length === 2 && inner !== 1)) return false;
    const commands: TSESTree.CallExpression[] = [];
    let current: Node | undefined = calleeObject(exec);
    while (current) {
      const c = unwrap(current);
      if (c.type === AST_NODE_TYPES.CallExpression) {
        const name = calleeName(c);
        if (name && REDIS_TRANSACTION_START.has(name)) break;
        commands.unshift(c);
        current = calleeObject(c);
        continue;
      }
      if (c.type === AST_NODE_TYPES.Identifier && commands.length === 0) {
        // `const tx = redis.multi(); tx.incr(k); await tx.exec();`
        const variable = this.variableOf(c);
        for (const ref of variable?.references ?? []) {
          const member = ref.identifier.parent;
          const call = member?.parent;
          if (member?.type === AST_NODE_TYPES.MemberExpression && member.object === ref.identifier && call?.type === AST_NODE_TYPES.CallExpression && call.callee === member && call !== exec && call.range[1] <= exec.range[0]) {
            commands.push(call);
          }
        }
      }
      break;
    }
    const command = commands[index];
    return !!command && REDIS_COUNTER_COMMANDS.has((calleeName(command) ?? '').toLowerCase());
  }

  /** `rows[0].token` of `UPDATE counters SET token = token + 1 ... RETURNING token`, `SELECT nextval(...) AS t`. */
  private sqlCounter(n: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, path: readonly PathStep[]): Verdict {
    if (path.length === 0) return undefined;
    const last = path[path.length - 1];
    if (typeof last !== 'string' || last === HANDLE || last === ANY_ELEMENT) return undefined;
    if (!path.slice(0, -1).every((s) => typeof s === 'number' || s === ANY_ELEMENT || ROW_CONTAINER.has(s as string))) return undefined;
    const call = readSqlCall(n, this.sourceCode, undefined, this.catalog);
    if (!call) return undefined;
    const column = last.toLowerCase();
    return call.source.analysis.statements.some((s) => counterOutputs(s).includes(column)) ? 'token' : undefined;
  }

  /**
   * A token expression the code already has at `at`, as source text, for the suggestion:
   * the acquire's destructured token, the handle's token property, or a variable in scope
   * whose value is a token. Undefined when there is none: the fix never invents a variable.
   */
  tokenInScope(at: Node, site: AcquireSite | undefined): string | undefined {
    if (site) {
      for (const [prop, local] of site.destructured) if (isHandleTokenName(prop) && this.visible(local, at)) return local;
      if (site.handleKey && site.tokenProperties.length > 0 && this.visible(site.handleKey.split('.')[0], at)) {
        return `${site.handleKey}.${site.tokenProperties[0]}`;
      }
    }
    let scope: Scope.Scope | null = this.sourceCode.getScope(at);
    while (scope) {
      for (const variable of scope.variables) {
        const def = variable.defs[0];
        if (!def || (def.type !== 'Variable' && def.type !== 'Parameter')) continue;
        if (def.name.range[1] > at.range[0] || def.name.type !== AST_NODE_TYPES.Identifier) continue;
        if (this.isToken(def.name)) return variable.name;
      }
      scope = scope.upper;
    }
    return undefined;
  }

  private visible(name: string, at: Node): boolean {
    if (name === 'this') return true;
    return !!ASTUtils.findVariable(this.sourceCode.getScope(at), name);
  }
}
