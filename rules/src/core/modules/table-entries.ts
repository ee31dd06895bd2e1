/**
 * Functions reached through an element of a same-file table of jobs: a loop that takes a lock
 * by one property of an element and calls a function kept in another (`withLock(job.key, () =>
 * job.run())` over `const JOBS = [{ key: 'a', run: runA }, { key: 'b', run: runB }]`) runs each
 * entry's function under that entry's lock. The pair of properties ties the call to the table:
 * the element that names the lock is the one whose function runs, whatever the parameter is called.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { isFunctionNode, memberName, unwrap, type Node } from '../ast.js';

/** `p.run` of `p.run()`, with the object a plain name. */
function calledMember(call: TSESTree.CallExpression): { object: string; property: string } | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression || callee.computed) return undefined;
  const object = unwrap(callee.object);
  const property = memberName(callee);
  return object.type === AST_NODE_TYPES.Identifier && property ? { object: object.name, property } : undefined;
}

/** The properties of `object` that a lock's arguments read as (part of) its key: `job.lockKey`, `` `cron:${job.name}` ``, `[job.key]`. */
function keyProperties(args: readonly Node[], object: string): Set<string> {
  const found = new Set<string>();
  const visit = (node: Node, depth: number): void => {
    if (depth > 4) return;
    const n = unwrap(node);
    if (n.type === AST_NODE_TYPES.MemberExpression && !n.computed) {
      const owner = unwrap(n.object);
      const name = memberName(n);
      if (owner.type === AST_NODE_TYPES.Identifier && owner.name === object && name) found.add(name);
    } else if (n.type === AST_NODE_TYPES.ArrayExpression) {
      for (const element of n.elements) if (element && element.type !== AST_NODE_TYPES.SpreadElement) visit(element, depth + 1);
    } else if (n.type === AST_NODE_TYPES.TemplateLiteral) {
      for (const expression of n.expressions) visit(expression, depth + 1);
    } else if (n.type === AST_NODE_TYPES.BinaryExpression && n.operator === '+') {
      visit(n.left, depth + 1);
      visit(n.right, depth + 1);
    }
  };
  for (const arg of args) if (!isFunctionNode(arg)) visit(arg, 0);
  return found;
}

/** A plain key's name: `run` of `run: f` and `'run': f`. */
function keyName(property: TSESTree.Property): string | undefined {
  if (property.computed) return undefined;
  if (property.key.type === AST_NODE_TYPES.Identifier) return property.key.name;
  return property.key.type === AST_NODE_TYPES.Literal && typeof property.key.value === 'string' ? property.key.value : undefined;
}

/** Per program: the tables are read once however many calls ask. */
const tablesOf = new WeakMap<TSESTree.Program, TSESTree.ObjectExpression[][]>();

/** The array literals of object literals the module binds to a name at its top level (`const JOBS: Job[] = [...]`). */
function moduleTables(program: TSESTree.Program): TSESTree.ObjectExpression[][] {
  const known = tablesOf.get(program);
  if (known) return known;
  const tables: TSESTree.ObjectExpression[][] = [];
  tablesOf.set(program, tables);
  for (const statement of program.body) {
    const declaration = statement.type === AST_NODE_TYPES.ExportNamedDeclaration ? statement.declaration : statement;
    if (declaration?.type !== AST_NODE_TYPES.VariableDeclaration) continue;
    for (const declarator of declaration.declarations) {
      const init = declarator.init && unwrap(declarator.init);
      if (init?.type !== AST_NODE_TYPES.ArrayExpression || init.elements.length === 0) continue;
      const rows = init.elements.map((element) => (element ? unwrap(element) : undefined));
      if (rows.every((row): row is TSESTree.ObjectExpression => row?.type === AST_NODE_TYPES.ObjectExpression)) tables.push(rows);
    }
  }
  return tables;
}

/**
 * The values the tables of the module keep in the property `call` runs (`runA`, `() => svc.sweep()`),
 * when `call` is `p.m()` in a section whose lock `lockArgs` take by another property of `p` and
 * every row of such a table has both properties. Empty when nothing ties the call to a table.
 */
export function tableEntryFunctions(call: TSESTree.CallExpression, lockArgs: readonly Node[], program: TSESTree.Program): Node[] {
  const member = calledMember(call);
  if (!member) return [];
  const keys = keyProperties(lockArgs, member.object);
  keys.delete(member.property);
  if (keys.size === 0) return [];
  const values: Node[] = [];
  for (const rows of moduleTables(program)) {
    const named = rows.map((row) => new Map(row.properties.flatMap((p) => (p.type === AST_NODE_TYPES.Property && keyName(p) ? [[keyName(p)!, p.value as Node]] : []))));
    const tied = named.every((row) => row.has(member.property) && [...keys].some((key) => row.has(key)));
    if (tied) for (const row of named) values.push(row.get(member.property)!);
  }
  return values;
}

/** The call an entry's function makes when it only forwards to one (`() => svc.sweep()`, `async () => { await svc.sweep(); }`). */
export function forwardedCall(value: Node): TSESTree.CallExpression | undefined {
  const fn = unwrap(value);
  if (fn.type !== AST_NODE_TYPES.ArrowFunctionExpression && fn.type !== AST_NODE_TYPES.FunctionExpression) return undefined;
  let body: Node = fn.body;
  if (body.type === AST_NODE_TYPES.BlockStatement) {
    if (body.body.length !== 1) return undefined;
    const only = body.body[0];
    if (only.type === AST_NODE_TYPES.ExpressionStatement) body = only.expression;
    else if (only.type === AST_NODE_TYPES.ReturnStatement && only.argument) body = only.argument;
    else return undefined;
  }
  const inner = unwrap(body);
  return inner.type === AST_NODE_TYPES.CallExpression ? inner : undefined;
}
