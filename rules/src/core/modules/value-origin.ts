/**
 * Value origin: is this call a clock or random source (`Date.now()`, `new Date()`,
 * `performance.now()`, `randomUUID()`, uuid v4 through its import, ...)? Globals count only
 * when no local binding shadows them; package functions only through their imports.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { memberName, staticString, unwrap, type Node } from '../ast.js';
import {
  GLOBAL_CLOCK_CALLS,
  GLOBAL_CLOCK_ROOTS,
  GLOBAL_OBJECTS,
  PACKAGE_CLOCK_SOURCES,
  SQL_CLOCK_FUNCTIONS,
  SQL_RANDOM_FUNCTIONS,
  type ClockSource,
  type OriginKind,
} from '../models/clock-sources.js';

export interface ValueOrigin {
  kind: OriginKind;
  /** The source expression (`Date.now()`, `knex.fn.now()`, sql`now()`). */
  node: TSESTree.CallExpression | TSESTree.NewExpression | TSESTree.TaggedTemplateExpression;
  /** How messages name it, e.g. `Date.now()`. */
  text: string;
}

/** `a.b.c` -> { root: a, path: ['b', 'c'] }; undefined for computed or call-rooted callees. */
function dottedPath(callee: Node): { root: TSESTree.Identifier; path: string[] } | undefined {
  const path: string[] = [];
  let current = unwrap(callee);
  while (current.type === AST_NODE_TYPES.MemberExpression) {
    const name = memberName(current);
    if (name === undefined) return undefined;
    path.unshift(name);
    current = unwrap(current.object);
  }
  return current.type === AST_NODE_TYPES.Identifier ? { root: current, path } : undefined;
}

interface ImportOf {
  source: string;
  exported: string;
}

/** The import or `require` a local name is bound to, found through the scope (no file walk). */
function importOf(id: TSESTree.Identifier, sourceCode: SourceCode): ImportOf | 'global' | undefined {
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  if (!variable || variable.defs.length === 0) return 'global';
  const def = variable.defs[0];
  if (def.type === 'ImportBinding') {
    const decl = def.parent as TSESTree.ImportDeclaration;
    const spec = def.node;
    if (spec.type === AST_NODE_TYPES.ImportDefaultSpecifier) return { source: decl.source.value, exported: 'default' };
    if (spec.type === AST_NODE_TYPES.ImportNamespaceSpecifier) return { source: decl.source.value, exported: '*' };
    if (spec.type === AST_NODE_TYPES.ImportSpecifier) {
      const imported = spec.imported.type === AST_NODE_TYPES.Identifier ? spec.imported.name : String(spec.imported.value);
      return { source: decl.source.value, exported: imported };
    }
    return undefined;
  }
  if (def.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init) {
    const required = requireOf(def.node.init);
    if (!required) return undefined;
    if (def.node.id.type === AST_NODE_TYPES.Identifier) return required;
    // `const { v4: uuidv4 } = require('uuid')`
    if (def.node.id.type === AST_NODE_TYPES.ObjectPattern && required.exported === '*') {
      for (const prop of def.node.id.properties) {
        if (prop.type !== AST_NODE_TYPES.Property || prop.key.type !== AST_NODE_TYPES.Identifier) continue;
        const value = prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value;
        if (value === def.name) return { source: required.source, exported: prop.key.name };
      }
    }
  }
  return undefined;
}

/** `require('x')` -> x namespace; `require('x').y` -> export y. */
function requireOf(init: Node): ImportOf | undefined {
  const n = unwrap(init);
  if (n.type === AST_NODE_TYPES.CallExpression) {
    const callee = unwrap(n.callee);
    if (callee.type !== AST_NODE_TYPES.Identifier || callee.name !== 'require' || !n.arguments[0]) return undefined;
    const source = staticString(n.arguments[0]);
    return source === undefined ? undefined : { source, exported: '*' };
  }
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    const inner = requireOf(n.object);
    const name = memberName(n);
    if (inner && name) return { source: inner.source, exported: name };
  }
  return undefined;
}

