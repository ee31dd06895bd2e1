/**
 * Suggestions for name-only releases. They use only values the code already has: the value
 * the lock was SET with (or compared against), the owner and lease ids of the handle or of
 * variables in scope. When no such value is in scope there is no suggestion.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { RuleFix, RuleFixer, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, unwrap, type Node } from '../ast.js';
import { DEFAULT_LEASE_COLUMN, DEFAULT_OWNER_COLUMN, LEASE_COLUMN_NAME, OWNER_COLUMN_NAME } from '../models/lock-tables.js';
import type { NameOnlyRelease } from '../verdicts/name-only-releases.js';

export type FixBuilder = (fixer: RuleFixer) => RuleFix | RuleFix[];

type SqlRelease = Extract<NameOnlyRelease, { kind: 'sqlRelease' }>;
type RedisRelease = Extract<NameOnlyRelease, { kind: 'redisDelete' | 'redisCheckThenDelete' }>;

/** Root of `a.b.c` / `this.a.b`: the identifier or `this`; undefined for calls, literals, computed access. */
function rootOf(node: Node): TSESTree.Identifier | TSESTree.ThisExpression | undefined {
  let n = unwrap(node);
  while (n.type === AST_NODE_TYPES.MemberExpression && !n.computed) n = unwrap(n.object);
  return n.type === AST_NODE_TYPES.Identifier || n.type === AST_NODE_TYPES.ThisExpression ? n : undefined;
}

function enclosingClass(node: Node): Node | undefined {
  for (let p = node.parent; p; p = p.parent) if (p.type === AST_NODE_TYPES.ClassBody) return p;
  return undefined;
}

/** Whether `value`, written where it is, means the same thing at `at`. */
function visibleAt(value: Node, at: Node, sourceCode: SourceCode): boolean {
  const root = rootOf(value);
  if (!root) return false;
  if (root.type === AST_NODE_TYPES.ThisExpression) return enclosingClass(value) !== undefined && enclosingClass(value) === enclosingClass(at);
  const there = ASTUtils.findVariable(sourceCode.getScope(root), root.name);
  const here = ASTUtils.findVariable(sourceCode.getScope(at), root.name);
  return there !== null && there === here && there.defs.length > 0;
}

const COMPARE_AND_DELETE_LUA = (q: string) => `if redis.call(${q}get${q}, KEYS[1]) == ARGV[1] then return redis.call(${q}del${q}, KEYS[1]) else return 0 end`;

