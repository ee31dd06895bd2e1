/**
 * In-memory counters: an increment (`++n`, `this.n += 1`, `n = n + 1`, `(m.get(k) ?? 0) + 1`,
 * `o[k]++`) of state that outlives one call but lives only in this process: a module-level
 * `let`, a closure variable, a class field, or an entry of a module-level or instance Map or
 * object. Such a counter starts again after every restart unless something loads it: any
 * write of a value that is not a literal or the counter itself plus a step (a store read, an
 * injected start value) counts as loading it.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { Scope, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, contains, enclosingFunction, memberName, propertyKeyName, unwrap, type Node } from '../ast.js';
import { thisContainer, thisMemberName, type PlaceReach, type ValueFlow, type ValuePlace } from '../tokens/value-flow.js';
import { GLOBAL_CLOCK_CALLS, VALUE_KEEPING_FUNCTIONS, VALUE_KEEPING_METHODS } from '../models/clock-sources.js';

export interface MemoryCounter {
  /** The increment expression, where findings are reported. */
  node: Node;
  /** How messages name the counter: `lastToken`, `this.#epoch`, `this.tokens` entries. */
  label: string;
  /** The counter's own name (variable, member, or the Map/object holding the entries). */
  name: string;
  kind: 'module' | 'closure' | 'instance' | 'entry';
  /** Whether the increment's own value is used (`const t = ++n`), not just its effect. */
  valueUsed: boolean;
  /** Other reads of the counter that carry its value (`return { token: this.n }`). */
  reads: Node[];
  /** Written from something other than a literal or itself plus a step: loaded from a store or injected. */
  loaded: boolean;
  /** Same for every increment of the same counter, so its reads are followed once. */
  identity: string;
}

export type Increment = TSESTree.UpdateExpression | TSESTree.AssignmentExpression | TSESTree.BinaryExpression;

function isNumberLiteral(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Literal) return typeof n.value === 'number' || typeof n.value === 'bigint';
  return n.type === AST_NODE_TYPES.UnaryExpression && n.operator === '-' && isNumberLiteral(n.argument);
}

/** `(x ?? 0)`, `(x || 0)`, `Number(x)`: the x inside. */
function stripDefault(node: Node): Node {
  let n = unwrap(node);
  for (let i = 0; i < 3; i++) {
    if (n.type === AST_NODE_TYPES.LogicalExpression && (n.operator === '??' || n.operator === '||') && isNumberLiteral(n.right)) n = unwrap(n.left);
    else if (n.type === AST_NODE_TYPES.CallExpression && /^(?:Number|BigInt)$/.test(calleeName(n) ?? '') && n.arguments[0]) n = unwrap(n.arguments[0]);
    else break;
  }
  return n;
}

/**
 * A start value read from the clock (`let next = Date.now()`, `process.hrtime.bigint()`): it
 * loads nothing, and a restart after a clock step back repeats the tokens handed out before.
 */
function isClockSeed(node: Node): boolean {
  let n = unwrap(node);
  for (let i = 0; i < 4; i++) {
    if ((n.type === AST_NODE_TYPES.CallExpression || n.type === AST_NODE_TYPES.NewExpression) && VALUE_KEEPING_FUNCTIONS.has(dottedName(n.callee) ?? '') && n.arguments[0]) n = unwrap(n.arguments[0]);
    else if (n.type === AST_NODE_TYPES.CallExpression && n.callee.type === AST_NODE_TYPES.MemberExpression && VALUE_KEEPING_METHODS.has(memberName(n.callee) ?? '')) n = unwrap(n.callee.object);
    else break;
  }
  if (n.type === AST_NODE_TYPES.NewExpression) return dottedName(n.callee) === 'Date' && n.arguments.length === 0;
  if (n.type !== AST_NODE_TYPES.CallExpression) return false;
  const source = GLOBAL_CLOCK_CALLS.get(dottedName(n.callee) ?? '');
  return source?.kind === 'clock' && (!source.noArgs || n.arguments.length === 0);
}

function dottedName(node: Node): string | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name;
  if (n.type === AST_NODE_TYPES.MemberExpression && !n.computed && n.property.type === AST_NODE_TYPES.Identifier) {
    const object = dottedName(n.object);
    return object && `${object}.${n.property.name}`;
  }
  return undefined;
}