function packageSource(binding: ImportOf, path: readonly string[]): ClockSource | undefined {
  for (const entry of PACKAGE_CLOCK_SOURCES) {
    if (!entry.packages.includes(binding.source)) continue;
    const keys: string[] = [];
    if (binding.exported === '*') keys.push(path.join('.'));
    else {
      keys.push([binding.exported, ...path].join('.'));
      if (binding.exported === 'default' && entry.defaultIsNamespace) keys.push(path.join('.'));
    }
    // CommonJS `const uuid = require('uuid/v4'); uuid()` is the default export.
    if (binding.exported === '*' && path.length === 0) keys.push('default');
    for (const key of keys) {
      const source = entry.exports.get(key);
      if (source) return source;
    }
  }
  return undefined;
}

/**
 * Local names worth a scope lookup: names imported from a package with clock or random
 * functions. Fed by the rule from import declarations, so most calls are rejected by a
 * set lookup.
 */
export function isClockPackage(source: string): boolean {
  return CLOCK_PACKAGES.has(source);
}

const CLOCK_PACKAGES: ReadonlySet<string> = new Set(PACKAGE_CLOCK_SOURCES.flatMap((p) => p.packages));

const importedClockNames = new WeakMap<TSESTree.Program, ReadonlySet<string>>();

/** Local names a file imports (or requires at its top level) from clock or random packages (`v4` from `uuid`), once per tree. */
export function clockImports(sourceCode: SourceCode): ReadonlySet<string> {
  const cached = importedClockNames.get(sourceCode.ast);
  if (cached) return cached;
  const names = new Set<string>();
  for (const statement of sourceCode.ast.body) {
    if (statement.type === AST_NODE_TYPES.ImportDeclaration) {
      if (isClockPackage(statement.source.value)) for (const spec of statement.specifiers) names.add(spec.local.name);
    } else if (statement.type === AST_NODE_TYPES.VariableDeclaration) {
      for (const decl of statement.declarations) {
        const required = decl.init && requireOf(decl.init);
        if (!required || !isClockPackage(required.source)) continue;
        if (decl.id.type === AST_NODE_TYPES.Identifier) names.add(decl.id.name);
        else if (decl.id.type === AST_NODE_TYPES.ObjectPattern) {
          for (const prop of decl.id.properties) {
            const value = prop.type === AST_NODE_TYPES.Property ? (prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value) : undefined;
            if (value?.type === AST_NODE_TYPES.Identifier) names.add(value.name);
          }
        }
      }
    }
  }
  importedClockNames.set(sourceCode.ast, names);
  return names;
}

/**
 * The clock or random source this call or `new` is, if it is one. `localNames` holds the
 * local names bound to clock packages (see `isClockPackage`); other roots must be globals.
 */
export function clockSourceOf(
  node: TSESTree.CallExpression | TSESTree.NewExpression,
  sourceCode: SourceCode,
  localNames: ReadonlySet<string>,
): ValueOrigin | undefined {
  // The root identifier first, without building the path: most calls stop here.
  let head: Node = node.callee;
  while (head.type === AST_NODE_TYPES.MemberExpression) head = head.object;
  if (head.type !== AST_NODE_TYPES.Identifier || !(localNames.has(head.name) || GLOBAL_CLOCK_ROOTS.has(head.name) || GLOBAL_OBJECTS.has(head.name))) return undefined;
  const dotted = dottedPath(node.callee);
  if (!dotted) return undefined;
  const { root, path } = dotted;
  // Cheap tests first: most calls are rejected by a map lookup, before any scope lookup.
  let source: ClockSource | undefined;
  if (localNames.has(root.name)) {
    const binding = importOf(root, sourceCode);
    if (binding === undefined || binding === 'global' || node.type === AST_NODE_TYPES.NewExpression) return undefined;
    source = packageSource(binding, path);
  } else if (GLOBAL_CLOCK_ROOTS.has(root.name) || GLOBAL_OBJECTS.has(root.name)) {
    // `globalThis.crypto.randomUUID()` names the same global as `crypto.randomUUID()`.
    const key = GLOBAL_OBJECTS.has(root.name) ? path.join('.') : [root.name, ...path].join('.');
    source = GLOBAL_CLOCK_CALLS.get(key);
    // `new Date()` is the clock; `Date()` called plainly returns the clock as a string.
    if (node.type === AST_NODE_TYPES.NewExpression && key !== 'Date') return undefined;
    // A local binding (`import { Date } from './sim-clock'`) shadows the global.
    if (source && importOf(root, sourceCode) !== 'global') return undefined;
  }
  if (!source) return undefined;
  if (source.noArgs && node.arguments.length > 0) return undefined;
  const text = node.type === AST_NODE_TYPES.NewExpression ? `new ${root.name}()` : `${[root.name, ...dotted.path].join('.')}()`;
  return { kind: source.kind, node, text };
}

