/**
 * Forward value flow: from one expression, where does its value go? Climbs through wrappers,
 * arithmetic, conversions and template literals, follows local variables to their reads,
 * arguments into same-file functions and returns back to their callers, and reports each
 * place the value is stored or handed on: a binding, an object property, a member, a
 * parameter, a `return`, or a `$n` of a SQL statement. Starts from the few nodes a rule
 * picks (clock calls, counter increments), so it costs nothing on files without them.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { Scope, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, contains, enclosingFunction, isFunctionNode, memberName, propertyKeyName, unwrap, walk, type FunctionNode, type Node } from '../ast.js';
import { VALUE_KEEPING_FUNCTIONS, VALUE_KEEPING_METHODS } from '../models/clock-sources.js';
import { readSqlCall, type SqlCall } from '../sinks/sql-writes.js';

export type ValuePlace =
  /** `const x = v`, `x = v`, a class field `x = v`, a parameter default `(x = v) =>`. */
  | { kind: 'binding'; node: Node; name: string }
  /** `{ x: v }`; for filter operators (`{ fenceToken: { lt: v } }`) the outer key. */
  | { kind: 'property'; node: TSESTree.Property; name: string; object: TSESTree.ObjectExpression }
  /** `obj.x = v`, `this.x = v`. */
  | { kind: 'member'; node: TSESTree.AssignmentExpression; name: string; object: Node }
  /** `f(v)` where same-file `f` names the parameter. */
  | { kind: 'parameter'; node: Node; name: string; fn: FunctionNode }
  /** `hset(key, 'fenceToken', v)`, `redis.set(\`fence:${k}\`, v)`: a named slot in a store call. */
  | { kind: 'field'; node: Node; name: string }
  /** `return v` / `() => v`. */
  | { kind: 'return'; node: Node; fn: FunctionNode; fnName?: string }
  /** Bound to `$n` of a SQL statement that assigns or compares `column`. */
  | { kind: 'sql'; node: Node; column: string; table?: string; call: SqlCall };

/** How the value reached a place. */
export interface PlaceReach {
  /**
   * The value was embedded in a longer string on the way (`\`host:${pid}:${seq}\``, `'w-' + n`):
   * what arrives is an identity such as an owner id, no longer the number it was.
   */
  inString: boolean;
}

/** Return true to stop following the value past this place. */
export type PlaceVisitor = (place: ValuePlace, reach: PlaceReach) => boolean | void;

const MAX_HOPS = 5;
const ARITHMETIC = new Set(['+', '-', '*', '/', '%', '**', '|', '&', '^', '<<', '>>', '>>>']);
/** Prisma / Mongo filter operators: the token is the key one level up. */
const FILTER_OPERATOR = /^\$?(?:lt|lte|gt|gte|eq|equals|ne|not|set|in)$/;
const SQL_VALUES_KEY = /^(?:values|bind|replacements|params|parameters)$/;
const SQL_WRITE_WORD = /\b(?:update|insert|merge|upsert)\b/i;

/** A cheap look at a call before its SQL is read: a tagged template, or a first argument that is text or a name. */
function mayBeSql(call: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression): boolean {
  if (call.type === AST_NODE_TYPES.TaggedTemplateExpression) return true;
  const first = call.arguments[0];
  if (!first) return false;
  const n = unwrap(first);
  if (n.type === AST_NODE_TYPES.Literal) return typeof n.value === 'string' && SQL_WRITE_WORD.test(n.value);
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return n.quasis.some((q) => SQL_WRITE_WORD.test(q.value.raw));
  return n.type === AST_NODE_TYPES.Identifier || n.type === AST_NODE_TYPES.ObjectExpression || n.type === AST_NODE_TYPES.BinaryExpression || n.type === AST_NODE_TYPES.MemberExpression;
}