/** A write that keeps the counter in memory: a literal, nothing, a clock seed, or the counter itself plus a step. */
function isMemoryWrite(value: Node | null | undefined, sameTarget: (n: Node) => boolean, sourceCode?: SourceCode): boolean {
  if (!value) return true;
  const n = unwrap(value);
  if (isNumberLiteral(n) || isClockSeed(n)) return true;
  // `const next = this.last + 1; ...; this.last = next`
  if (n.type === AST_NODE_TYPES.Identifier && sourceCode) {
    const def = variableOf(n, sourceCode)?.defs[0];
    return def?.node.type === AST_NODE_TYPES.VariableDeclarator && !!def.node.init && isMemoryWrite(def.node.init, sameTarget);
  }
  if (n.type === AST_NODE_TYPES.BinaryExpression && (n.operator === '+' || n.operator === '-')) {
    return (sameTarget(stripDefault(n.left)) && isNumberLiteral(n.right)) || (sameTarget(stripDefault(n.right)) && isNumberLiteral(n.left));
  }
  if (n.type === AST_NODE_TYPES.UpdateExpression) return sameTarget(n.argument);
  // A Map or object created empty: `new Map()`, `{}`.
  if (n.type === AST_NODE_TYPES.NewExpression && n.arguments.length === 0) return true;
  if (n.type === AST_NODE_TYPES.ObjectExpression && n.properties.length === 0) return true;
  if (n.type === AST_NODE_TYPES.CallExpression && calleeName(n) === 'create' && n.arguments.length === 1 && unwrap(n.arguments[0]).type === AST_NODE_TYPES.Literal) return true;
  return false;
}

/** The counter target an increment changes, and the step's shape. */
function incrementTarget(node: Increment, sourceCode: SourceCode): { target: Node; entry: boolean } | undefined {
  if (node.type === AST_NODE_TYPES.UpdateExpression) {
    if (node.operator !== '++') return undefined;
    const target = unwrap(node.argument);
    return { target, entry: target.type === AST_NODE_TYPES.MemberExpression && target.computed };
  }
  if (node.type === AST_NODE_TYPES.AssignmentExpression) {
    const target = node.left;
    if (target.type === AST_NODE_TYPES.MemberExpression && target.computed) return undefined; // the `+ 1` BinaryExpression reports it
    if (node.operator === '+=') return isNumberLiteral(node.right) ? { target, entry: false } : undefined;
    if (node.operator !== '=' || node.right.type !== AST_NODE_TYPES.BinaryExpression || node.right.operator !== '+') return undefined;
    const same = (n: Node) => sourceCode.getText(n) === sourceCode.getText(target);
    const { left, right } = node.right;
    const steps = (same(stripDefault(left)) && isNumberLiteral(right)) || (same(stripDefault(right)) && isNumberLiteral(left));
    return steps ? { target, entry: false } : undefined;
  }
  if (node.operator !== '+') return undefined;
  const other = isNumberLiteral(node.right) ? node.left : isNumberLiteral(node.left) ? node.right : undefined;
  if (!other) return undefined;
  const inner = stripDefault(other);
  // `(map.get(k) ?? 0) + 1`
  if (inner.type === AST_NODE_TYPES.CallExpression && calleeName(inner) === 'get' && inner.arguments.length === 1) {
    const callee = unwrap(inner.callee);
    if (callee.type === AST_NODE_TYPES.MemberExpression) return { target: inner, entry: true };
  }
  // `(counts[k] ?? 0) + 1`
  if (inner.type === AST_NODE_TYPES.MemberExpression && inner.computed) return { target: inner, entry: true };
  // `const next = this.last + 1; ...; this.last = next`: the step and the store are two statements.
  const declarator = node.parent;
  if ((inner.type === AST_NODE_TYPES.Identifier || inner.type === AST_NODE_TYPES.MemberExpression) && declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.init === node) {
    const text = sourceCode.getText(inner);
    const storedBack = sourceCode.getDeclaredVariables(declarator).some((v) =>
      v.references.some((r) => {
        const p = r.identifier.parent;
        return p?.type === AST_NODE_TYPES.AssignmentExpression && p.right === r.identifier && sourceCode.getText(p.left) === text;
      }),
    );
    if (storedBack) return { target: inner, entry: false };
  }
  return undefined;
}

function variableOf(id: TSESTree.Identifier, sourceCode: SourceCode): Scope.Variable | undefined {
  return ASTUtils.findVariable(sourceCode.getScope(id), id.name) ?? undefined;
}