/** Replace `redis.del(key)` with an atomic compare-and-delete of the owner's value. */
export function redisCompareAndDeleteFix(release: RedisRelease, sourceCode: SourceCode): { fix: FixBuilder; value: string } | undefined {
  const { node, key, ownerValue } = release;
  const method = calleeName(node) ?? '';
  if (!ownerValue || node.arguments.length !== 1 || !/^(?:del|unlink)(?:Async)?$/i.test(method) || !visibleAt(ownerValue, node, sourceCode)) return undefined;
  const object = calleeObject(node);
  if (!object) return undefined;
  // Quote the script the way the file quotes strings; the Lua inside takes the other quote.
  const singles = (sourceCode.text.match(/'/g) ?? []).length;
  const doubles = (sourceCode.text.match(/"/g) ?? []).length;
  const outer = singles >= doubles ? "'" : '"';
  const script = `${outer}${COMPARE_AND_DELETE_LUA(outer === "'" ? '"' : "'")}${outer}`;
  const receiver = sourceCode.getText(object);
  const keyText = sourceCode.getText(key);
  const value = sourceCode.getText(ownerValue);
  const args = release.setNx?.optionsObject ? `${script}, { keys: [${keyText}], arguments: [${value}] }` : `${script}, 1, ${keyText}, ${value}`;
  // A promisified client (`delAsync`) has its promise-returning `evalAsync` too.
  const evalMethod = /Async$/.test(method) ? 'evalAsync' : 'eval';
  return { fix: (fixer) => fixer.replaceText(node, `${receiver}.${evalMethod}(${args})`), value };
}

/** Properties a handle is declared with: a same-file interface/type alias, an inline type, or its object literal. */
function declaredProperties(root: TSESTree.Identifier, sourceCode: SourceCode): string[] {
  const variable = ASTUtils.findVariable(sourceCode.getScope(root), root.name);
  const def = variable?.defs[0];
  if (!def) return [];
  const name = def.name as TSESTree.Identifier;
  const annotation = name.typeAnnotation?.typeAnnotation;
  if (annotation) return typeMembers(annotation, sourceCode.ast as TSESTree.Program);
  if (def.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init) {
    const init = unwrap(def.node.init);
    if (init.type === AST_NODE_TYPES.ObjectExpression) {
      return init.properties.flatMap((p) => (p.type === AST_NODE_TYPES.Property && p.key.type === AST_NODE_TYPES.Identifier ? [p.key.name] : []));
    }
  }
  return [];
}

function typeMembers(type: TSESTree.TypeNode, program: TSESTree.Program): string[] {
  const fromMembers = (members: readonly TSESTree.TypeElement[]) =>
    members.flatMap((m) => (m.type === AST_NODE_TYPES.TSPropertySignature && m.key.type === AST_NODE_TYPES.Identifier ? [m.key.name] : []));
  if (type.type === AST_NODE_TYPES.TSTypeLiteral) return fromMembers(type.members);
  if (type.type !== AST_NODE_TYPES.TSTypeReference || type.typeName.type !== AST_NODE_TYPES.Identifier) return [];
  const wanted = type.typeName.name;
  for (const statement of program.body) {
    const decl = statement.type === AST_NODE_TYPES.ExportNamedDeclaration ? statement.declaration : statement;
    if (decl?.type === AST_NODE_TYPES.TSInterfaceDeclaration && decl.id.name === wanted) return fromMembers(decl.body.body);
    if (decl?.type === AST_NODE_TYPES.TSTypeAliasDeclaration && decl.id.name === wanted && decl.typeAnnotation.type === AST_NODE_TYPES.TSTypeLiteral) return fromMembers(decl.typeAnnotation.members);
  }
  return [];
}

const normal = (name: string) => name.replace(/_/g, '').toLowerCase();
const OWNER_VALUE = new Set(['ownerid', 'owner', 'holderid', 'holder', 'workerid', 'instanceid', 'lockowner', 'lockownerid']);
const LEASE_VALUE = new Set(['leaseid', 'leasetoken', 'locktoken', 'lockvalue', 'leaseuuid']);

/** Owner and lease values the code has at the release: handle members first, then variables in scope. */
function holderValues(release: SqlRelease, sourceCode: SourceCode): Array<{ name: string; text: string }> {
  const out: Array<{ name: string; text: string }> = [];
  const seen = new Set<string>();
  const add = (name: string, text: string) => {
    if (!seen.has(text)) {
      seen.add(text);
      out.push({ name, text });
    }
  };
  for (const n of release.statement.params) {
    const param = release.call.param(n);
    const value = param && unwrap(param);
    if (value?.type !== AST_NODE_TYPES.MemberExpression || value.computed) continue;
    const object = unwrap(value.object);
    if (object.type !== AST_NODE_TYPES.Identifier) continue;
    for (const prop of declaredProperties(object, sourceCode)) add(prop, `${object.name}.${prop}`);
  }
  for (let scope: ReturnType<SourceCode['getScope']> | null = sourceCode.getScope(release.node); scope; scope = scope.upper) {
    for (const variable of scope.variables) {
      const def = variable.defs[0];
      if (!def || (def.type !== 'Variable' && def.type !== 'Parameter') || def.name.range[1] > release.node.range[0]) continue;
      add(variable.name, variable.name);
    }
  }
  return out;
}

/** Append `, text` to an array literal, after a trailing comma if there is one. */
function appendToArray(array: TSESTree.ArrayExpression, texts: string[], sourceCode: SourceCode): { range: TSESTree.Range; text: string } {
  const last = array.elements[array.elements.length - 1];
  if (!last) return { range: [array.range[0] + 1, array.range[0] + 1], text: texts.join(', ') };
  const before = sourceCode.getTokenBefore(sourceCode.getLastToken(array)!)!;
  if (before.value === ',') return { range: [before.range[1], before.range[1]], text: ` ${texts.join(', ')},` };
  return { range: [last.range[1], last.range[1]], text: `, ${texts.join(', ')}` };
}

/**
 * Add `AND owner_id = $k AND lease_id = $m` to a lock-table release, with values the code has.
 * Columns follow the file's own statements on that table; only a column with a value in scope
 * is added (an owner id alone gives only the owner condition).
 */
export function sqlHolderFix(release: SqlRelease, tableColumns: ReadonlyMap<string, ReadonlySet<string>>, sourceCode: SourceCode): { fix: FixBuilder; condition: string } | undefined {
  const { call, statement } = release;
  const where = statement.edit.whereRange;
  const analysis = call.source.analysis;
  if (!where || /\bor\b/i.test(analysis.text.slice(where.start, where.end))) return undefined;
  const known = [...(tableColumns.get(statement.table ?? '') ?? [])].filter((c) => !release.nameColumns.includes(c));
  const ownerColumn = known.length > 0 ? known.find((c) => OWNER_COLUMN_NAME.test(c)) : DEFAULT_OWNER_COLUMN;
  const leaseColumn = known.length > 0 ? known.find((c) => LEASE_COLUMN_NAME.test(c)) : DEFAULT_LEASE_COLUMN;
  const values = holderValues(release, sourceCode);
  const pick = (column: string | undefined, generic: Set<string>) => (column ? values.find((v) => normal(v.name) === normal(column)) ?? values.find((v) => generic.has(normal(v.name))) : undefined);
  const pairs = ([[ownerColumn, pick(ownerColumn, OWNER_VALUE)], [leaseColumn, pick(leaseColumn, LEASE_VALUE)]] as const).filter(
    (p): p is readonly [string, { name: string; text: string }] => p[0] !== undefined && p[1] !== undefined,
  );
  if (pairs.length === 0) return undefined;

  const tagged = call.source.kind === 'tagged-template';
  const mysql = analysis.dialect === 'mysql';
  let next = Math.max(0, call.valuesArray?.elements.length ?? 0, ...analysis.statements.flatMap((s) => s.params)) + 1;
  if (!tagged) {
    if (!call.valuesArray) return undefined;
    // Positional `?` only works when no placeholder follows the insertion point.
    if (mysql && /\$\d/.test(analysis.text.slice(where.end))) return undefined;
  }
  const placeholder = (text: string) => (tagged ? `\${${text}}` : mysql ? '?' : `$${next++}`);
  const condition = pairs.map(([column, value]) => ` AND ${column} = ${placeholder(value.text)}`).join('');
  const at = call.source.toSourceIndex(where.end);
  if (at === undefined) return undefined;
  const edits = [{ range: [at, at] as TSESTree.Range, text: condition }];
  if (!tagged) edits.push(appendToArray(call.valuesArray!, pairs.map(([, v]) => v.text), sourceCode));
  return {
    fix: (fixer) => edits.map((e) => fixer.insertTextAfterRange(e.range, e.text)),
    condition: condition.trim(),
  };
}