/** The name a function is known by: declaration id, method/property key, or the variable it is bound to. */
export function functionName(fn: FunctionNode): string | undefined {
  if (fn.id) return fn.id.name;
  const parent = fn.parent;
  if (!parent) return undefined;
  if (parent.type === AST_NODE_TYPES.MethodDefinition || parent.type === AST_NODE_TYPES.PropertyDefinition || parent.type === AST_NODE_TYPES.Property) {
    return propertyKeyName(parent) ?? (parent.key.type === AST_NODE_TYPES.PrivateIdentifier ? parent.key.name : undefined);
  }
  if (parent.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier) return parent.id.name;
  if (parent.type === AST_NODE_TYPES.AssignmentExpression) return memberName(parent.left) ?? (parent.left.type === AST_NODE_TYPES.Identifier ? parent.left.name : undefined);
  return undefined;
}

/** The class body or object literal `this` refers to inside `node`'s function, if it is a method there. */
export function thisContainer(node: Node): TSESTree.ClassBody | TSESTree.ObjectExpression | undefined {
  let current: Node | undefined = node.parent;
  while (current) {
    if (current.type === AST_NODE_TYPES.ClassBody) return current;
    if (current.type === AST_NODE_TYPES.FunctionExpression || current.type === AST_NODE_TYPES.FunctionDeclaration) {
      const owner = current.parent;
      if (owner?.type === AST_NODE_TYPES.MethodDefinition) return owner.parent;
      if (owner?.type === AST_NODE_TYPES.Property && owner.parent.type === AST_NODE_TYPES.ObjectExpression) return owner.parent;
      if (current.type === AST_NODE_TYPES.FunctionDeclaration) return undefined;
    }
    current = current.parent;
  }
  return undefined;
}

/** What a class body or object literal does with `this.x`: calls, reads and writes by member name. */
export interface ThisMembers {
  calls: Map<string, TSESTree.CallExpression[]>;
  reads: Map<string, TSESTree.MemberExpression[]>;
  writes: Map<string, TSESTree.AssignmentExpression[]>;
  /** `Object.assign(this, ...)` or similar bulk loads. */
  bulkAssigned: boolean;
}

export function thisMemberName(member: TSESTree.MemberExpression): string | undefined {
  if (!member.computed && member.property.type === AST_NODE_TYPES.PrivateIdentifier) return `#${member.property.name}`;
  return memberName(member);
}

export class ValueFlow {
  private readonly thisIndex = new Map<Node, ThisMembers>();
  /** Whether the file writes SQL at all: values are looked up in SQL calls only then. */
  private readonly writesSql: boolean;

  constructor(private readonly sourceCode: SourceCode) {
    this.writesSql = SQL_WRITE_WORD.test(sourceCode.text);
  }

  /** The file the flow is read in. */
  sourceCodeOf(): SourceCode {
    return this.sourceCode;
  }

  /** Follows the value of `start`; `visit` sees each place, in the order reached. */
  follow(start: Node, visit: PlaceVisitor): void {
    const queue: Array<{ node: Node; hops: number; inString: boolean }> = [{ node: start, hops: 0, inString: false }];
    const seen = new Set<Node>();
    while (queue.length > 0) {
      const { node, hops, inString } = queue.shift()!;
      if (seen.has(node) || hops > MAX_HOPS) continue;
      seen.add(node);
      const reach: PlaceReach = { inString };
      for (const next of this.step(node, (place) => visit(place, reach), reach)) queue.push({ node: next, hops: hops + 1, inString: reach.inString });
    }
  }