/** Where a variable lives relative to `at`: module state, a closure of an outer function, or a local. */
function lifetime(variable: Scope.Variable, at: Node): 'module' | 'closure' | 'local' | undefined {
  const def = variable.defs[0];
  if (!def || def.type !== 'Variable') return undefined;
  const scope = variable.scope.variableScope;
  if (scope.type === 'module' || scope.type === 'global') return 'module';
  return enclosingFunction(at) !== scope.block ? 'closure' : 'local';
}

function isValueUsed(node: Node): boolean {
  const p = node.parent;
  if (!p) return false;
  if (p.type === AST_NODE_TYPES.ExpressionStatement) return false;
  if (p.type === AST_NODE_TYPES.ForStatement && p.update === node) return false;
  if (p.type === AST_NODE_TYPES.SequenceExpression && p.expressions[p.expressions.length - 1] !== node) return false;
  return true;
}

/** Reads of a variable that carry its value, outside the increment itself and outside writes to it. */
function variableReads(variable: Scope.Variable, increment: Node): Node[] {
  return variable.references
    .filter((ref) => ref.isRead() && !ref.isWrite() && !contains(increment, ref.identifier))
    .filter((ref) => !isSelfStep(ref.identifier))
    .map((ref) => ref.identifier);
}

/** `x` inside `x = x + 1`: part of an increment, not a use of the value. */
function isSelfStep(read: Node): boolean {
  let cur: Node = read;
  for (let i = 0; i < 4 && cur.parent; i++) {
    const p: Node = cur.parent;
    if (p.type === AST_NODE_TYPES.AssignmentExpression && p.right === cur) return true;
    if (p.type !== AST_NODE_TYPES.BinaryExpression && p.type !== AST_NODE_TYPES.LogicalExpression && p.type !== AST_NODE_TYPES.CallExpression) return false;
    cur = p;
  }
  return false;
}