/** What a SQL value reads, as the SQL stage parses it (`SqlValue`). */
export interface SqlFunctionsRead {
  readonly columns: readonly string[];
  readonly functions: readonly string[];
}

/** The clock or random SQL function a value calls, unless it also reads a column (`greatest(tok + 1, ...)`). */
export function sqlClockFunction(value: SqlFunctionsRead): { kind: OriginKind; name: string } | undefined {
  if (value.columns.some((c) => !c.startsWith('excluded.'))) return undefined;
  const clock = value.functions.find((f) => SQL_CLOCK_FUNCTIONS.has(f));
  if (clock) return { kind: 'clock', name: clock };
  const random = value.functions.find((f) => SQL_RANDOM_FUNCTIONS.has(f));
  return random ? { kind: 'random', name: random } : undefined;
}

/** SQL clock functions inside a fragment of SQL text (`db.raw('extract(epoch from now())')`). */
const SQL_FRAGMENT_CLOCK = /\b(?:now|clock_timestamp|statement_timestamp|transaction_timestamp|current_timestamp|localtimestamp|unix_timestamp|utc_timestamp|sysdate)\b/i;
const SQL_FRAGMENT_WRITE = /\b(?:update|insert|delete|select|merge)\b/i;

/**
 * A query builder's database-clock value: knex `db.fn.now()`, `db.raw('now()')`,
 * Sequelize `fn('NOW')` / `literal('CURRENT_TIMESTAMP')`, drizzle or slonik sql`now()`.
 * Fragments only: a whole statement is read as SQL elsewhere.
 */
export function sqlClockFragmentOf(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression): ValueOrigin | undefined {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    const text = node.quasi.quasis.map((q) => q.value.raw).join(' ');
    if (node.quasi.expressions.length > 0 || text.length > 200 || SQL_FRAGMENT_WRITE.test(text)) return undefined;
    const fn = SQL_FRAGMENT_CLOCK.exec(text);
    return fn ? { kind: 'clock', node, text: `sql\`${text.trim()}\`` } : undefined;
  }
  const callee = unwrap(node.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression && callee.type !== AST_NODE_TYPES.Identifier) return undefined;
  const name = callee.type === AST_NODE_TYPES.Identifier ? callee.name : memberName(callee);
  if (name === 'now' && callee.type === AST_NODE_TYPES.MemberExpression && memberName(unwrap(callee.object)) === 'fn' && node.arguments.length === 0) {
    return { kind: 'clock', node, text: 'fn.now()' };
  }
  if (name !== 'raw' && name !== 'literal' && name !== 'fn') return undefined;
  const first = node.arguments[0];
  const text = first && staticString(first);
  if (text === undefined || text.length > 200 || SQL_FRAGMENT_WRITE.test(text) || !SQL_FRAGMENT_CLOCK.test(name === 'fn' ? `${text}()` : text)) return undefined;
  return { kind: 'clock', node, text: `${name}('${text}')` };
}