  /** `this.x` calls, reads and writes inside a class body or object literal, indexed once. */
  thisMembers(container: TSESTree.ClassBody | TSESTree.ObjectExpression): ThisMembers {
    const cached = this.thisIndex.get(container);
    if (cached) return cached;
    const index: ThisMembers = { calls: new Map(), reads: new Map(), writes: new Map(), bulkAssigned: false };
    const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
      const list = map.get(key);
      if (list) list.push(value);
      else map.set(key, [value]);
    };
    walk(container, this.sourceCode.visitorKeys, (node) => {
      if (node.type === AST_NODE_TYPES.MemberExpression && unwrap(node.object).type === AST_NODE_TYPES.ThisExpression) {
        const name = thisMemberName(node);
        if (!name) return;
        const parent = node.parent;
        if (parent?.type === AST_NODE_TYPES.CallExpression && parent.callee === node) push(index.calls, name, parent);
        else if (parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.left === node) {
          if (parent.operator === '=') push(index.writes, name, parent);
        } else push(index.reads, name, node);
      } else if (node.type === AST_NODE_TYPES.CallExpression && node.arguments[0]?.type === AST_NODE_TYPES.ThisExpression && calleeName(node) === 'assign') {
        index.bulkAssigned = true;
      }
    });
    this.thisIndex.set(container, index);
    return index;
  }

  /** Climbs from `start` to where its value lands; returns expressions to follow further. */
  private step(start: Node, visit: (place: ValuePlace) => boolean | void, reach: PlaceReach): Node[] {
    let cur: Node = start;
    for (;;) {
      const p = cur.parent;
      if (!p) return [];
      switch (p.type) {
        case AST_NODE_TYPES.TSAsExpression:
        case AST_NODE_TYPES.TSSatisfiesExpression:
        case AST_NODE_TYPES.TSNonNullExpression:
        case AST_NODE_TYPES.TSTypeAssertion:
        case AST_NODE_TYPES.AwaitExpression:
        case AST_NODE_TYPES.ChainExpression:
        case AST_NODE_TYPES.LogicalExpression:
          cur = p;
          continue;
        case AST_NODE_TYPES.UnaryExpression:
          if (p.operator !== '+' && p.operator !== '-' && p.operator !== '~') return [];
          cur = p;
          continue;
        case AST_NODE_TYPES.BinaryExpression:
          if (!ARITHMETIC.has(p.operator)) return [];
          if (p.operator === '+' && isStringy(p.left === cur ? p.right : p.left)) reach.inString = true;
          cur = p;
          continue;
        case AST_NODE_TYPES.ConditionalExpression:
          if (p.test === cur) return [];
          cur = p;
          continue;
        case AST_NODE_TYPES.SequenceExpression:
          if (p.expressions[p.expressions.length - 1] !== cur) return [];
          cur = p;
          continue;
        case AST_NODE_TYPES.TemplateLiteral:
          if (p.parent?.type === AST_NODE_TYPES.TaggedTemplateExpression) {
            this.visitSql(cur, visit);
            return [];
          }
          if (p.expressions.length > 1 || p.quasis.some((q) => (q.value.cooked ?? q.value.raw) !== '')) reach.inString = true;
          cur = p;
          continue;
        case AST_NODE_TYPES.MemberExpression: {
          const call = p.parent;
          const name = memberName(p);
          if (p.object === cur && name && VALUE_KEEPING_METHODS.has(name) && call?.type === AST_NODE_TYPES.CallExpression && call.callee === p) {
            cur = call;
            continue;
          }
          // Temporal / luxon getters: `Temporal.Now.instant().epochMilliseconds`.
          if (p.object === cur && name && VALUE_KEEPING_METHODS.has(name) && !(call?.type === AST_NODE_TYPES.CallExpression && call.callee === p)) {
            cur = p;
            continue;
          }
          return [];
        }
        case AST_NODE_TYPES.CallExpression:
        case AST_NODE_TYPES.NewExpression: {
          if (p.callee === cur) return [];
          const name = dottedCallee(p.callee);
          if (name && (VALUE_KEEPING_FUNCTIONS.has(name) || (p.type === AST_NODE_TYPES.NewExpression && name === 'Date'))) {
            cur = p;
            continue;
          }
          if (p.type === AST_NODE_TYPES.CallExpression) {
            this.visitSql(cur, visit);
            const field = fieldName(p, cur);
            if (field && visit({ kind: 'field', node: cur, name: field })) return [];
          }
          return this.intoParameter(p, cur, visit);
        }
        case AST_NODE_TYPES.ArrayExpression:
          this.visitSql(cur, visit);
          return [];
        case AST_NODE_TYPES.Property: {
          if (p.value !== cur || p.parent.type !== AST_NODE_TYPES.ObjectExpression) return [];
          let property: TSESTree.Property = p;
          const key = propertyKeyName(p);
          if (key && FILTER_OPERATOR.test(key) && p.parent.parent?.type === AST_NODE_TYPES.Property) {
            property = p.parent.parent;
          }
          const name = propertyKeyName(property);
          this.visitSql(cur, visit);
          if (name && property.parent.type === AST_NODE_TYPES.ObjectExpression) visit({ kind: 'property', node: property, name, object: property.parent });
          return [];
        }
        case AST_NODE_TYPES.VariableDeclarator: {
          // `const [seconds, nanos] = process.hrtime()`: each element keeps the source's nature.
          if (p.init === cur && p.id.type === AST_NODE_TYPES.ArrayPattern) return this.readsOf(this.sourceCode.getDeclaredVariables(p), p.id, 0);
          if (p.init !== cur || p.id.type !== AST_NODE_TYPES.Identifier) return [];
          if (visit({ kind: 'binding', node: p, name: p.id.name })) return [];
          return this.readsOf(this.sourceCode.getDeclaredVariables(p), p.id, 0);
        }
        case AST_NODE_TYPES.AssignmentExpression: {
          if (p.right !== cur || p.operator !== '=') return [];
          const left = p.left;
          if (left.type === AST_NODE_TYPES.Identifier) {
            if (visit({ kind: 'binding', node: p, name: left.name })) return [];
            const variable = ASTUtils.findVariable(this.sourceCode.getScope(left), left.name);
            return variable ? this.readsOf([variable], left, p.range[1]) : [];
          }
          if (left.type === AST_NODE_TYPES.MemberExpression) {
            const name = thisMemberName(left);
            if (name) visit({ kind: 'member', node: p, name, object: left.object });
            // `const t = (tokens[key] = next)`: the assignment's own value goes on.
            if (p.parent?.type !== AST_NODE_TYPES.ExpressionStatement) {
              cur = p;
              continue;
            }
          }
          return [];
        }
        case AST_NODE_TYPES.AssignmentPattern:
          if (p.right === cur && p.left.type === AST_NODE_TYPES.Identifier) visit({ kind: 'binding', node: p, name: p.left.name });
          return [];
        case AST_NODE_TYPES.PropertyDefinition: {
          const name = p.key.type === AST_NODE_TYPES.PrivateIdentifier ? `#${p.key.name}` : propertyKeyName(p);
          if (p.value === cur && name) visit({ kind: 'binding', node: p, name });
          return [];
        }
        case AST_NODE_TYPES.ReturnStatement: {
          const fn = enclosingFunction(p);
          return fn ? this.fromReturn(fn, cur, visit) : [];
        }
        case AST_NODE_TYPES.ArrowFunctionExpression:
          return p.body === cur ? this.fromReturn(p, cur, visit) : [];
        default:
          return [];
      }
    }
  }

  private fromReturn(fn: FunctionNode, node: Node, visit: (place: ValuePlace) => boolean | void): Node[] {
    if (visit({ kind: 'return', node, fn, fnName: functionName(fn) })) return [];
    return this.callersOf(fn);
  }

  /** Read references of variables, after `after` (for re-assignments), excluding the binding itself. */
  private readsOf(variables: readonly Scope.Variable[], id: Node, after: number): Node[] {
    const out: Node[] = [];
    for (const variable of variables) {
      for (const ref of variable.references) {
        if (!ref.isRead() || ref.identifier === id || ref.identifier.range[0] < after) continue;
        out.push(ref.identifier);
      }
    }
    return out;
  }

  /** Calls of a same-file function: by its variable for declarations and bound arrows, by `this.name` for methods. */
  callersOf(fn: FunctionNode): Node[] {
    const parent = fn.parent;
    let variables: readonly Scope.Variable[] = [];
    if (fn.type === AST_NODE_TYPES.FunctionDeclaration && fn.id) variables = this.sourceCode.getDeclaredVariables(fn).filter((v) => v.name === fn.id!.name);
    else if (parent?.type === AST_NODE_TYPES.VariableDeclarator) variables = this.sourceCode.getDeclaredVariables(parent);
    const out: Node[] = [];
    for (const variable of variables) {
      for (const ref of variable.references) {
        const call = ref.identifier.parent;
        if (call?.type === AST_NODE_TYPES.CallExpression && call.callee === ref.identifier) out.push(call);
      }
    }
    if ((parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.PropertyDefinition || parent?.type === AST_NODE_TYPES.Property) && parent.parent) {
      const container = parent.parent.type === AST_NODE_TYPES.ClassBody || parent.parent.type === AST_NODE_TYPES.ObjectExpression ? parent.parent : undefined;
      const name = functionName(fn);
      if (container && name) out.push(...(this.thisMembers(container).calls.get(name) ?? []));
    }
    return out;
  }

  /** The same-file function a call or `new` runs: declarations, bound arrows, `this.method`, class constructors. */
  calleeOf(call: TSESTree.CallExpression | TSESTree.NewExpression): FunctionNode | undefined {
    const callee = unwrap(call.callee);
    if (callee.type === AST_NODE_TYPES.Identifier) {
      const variable = ASTUtils.findVariable(this.sourceCode.getScope(callee), callee.name);
      const def = variable?.defs[0];
      if (!def) return undefined;
      if (def.type === 'FunctionName' && isFunctionNode(def.node)) return def.node;
      if (def.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init) {
        const init = unwrap(def.node.init);
        return isFunctionNode(init) ? init : undefined;
      }
      if (def.type === 'ClassName' && call.type === AST_NODE_TYPES.NewExpression) {
        const cls = def.node as TSESTree.ClassDeclaration | TSESTree.ClassExpression;
        const ctor = cls.body.body.find((m) => m.type === AST_NODE_TYPES.MethodDefinition && m.kind === 'constructor') as TSESTree.MethodDefinition | undefined;
        return ctor && isFunctionNode(ctor.value) ? ctor.value : undefined;
      }
      return undefined;
    }
    if (callee.type === AST_NODE_TYPES.MemberExpression && unwrap(callee.object).type === AST_NODE_TYPES.ThisExpression) {
      const name = thisMemberName(callee);
      const container = thisContainer(call);
      if (!name || !container) return undefined;
      const members = container.type === AST_NODE_TYPES.ClassBody ? container.body : container.properties;
      for (const member of members) {
        if (member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition && member.type !== AST_NODE_TYPES.Property) continue;
        const key = member.key.type === AST_NODE_TYPES.PrivateIdentifier ? `#${member.key.name}` : propertyKeyName(member);
        if (key === name && member.value && isFunctionNode(member.value)) return member.value;
      }
    }
    return undefined;
  }

  private intoParameter(call: TSESTree.CallExpression | TSESTree.NewExpression, arg: Node, visit: (place: ValuePlace) => boolean | void): Node[] {
    const index = call.arguments.indexOf(arg as TSESTree.CallExpressionArgument);
    if (index < 0 || call.arguments.slice(0, index).some((a) => a.type === AST_NODE_TYPES.SpreadElement)) return [];
    const fn = this.calleeOf(call);
    const param = fn?.params[index];
    if (!fn || !param) return [];
    let target: Node = param.type === AST_NODE_TYPES.TSParameterProperty ? param.parameter : param;
    if (target.type === AST_NODE_TYPES.AssignmentPattern) target = target.left;
    if (target.type !== AST_NODE_TYPES.Identifier) return [];
    if (visit({ kind: 'parameter', node: arg, name: target.name, fn })) return [];
    const variables = this.sourceCode.getDeclaredVariables(fn).filter((v) => v.name === (target as TSESTree.Identifier).name);
    return this.readsOf(variables, target, 0);
  }

  /** If `value` is bound to a `$n` of a SQL call, one place per column that `$n` is assigned to or compared with. */
  private visitSql(value: Node, visit: (place: ValuePlace) => boolean | void): void {
    if (!this.writesSql) return;
    for (const callNode of sqlCallsHolding(value, this.sourceCode)) {
      if (!mayBeSql(callNode)) continue;
      const call = readSqlCall(callNode, this.sourceCode);
      if (!call) continue;
      for (const statement of call.source.analysis.statements) {
        const uses = [...statement.assignments, ...(statement.insertedValues ?? []), ...statement.conditions];
        const seen = new Set<string>();
        for (const use of uses) {
          if (seen.has(use.column) || !use.value.params.some((n) => call.param(n) === value)) continue;
          seen.add(use.column);
          visit({ kind: 'sql', node: value, column: use.column.split('.').pop() ?? use.column, table: statement.table, call });
        }
      }
    }
  }
}