/** The in-memory counter an increment advances, or undefined (locals, parameters, stores, unknown shapes). */
export function memoryCounterAt(node: Increment, sourceCode: SourceCode, flow: ValueFlow): MemoryCounter | undefined {
  const found = incrementTarget(node, sourceCode);
  if (!found) return undefined;
  const { target, entry } = found;
  const valueUsed = isValueUsed(node);

  if (entry) return entryCounter(node, target, valueUsed, sourceCode, flow);

  if (target.type === AST_NODE_TYPES.Identifier) {
    const variable = variableOf(target, sourceCode);
    if (!variable) return undefined;
    const life = lifetime(variable, node);
    if (life === 'local') return localEntryCopy(node, variable, valueUsed, sourceCode, flow);
    if (life !== 'module' && life !== 'closure') return undefined;
    const same = (n: Node) => n.type === AST_NODE_TYPES.Identifier && n.name === target.name;
    const loaded = variable.references.some((ref) => {
      if (!ref.isWrite()) return false;
      const p = ref.identifier.parent;
      if (p?.type === AST_NODE_TYPES.VariableDeclarator) return !isMemoryWrite(p.init, same);
      if (p?.type === AST_NODE_TYPES.AssignmentExpression && p.left === ref.identifier) return p.operator === '=' && !isMemoryWrite(p.right, same, sourceCode);
      return p?.type !== AST_NODE_TYPES.UpdateExpression && p?.type !== AST_NODE_TYPES.AssignmentExpression;
    });
    return { node, label: target.name, name: target.name, kind: life, valueUsed, reads: variableReads(variable, node), loaded, identity: `v:${variable.defs[0].name.range[0]}` };
  }

  if (target.type !== AST_NODE_TYPES.MemberExpression) return undefined;
  const name = thisMemberName(target);
  if (!name) return undefined;
  const object = unwrap(target.object);
  if (object.type === AST_NODE_TYPES.ThisExpression) {
    const container = thisContainer(node);
    if (!container) return undefined;
    const members = flow.thisMembers(container);
    const same = (n: Node) => n.type === AST_NODE_TYPES.MemberExpression && unwrap(n.object).type === AST_NODE_TYPES.ThisExpression && thisMemberName(n) === name;
    const loaded = members.bulkAssigned || !fieldStartsInMemory(container, name, same) || (members.writes.get(name) ?? []).some((w) => !isMemoryWrite(w.right, same, sourceCode));
    const reads = (members.reads.get(name) ?? []).filter((r) => !contains(node, r) && !isWriteTarget(r) && !isSelfStep(r));
    return { node, label: `this.${name}`, name: name.replace(/^#/, ''), kind: 'instance', valueUsed, reads, loaded, identity: `i:${container.range[0]}:${name}` };
  }
  // `this.state.token++` on a state object a class field starts as a literal.
  if (object.type === AST_NODE_TYPES.MemberExpression && unwrap(object.object).type === AST_NODE_TYPES.ThisExpression) {
    const container = thisContainer(node);
    const holder = thisMemberName(object);
    if (!container || !holder || container.type !== AST_NODE_TYPES.ClassBody) return undefined;
    const field = container.body.find((m): m is TSESTree.PropertyDefinition => m.type === AST_NODE_TYPES.PropertyDefinition && !m.static && (m.key.type === AST_NODE_TYPES.PrivateIdentifier ? `#${m.key.name}` : propertyKeyName(m)) === holder);
    const init = field?.value && unwrap(field.value);
    if (init?.type !== AST_NODE_TYPES.ObjectExpression) return undefined;
    const prop = init.properties.find((p): p is TSESTree.Property => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name);
    const members = flow.thisMembers(container);
    const text = sourceCode.getText(target);
    const same = (n: Node) => n.type === AST_NODE_TYPES.MemberExpression && sourceCode.getText(n) === text;
    const inner = (members.reads.get(holder) ?? []).map((r) => r.parent).filter((m): m is TSESTree.MemberExpression => m?.type === AST_NODE_TYPES.MemberExpression && memberName(m) === name);
    // The whole state replaced (`this.state = loaded`) or the field assigned from elsewhere loads it.
    const loaded =
      members.bulkAssigned ||
      !isMemoryWrite(prop?.value, same) ||
      (members.writes.get(holder) ?? []).length > 0 ||
      inner.some((m) => m.parent?.type === AST_NODE_TYPES.AssignmentExpression && m.parent.left === m && m.parent.operator === '=' && !isMemoryWrite(m.parent.right, same, sourceCode));
    const reads = inner.filter((m) => !contains(node, m) && !isWriteTarget(m) && !isSelfStep(m));
    return { node, label: `this.${holder}.${name}`, name, kind: 'instance', valueUsed, reads, loaded, identity: `s:${container.range[0]}:${holder}.${name}` };
  }
  // `state.token++` on a module-level object literal; `LeaseManager.seq++` on a static field.
  if (object.type === AST_NODE_TYPES.Identifier) {
    const variable = variableOf(object, sourceCode);
    const def = variable?.defs[0];
    if (!variable || !def) return undefined;
    let initial: Node | null | undefined;
    if (def.type === 'ClassName') {
      const cls = def.node as TSESTree.ClassDeclaration;
      // `static #counter = 0` is read as `Issuer.#counter`.
      const field = cls.body.body.find((m) => m.type === AST_NODE_TYPES.PropertyDefinition && m.static && (m.key.type === AST_NODE_TYPES.PrivateIdentifier ? `#${m.key.name}` : propertyKeyName(m)) === name) as TSESTree.PropertyDefinition | undefined;
      if (!field) return undefined;
      initial = field.value;
    } else {
      if (def.node.type !== AST_NODE_TYPES.VariableDeclarator || !def.node.init || unwrap(def.node.init).type !== AST_NODE_TYPES.ObjectExpression) return undefined;
      const life = lifetime(variable, node);
      if (life !== 'module' && life !== 'closure') return undefined;
      const init = unwrap(def.node.init) as TSESTree.ObjectExpression;
      const prop = init.properties.find((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name) as TSESTree.Property | undefined;
      initial = prop?.value;
    }
    const same = (n: Node) => n.type === AST_NODE_TYPES.MemberExpression && sourceCode.getText(n) === sourceCode.getText(target);
    const members = variable.references.map((ref) => ref.identifier.parent).filter((p): p is TSESTree.MemberExpression => p?.type === AST_NODE_TYPES.MemberExpression && memberName(p) === name);
    const loaded =
      !isMemoryWrite(initial, same) ||
      members.some((m) => m.parent?.type === AST_NODE_TYPES.AssignmentExpression && m.parent.left === m && m.parent.operator === '=' && !isMemoryWrite(m.parent.right, same, sourceCode));
    const reads = members.filter((m) => !contains(node, m) && !isWriteTarget(m) && !isSelfStep(m));
    return { node, label: `${object.name}.${name}`, name, kind: def.type === 'ClassName' ? 'instance' : lifetime(variable, node) === 'closure' ? 'closure' : 'module', valueUsed, reads, loaded, identity: `o:${def.name.range[0]}:${name}` };
  }
  return undefined;
}

function isWriteTarget(member: Node): boolean {
  const p = member.parent;
  return (p?.type === AST_NODE_TYPES.AssignmentExpression && p.left === member) || p?.type === AST_NODE_TYPES.UpdateExpression;
}

/** A class field or object-literal property declared with a literal (or not at all), not injected through the constructor. */
function fieldStartsInMemory(container: TSESTree.ClassBody | TSESTree.ObjectExpression, name: string, same: (n: Node) => boolean): boolean {
  if (container.type === AST_NODE_TYPES.ObjectExpression) {
    const prop = container.properties.find((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === name) as TSESTree.Property | undefined;
    return !prop || isMemoryWrite(prop.value, same);
  }
  for (const member of container.body) {
    if (member.type === AST_NODE_TYPES.PropertyDefinition) {
      const key = member.key.type === AST_NODE_TYPES.PrivateIdentifier ? `#${member.key.name}` : propertyKeyName(member);
      if (key === name) return isMemoryWrite(member.value, same);
    }
    if (member.type === AST_NODE_TYPES.MethodDefinition && member.kind === 'constructor') {
      // `constructor(private counter = 0)`: the start value is injected, maybe from a store.
      const injected = member.value.params.some((p) => p.type === AST_NODE_TYPES.TSParameterProperty && ((p.parameter.type === AST_NODE_TYPES.Identifier && p.parameter.name === name) || (p.parameter.type === AST_NODE_TYPES.AssignmentPattern && p.parameter.left.type === AST_NODE_TYPES.Identifier && p.parameter.left.name === name)));
      if (injected) return false;
    }
  }
  return true;
}

/** `(tokens.get(k) ?? 0) + 1` / `counts[k]++` on an in-memory Map or object. */
/** `let t = this.tokens.get(k) ?? 0; t++; this.tokens.set(k, t)`: a local copy of an in-memory entry. */
function localEntryCopy(node: Increment, variable: Scope.Variable, valueUsed: boolean, sourceCode: SourceCode, flow: ValueFlow): MemoryCounter | undefined {
  const def = variable.defs[0];
  if (def.node.type !== AST_NODE_TYPES.VariableDeclarator || !def.node.init) return undefined;
  const source = stripDefault(def.node.init);
  const isEntry =
    (source.type === AST_NODE_TYPES.CallExpression && calleeName(source) === 'get' && unwrap(source.callee).type === AST_NODE_TYPES.MemberExpression) ||
    (source.type === AST_NODE_TYPES.MemberExpression && source.computed);
  if (!isEntry) return undefined;
  const copies = new Set<Node>(variable.references.filter((r) => r.isRead()).map((r) => r.identifier));
  const counter = entryCounter(node, source, valueUsed, sourceCode, flow, copies);
  if (!counter) return undefined;
  const reads = variable.references.filter((r) => r.isRead() && !r.isWrite() && !contains(node, r.identifier)).map((r) => r.identifier);
  return { ...counter, reads: [...reads, ...counter.reads], identity: `${counter.identity}:${variable.name}` };
}

function entryCounter(node: Increment, target: Node, valueUsed: boolean, sourceCode: SourceCode, flow: ValueFlow, copies: ReadonlySet<Node> = new Set()): MemoryCounter | undefined {
  const container =
    target.type === AST_NODE_TYPES.CallExpression
      ? unwrap((unwrap(target.callee) as TSESTree.MemberExpression).object)
      : target.type === AST_NODE_TYPES.MemberExpression
        ? unwrap(target.object)
        : undefined;
  if (!container) return undefined;
  const isEntryRead = (n: Node | undefined): boolean => {
    if (!n) return false;
    if (n.type === AST_NODE_TYPES.MemberExpression && n.computed) return sourceCode.getText(n.object) === sourceCode.getText(container);
    const p = n.parent;
    return p?.type === AST_NODE_TYPES.MemberExpression && p.object === n && memberName(p) === 'get' && p.parent?.type === AST_NODE_TYPES.CallExpression;
  };
  // Containers: the references to it (a variable) or this.<name> reads (a field).
  let refs: Node[];
  let label: string;
  let name: string;
  let kind: MemoryCounter['kind'];
  let loaded = false;
  const same = (n: Node) => n === target || (n.type === AST_NODE_TYPES.CallExpression && isEntryRead(unwrap(n.callee).type === AST_NODE_TYPES.MemberExpression ? (unwrap(n.callee) as TSESTree.MemberExpression).object : n)) || isEntryRead(n);
  if (container.type === AST_NODE_TYPES.Identifier) {
    const variable = variableOf(container, sourceCode);
    if (!variable) return undefined;
    const life = lifetime(variable, node);
    if (life !== 'module' && life !== 'closure') return undefined;
    const def = variable.defs[0];
    if (def.node.type !== AST_NODE_TYPES.VariableDeclarator || !isMemoryWrite(def.node.init, same)) return undefined;
    refs = variable.references.filter((r) => r.isRead()).map((r) => r.identifier);
    loaded = variable.references.some((r) => r.isWrite() && r.identifier.parent?.type === AST_NODE_TYPES.AssignmentExpression && !isMemoryWrite((r.identifier.parent as TSESTree.AssignmentExpression).right, same));
    label = container.name;
    name = container.name;
    kind = 'entry';
  } else if (container.type === AST_NODE_TYPES.MemberExpression && unwrap(container.object).type === AST_NODE_TYPES.ThisExpression) {
    const holder = thisContainer(node);
    const field = thisMemberName(container);
    if (!holder || !field) return undefined;
    const members = flow.thisMembers(holder);
    if (!fieldStartsInMemory(holder, field, same) || members.bulkAssigned) return undefined;
    loaded = (members.writes.get(field) ?? []).some((w) => !isMemoryWrite(w.right, same));
    refs = members.reads.get(field) ?? [];
    label = `this.${field}`;
    name = field.replace(/^#/, '');
    kind = 'entry';
  } else {
    return undefined;
  }
  // A `set` of anything but the incremented value loads the entry from elsewhere.
  const incremented = new Set<Node>([node, ...copies]);
  if (node.parent?.type === AST_NODE_TYPES.VariableDeclarator && node.parent.id.type === AST_NODE_TYPES.Identifier) {
    for (const v of sourceCode.getDeclaredVariables(node.parent)) for (const r of v.references) if (r.isRead()) incremented.add(r.identifier);
  }
  const reads: Node[] = [];
  for (const ref of refs) {
    const member = ref.parent;
    if (member?.type !== AST_NODE_TYPES.MemberExpression || member.object !== ref) continue;
    const call = member.parent;
    if (memberName(member) === 'set' && call?.type === AST_NODE_TYPES.CallExpression && call.callee === member) {
      const value = call.arguments[1];
      if (value && !incremented.has(unwrap(value)) && !contains(value, node) && !isMemoryWrite(value, same)) loaded = true;
    } else if (memberName(member) === 'get' && call?.type === AST_NODE_TYPES.CallExpression && call.callee === member && !contains(node, call)) {
      reads.push(call);
    } else if (member.computed && !contains(node, member) && !isWriteTarget(member) && !isSelfStep(member)) {
      reads.push(member);
    }
  }
  return { node, label, name, kind, valueUsed, reads, loaded, identity: `e:${container.range[0]}:${label}` };
}

/**
 * Where an in-memory counter's value becomes a fence token, if it does: a counter named for
 * fencing is one by name; otherwise its value (the increment's, or a later read) must reach
 * a token place other than a plain local binding (`const gen = ++this.gen` compared in the same
 * process is a staleness guard, not a token handed out).
 */
export function counterTokenPlace(
  counter: MemoryCounter,
  flow: ValueFlow,
  isToken: (place: ValuePlace, reach: PlaceReach) => boolean,
  isFenceName: (name: string) => boolean,
  readsMemo: Map<string, ValuePlace | undefined>,
): ValuePlace | 'name' | undefined {
  if (isFenceName(counter.name)) return 'name';
  const search = (starts: readonly Node[]): ValuePlace | undefined => {
    let found: ValuePlace | undefined;
    for (const start of starts) {
      flow.follow(start, (place, reach) => {
        if (found) return true;
        if (place.kind === 'binding' && !isFenceName(place.name)) return false;
        // Stored back into the counter itself: that is the increment, not a hand-out.
        if (place.kind === 'member' && unwrap(place.object).type === AST_NODE_TYPES.ThisExpression && `this.${place.name}` === counter.label) return false;
        if (!isToken(place, reach)) return false;
        // `const gen = ++this.gen; await ...; if (gen !== this.gen) return;`: a staleness guard
        // that never leaves the process, whatever the variable is called.
        if (comparedOnlyWithCounter(place, counter, flow)) return true;
        found = place;
        return true;
      });
      if (found) break;
    }
    return found;
  };
  if (counter.valueUsed) {
    const own = search([counter.node]);
    if (own) return own;
  }
  if (!readsMemo.has(counter.identity)) readsMemo.set(counter.identity, search(counter.reads.slice(0, MAX_READS)));
  return readsMemo.get(counter.identity);
}

/** A read of the counter itself: `this.gen` for an instance counter, the variable for module and closure counters. */
function readsCounter(node: Node, counter: MemoryCounter): boolean {
  const n = unwrap(node);
  if (counter.kind === 'instance' && n.type === AST_NODE_TYPES.MemberExpression && unwrap(n.object).type === AST_NODE_TYPES.ThisExpression) return `this.${thisMemberName(n)}` === counter.label;
  if (counter.kind === 'module' || counter.kind === 'closure') return n.type === AST_NODE_TYPES.Identifier && n.name === counter.label;
  return false;
}

const COMPARISON = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=']);

/**
 * Whether a binding or parameter holding the counter's value is only compared with the
 * counter again, directly or after being passed to same-file functions that do the same:
 * an in-process generation check that drops stale callbacks, not a token sent to a resource.
 */
function comparedOnlyWithCounter(place: ValuePlace, counter: MemoryCounter, flow: ValueFlow, depth = 0, seen = new Set<Scope.Variable>()): boolean {
  if (depth > 4 || counter.kind === 'entry') return false;
  const sourceCode = flow.sourceCodeOf();
  let variables: Scope.Variable[] = [];
  if (place.kind === 'binding' && place.node.type === AST_NODE_TYPES.VariableDeclarator) variables = [...sourceCode.getDeclaredVariables(place.node)];
  else if (place.kind === 'binding' && place.node.type === AST_NODE_TYPES.AssignmentExpression && place.node.left.type === AST_NODE_TYPES.Identifier) {
    const v = variableOf(place.node.left, sourceCode);
    variables = v ? [v] : [];
  } else if (place.kind === 'parameter') variables = sourceCode.getDeclaredVariables(place.fn).filter((v) => v.name === place.name);
  if (variables.length === 0) return false;
  for (const variable of variables) {
    if (seen.has(variable)) continue;
    seen.add(variable);
    const reads = variable.references.filter((r) => r.isRead());
    if (reads.length === 0) return false;
    for (const ref of reads) {
      let cur: Node = ref.identifier;
      while (cur.parent && (cur.parent.type === AST_NODE_TYPES.TSAsExpression || cur.parent.type === AST_NODE_TYPES.TSNonNullExpression)) cur = cur.parent;
      const p = cur.parent;
      if (p?.type === AST_NODE_TYPES.BinaryExpression && COMPARISON.has(p.operator)) {
        if (!readsCounter(p.left === cur ? p.right : p.left, counter)) return false;
        continue;
      }
      if ((p?.type === AST_NODE_TYPES.CallExpression || p?.type === AST_NODE_TYPES.NewExpression) && p.callee !== cur) {
        const fn = flow.calleeOf(p);
        const index = p.arguments.indexOf(cur as TSESTree.CallExpressionArgument);
        let param: Node | undefined = fn?.params[index];
        if (param?.type === AST_NODE_TYPES.TSParameterProperty) param = param.parameter;
        if (param?.type === AST_NODE_TYPES.AssignmentPattern) param = param.left;
        if (!fn || param?.type !== AST_NODE_TYPES.Identifier) return false;
        if (!comparedOnlyWithCounter({ kind: 'parameter', node: cur, name: param.name, fn }, counter, flow, depth + 1, seen)) return false;
        continue;
      }
      return false;
    }
  }
  return true;
}

/** Reads followed per counter: a tokenizer's `this.pos` is read hundreds of times and is never a token. */
const MAX_READS = 64;