/** A string literal, a template, or a concatenation holding one: `+` with it builds text. */
function isStringy(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal) return typeof n.value === 'string';
  if (n.type === AST_NODE_TYPES.TemplateLiteral) return true;
  return n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+' && (isStringy(n.left) || isStringy(n.right));
}

const STORE_SET = /^(?:set|setex|psetex|hset|hsetnx|hmset|put|setItem|getset)$/i;

/**
 * The slot a call argument fills: the string argument just before it (`hset(k, 'fenceToken', v)`),
 * or, for a store's set, the token word in the key (`set(\`fence:${k}\`, v)`).
 */
function fieldName(call: TSESTree.CallExpression, arg: Node): string | undefined {
  const index = call.arguments.indexOf(arg as TSESTree.CallExpressionArgument);
  if (index < 1) return undefined;
  const before = call.arguments[index - 1];
  const name = before.type === AST_NODE_TYPES.Literal && typeof before.value === 'string' ? before.value : undefined;
  if (name && /^[A-Za-z_:#-][\w:#-]*$/.test(name) && index >= 2) return name;
  if (!STORE_SET.test(calleeName(call) ?? '')) return undefined;
  const key = call.arguments[0];
  const text = key.type === AST_NODE_TYPES.Literal && typeof key.value === 'string' ? key.value : key.type === AST_NODE_TYPES.TemplateLiteral ? key.quasis.map((q) => q.value.raw).join(' ') : undefined;
  return text?.match(/fenc[a-z_]*(?:token)?/i)?.[0];
}

function dottedCallee(callee: Node): string | undefined {
  const n = unwrap(callee);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name;
  if (n.type === AST_NODE_TYPES.MemberExpression && n.object.type === AST_NODE_TYPES.Identifier) {
    const name = memberName(n);
    return name ? `${n.object.name}.${name}` : undefined;
  }
  return undefined;
}

/** Calls or tagged templates that may bind `value` to a `$n`: as a template hole, a values-array element, a named or positional argument. */
function sqlCallsHolding(value: Node, sourceCode: SourceCode): Array<TSESTree.CallExpression | TSESTree.TaggedTemplateExpression> {
  const p = value.parent;
  if (!p) return [];
  if (p.type === AST_NODE_TYPES.TemplateLiteral && p.parent?.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    const tagged = p.parent;
    // A fragment inside an outer sql`...` is read as part of the outer statement.
    const outer = tagged.parent?.type === AST_NODE_TYPES.TemplateLiteral && tagged.parent.parent?.type === AST_NODE_TYPES.TaggedTemplateExpression ? tagged.parent.parent : undefined;
    return outer ? [tagged, outer] : [tagged];
  }
  if (p.type === AST_NODE_TYPES.CallExpression) return p.callee === value ? [] : [p];
  if (p.type === AST_NODE_TYPES.Property && p.parent.type === AST_NODE_TYPES.ObjectExpression) {
    const holder = p.parent.parent;
    return holder?.type === AST_NODE_TYPES.CallExpression ? [holder] : [];
  }
  if (p.type !== AST_NODE_TYPES.ArrayExpression) return [];
  const holder = p.parent;
  if (holder?.type === AST_NODE_TYPES.CallExpression) return [holder];
  if (holder?.type === AST_NODE_TYPES.Property && SQL_VALUES_KEY.test(propertyKeyName(holder) ?? '')) {
    const call = holder.parent.parent;
    return call?.type === AST_NODE_TYPES.CallExpression ? [call] : [];
  }
  // `const params = [...]; await pool.query(sql, params)`.
  if (holder?.type === AST_NODE_TYPES.VariableDeclarator && holder.init === p) {
    const out: TSESTree.CallExpression[] = [];
    for (const variable of sourceCode.getDeclaredVariables(holder)) {
      for (const ref of variable.references) {
        let site: Node | undefined = ref.identifier.parent;
        if (site?.type === AST_NODE_TYPES.Property) site = site.parent?.parent;
        if (site?.type === AST_NODE_TYPES.CallExpression && contains(site, ref.identifier)) out.push(site);
      }
    }
    return out;
  }
  return [];
}
