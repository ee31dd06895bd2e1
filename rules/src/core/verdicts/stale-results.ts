/**
 * Stale results: a fenced write tells its caller that the resource refused a stale token only
 * through its result (pg `rowCount` 0, mysql2 `affectedRows` 0, Prisma `{ count: 0 }`, Mongo
 * `matchedCount` 0, a script's reply) or an exception (DynamoDB
 * `ConditionalCheckFailedException`, Prisma `P2025`). This finds the conditional writes whose
 * refusal never reaches the code: the result is ignored, misread (a member that is the same
 * for a refused write, `if (!result)` on an object that is always there), only logged, or the
 * exception is caught and turned into success. A result returned to a caller, passed to a
 * helper, or compared and acted on (throw, a distinct return, a recorded outcome) is fine.
 * Where each library keeps its count comes from the sinks catalog (`resultShapeOf`).
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, enclosingFunction, isFunctionNode, memberName, typeWrapped, unwrap, type FunctionNode, type Node } from '../ast.js';
import type { AnyWriteSite, FileAnalysis } from '../file-analysis.js';
import { resultShapeOf, sinkModel, SINK_MODELS, type ResultShape, type SinkModel } from '../models/sinks.js';
import { findConditionalWrites, type ConditionalWrite } from './conditional-writes.js';

export type StaleResultKind = 'ignored' | 'misread' | 'loggedOnly' | 'swallowed' | 'unobservable' | 'returnedIgnored';

export interface StaleResult {
  kind: StaleResultKind;
  site: AnyWriteSite;
  shape: ResultShape;
  /** The member that tells a refused write (`rowCount`), or the error (`ConditionalCheckFailedException`). */
  member: string;
  /** The node that misreads, logs or swallows (`!result`, `result.rows.length`, the catch clause). */
  at?: Node;
  /** Misread: what the code reads instead, as written. */
  read?: string;
  /** The result as a statement of its own (`await pool.query(...);`), for the suggestion. */
  statement?: TSESTree.ExpressionStatement;
  /** Misread through the wrong binding: mysql2's `const result = await db.execute(...)`. */
  binding?: TSESTree.Identifier;
  /** Returned to callers that ignore it: the first such call. */
  caller?: TSESTree.CallExpression;
  /** The client was not known, so `member` is a guess among the SQL drivers' (no suggestion then). */
  guessed?: boolean;
}

const LOG_OBJECT = /^(?:console|log|logger|this\.log|this\.logger|ctx\.log|req\.log|fastify\.log|app\.log|winston|pino|debug|Sentry|metrics|tracer|span|telemetry)$/;
const LOG_METHOD = /^(?:log|info|warn|warning|error|debug|trace|fatal|verbose|silly|notice|child|captureException|captureMessage|increment|count|inc|observe|addEvent|setAttribute|recordException)$/;
/** Calls that record or handle a stale outcome by their name. */
const STALE_HANDLER = /stale|conflict|supersed|reject|lost|fenc|retry|abort|fail|skip|refus|obsolete|outdated|requeue|nack/i;
/** Returned objects that claim success. */
const SUCCESS_KEY = /^(?:ok|success|succeeded|applied|updated|written|saved|done)$/;
/** A second guess at the count members when the client is not known: any SQL driver's. */
const ANY_SQL_COUNT = ['rowCount', 'affectedRows', 'changedRows', 'count', 'changes', 'rowsAffected', 'numUpdatedRows', 'numAffectedRows'];

function isLoggingCall(call: TSESTree.CallExpression, sourceCode: SourceCode): boolean {
  const object = calleeObject(call);
  const method = calleeName(call) ?? '';
  if (!object) return /^(?:log|debug|warn|trace)$/.test(method);
  const text = sourceCode.getText(object).replace(/\s+/g, '');
  return LOG_OBJECT.test(text) || (LOG_METHOD.test(method) && /(?:^|\.)(?:log|logger|console)$/i.test(text));
}

/** The SQL model a file's imports point at when the receiver itself did not resolve. */
function sqlClientOf(site: Extract<AnyWriteSite, { sink: 'sql' }>, sourceCode: SourceCode): SinkModel | undefined {
  if (site.call.client) return site.call.client;
  const sources = new Set<string>();
  for (const statement of (sourceCode.ast as TSESTree.Program).body) {
    if (statement.type === AST_NODE_TYPES.ImportDeclaration) sources.add(statement.source.value);
  }
  const imported = SINK_MODELS.filter((m) => m.family === 'sql' && m.packages.some((p) => sources.has(p)));
  if (imported.length === 1) return imported[0];
  if (site.node.type === AST_NODE_TYPES.TaggedTemplateExpression) return sinkModel('postgres');
  return undefined;
}

/** The result shape of a write, from the catalog; undefined when it cannot be known. */
function shapeOf(site: AnyWriteSite, sourceCode: SourceCode): ResultShape | undefined {
  switch (site.sink) {
    case 'sql': {
      const client = sqlClientOf(site, sourceCode);
      if (!client) return { type: 'count', read: ANY_SQL_COUNT };
      return resultShapeOf(client, site.call.method);
    }
    case 'knex':
      return site.write.links.some((l) => calleeName(l) === 'returning') ? { type: 'rows', read: ['length'] } : resultShapeOf(site.write.model, site.write.method);
    case 'object': {
      if (site.write.kind === 'upsert') return undefined;
      const returning = site.write.links.some((l) => /^returning/.test(calleeName(l) ?? ''));
      if (returning) return { type: 'rows', read: ['length'] };
      return resultShapeOf(site.write.model, site.write.method);
    }
    case 'api':
      return resultShapeOf(site.write.model, undefined);
  }
}

/** The expression whose value is the write's result: the outermost link, `.promise()`, `send(new Command())`. */
function resultExpression(site: AnyWriteSite): Node {
  let node: Node = site.node;
  if (site.sink === 'knex') node = site.write.links[0] ?? node;
  // `client.send(new UpdateCommand(...))`.
  if (node.type === AST_NODE_TYPES.NewExpression && node.parent?.type === AST_NODE_TYPES.CallExpression && node.parent.arguments[0] === node) node = node.parent;
  // `docClient.update(...).promise()`.
  const parent = node.parent;
  if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === node && memberName(parent) === 'promise' && parent.parent?.type === AST_NODE_TYPES.CallExpression) node = parent.parent;
  return node;
}

/** Climbs through await, `as`, `!` and optional chains to the node whose parent uses the value. */
function valueNode(node: Node): Node {
  let current = node;
  for (;;) {
    const parent = current.parent;
    if (!parent) return current;
    if (
      parent.type === AST_NODE_TYPES.AwaitExpression ||
      parent.type === AST_NODE_TYPES.TSAsExpression ||
      parent.type === AST_NODE_TYPES.TSNonNullExpression ||
      parent.type === AST_NODE_TYPES.TSSatisfiesExpression ||
      parent.type === AST_NODE_TYPES.ChainExpression
    ) {
      current = parent;
      continue;
    }
    // `await Promise.all([write, ...])`: the array's fate is the write's.
    if (parent.type === AST_NODE_TYPES.ArrayExpression && parent.parent?.type === AST_NODE_TYPES.CallExpression && /^(?:all|allSettled)$/.test(calleeName(parent.parent) ?? '')) {
      current = parent.parent;
      continue;
    }
    return current;
  }
}

/** Whether the code in `node` acts on a stale outcome: throws, returns something distinct, records it. */
function handlesStale(node: Node | null | undefined, fn: FunctionNode | undefined, sourceCode: SourceCode, depth = 0): boolean {
  if (!node || depth > 8) return false;
  switch (node.type) {
    case AST_NODE_TYPES.ThrowStatement:
    case AST_NODE_TYPES.ContinueStatement:
    case AST_NODE_TYPES.BreakStatement:
      return true;
    case AST_NODE_TYPES.ReturnStatement:
      return returnsDistinct(node);
    case AST_NODE_TYPES.BlockStatement:
      return node.body.some((s) => handlesStale(s, fn, sourceCode, depth + 1));
    case AST_NODE_TYPES.IfStatement:
      return handlesStale(node.consequent, fn, sourceCode, depth + 1) || handlesStale(node.alternate, fn, sourceCode, depth + 1);
    case AST_NODE_TYPES.ExpressionStatement:
      return handlesStale(node.expression, fn, sourceCode, depth + 1);
    case AST_NODE_TYPES.AwaitExpression:
      return handlesStale(node.argument, fn, sourceCode, depth + 1);
    case AST_NODE_TYPES.AssignmentExpression:
    case AST_NODE_TYPES.UpdateExpression:
      return true;
    case AST_NODE_TYPES.CallExpression: {
      if (isLoggingCall(node, sourceCode)) return false;
      const name = calleeName(node) ?? '';
      // `res.status(409)`, `reply.code(409).send(...)`: an HTTP answer that says so.
      if (/^(?:status|code|sendStatus)$/.test(name) && node.arguments.some((a) => a.type === AST_NODE_TYPES.Literal && typeof a.value === 'number' && a.value >= 400)) return true;
      const object = calleeObject(node);
      if (object && unwrap(object).type === AST_NODE_TYPES.CallExpression && handlesStale(unwrap(object), fn, sourceCode, depth + 1)) return true;
      return STALE_HANDLER.test(name) || /^(?:push|add|set|emit|reject|exit)$/.test(name);
    }
    default:
      return false;
  }
}

/**
 * A `return` that stops the refused path: a bare `return;` (nothing after it runs as if the
 * write had landed) or a value the caller can tell from success; not `true` or `{ ok: true }`.
 */
function returnsDistinct(statement: TSESTree.ReturnStatement): boolean {
  const argument = statement.argument && unwrap(statement.argument);
  if (!argument) return true;
  if (argument.type === AST_NODE_TYPES.Literal && argument.value === true) return false;
  if (argument.type === AST_NODE_TYPES.ObjectExpression) {
    return !argument.properties.some((p) => p.type === AST_NODE_TYPES.Property && SUCCESS_KEY.test(p.key.type === AST_NODE_TYPES.Identifier ? p.key.name : '') && p.value.type === AST_NODE_TYPES.Literal && p.value.value === true);
  }
  return true;
}

/** Calls that end the critical section or only report: not work done as if the write had landed. */
const UPKEEP = /^(?:release|unlock|releaseLock|unlockJob|end|close|quit|disconnect|destroy|commit|rollback|finish|done)$/;

/**
 * After a refused write's path leaves `statement` without stopping, does the code go on as if
 * the write had landed: more work (a call that is not logging or lock upkeep), or a value returned?
 */
function continuesAsSuccess(statement: TSESTree.Statement, fn: FunctionNode | undefined, sourceCode: SourceCode): boolean {
  const rest: TSESTree.Statement[] = [];
  for (let s: Node | undefined = statement; s && s !== fn; s = s.parent) {
    const parent: Node | undefined = s.parent;
    if (parent?.type === AST_NODE_TYPES.BlockStatement || parent?.type === AST_NODE_TYPES.SwitchCase) rest.push(...restAfter(s as TSESTree.Statement));
    // A finally block runs either way; only the code after the try statement continues.
    if (parent?.type === AST_NODE_TYPES.TryStatement && parent.finalizer === s) break;
  }
  return rest.some((r) => doesWork(r, sourceCode));
}

function doesWork(node: Node, sourceCode: SourceCode, depth = 0): boolean {
  if (depth > 6) return false;
  switch (node.type) {
    case AST_NODE_TYPES.ReturnStatement:
      return node.argument !== null && node.argument !== undefined;
    case AST_NODE_TYPES.ExpressionStatement:
      return doesWork(node.expression, sourceCode, depth + 1);
    case AST_NODE_TYPES.AwaitExpression:
      return doesWork(node.argument, sourceCode, depth + 1);
    case AST_NODE_TYPES.VariableDeclaration:
      return node.declarations.some((d) => d.init !== null && doesWork(d.init, sourceCode, depth + 1));
    case AST_NODE_TYPES.CallExpression:
      return !isLoggingCall(node, sourceCode) && !UPKEEP.test(calleeName(node) ?? '');
    case AST_NODE_TYPES.BlockStatement:
      return node.body.some((s) => doesWork(s, sourceCode, depth + 1));
    case AST_NODE_TYPES.IfStatement:
      return doesWork(node.consequent, sourceCode, depth + 1) || (!!node.alternate && doesWork(node.alternate, sourceCode, depth + 1));
    case AST_NODE_TYPES.TryStatement:
      return doesWork(node.block, sourceCode, depth + 1);
    default:
      return false;
  }
}

interface Polarity {
  /** The branch taken when the write was refused, or undefined when it cannot be told. */
  stale: Node | null | undefined;
  /** The `if` decides, but the refused path falls through to the code after it. */
  fallsThrough?: TSESTree.IfStatement;
}

/**
 * For a count read in an `if` test: which branch runs for a refused write. `=== 0`, `< 1`,
 * `!n`, `!== 1` pick the consequent; `> 0`, `=== 1`, `n` pick the alternate (or the code after).
 */
function staleBranch(read: Node, test: Node, statement: TSESTree.IfStatement | TSESTree.ConditionalExpression): Polarity {
  // Whether the tested expression is true for a refused write; a bare `if (count)` is true when applied.
  let zeroIsTrue: boolean | undefined = false;
  let current: Node = read;
  let negations = 0;
  while (current !== test && current.parent) {
    const parent: Node = current.parent;
    if (parent.type === AST_NODE_TYPES.UnaryExpression && parent.operator === '!') negations++;
    else if (parent.type === AST_NODE_TYPES.BinaryExpression) {
      const other = parent.left === current ? parent.right : parent.left;
      const value = other.type === AST_NODE_TYPES.Literal && typeof other.value === 'number' ? other.value : undefined;
      const flipped = parent.left !== current;
      const op = flipped ? (({ '<': '>', '>': '<', '<=': '>=', '>=': '<=' }) as Record<string, string>)[parent.operator] ?? parent.operator : parent.operator;
      if (value === 0) zeroIsTrue = op === '===' || op === '==' || op === '<=' ? true : op === '!==' || op === '!=' || op === '>' ? false : undefined;
      else if (value === 1) zeroIsTrue = op === '<' || op === '!==' || op === '!=' ? true : op === '===' || op === '==' || op === '>=' ? false : undefined;
      else zeroIsTrue = undefined;
    } else if (parent.type !== AST_NODE_TYPES.LogicalExpression && parent.type !== AST_NODE_TYPES.ChainExpression && parent.type !== AST_NODE_TYPES.MemberExpression && parent.type !== AST_NODE_TYPES.TSNonNullExpression) {
      return { stale: undefined };
    }
    current = parent;
  }
  if (zeroIsTrue === undefined) return { stale: undefined };
  if (negations % 2 === 1) zeroIsTrue = !zeroIsTrue;
  if (zeroIsTrue) return { stale: statement.consequent };
  if (statement.alternate) return { stale: statement.alternate };
  return statement.type === AST_NODE_TYPES.IfStatement ? { stale: null, fallsThrough: statement } : { stale: undefined };
}

type ReadVerdict = 'handled' | 'logged' | 'misleading' | 'none';

/** What the code does with a count (or truthiness) read: decides on it, returns it, hands it on, or only logs it. */
function judgeRead(read: Node, fn: FunctionNode | undefined, sourceCode: SourceCode): ReadVerdict {
  let current: Node = read;
  for (let i = 0; i < 8 && current.parent; i++) {
    const parent: Node = current.parent;
    switch (parent.type) {
      case AST_NODE_TYPES.IfStatement:
      case AST_NODE_TYPES.ConditionalExpression: {
        if (parent.test !== current) return 'handled';
        const { stale, fallsThrough } = staleBranch(read, current, parent);
        if (stale === undefined && !fallsThrough) return 'handled';
        if (fallsThrough) {
          // `if (n === 1) return ok; <refused path>`: the code after the if is the refused path.
          if (!handlesStale(fallsThrough.consequent, fn, sourceCode)) return 'handled';
          const rest = restAfter(fallsThrough);
          if (rest.some((s) => handlesStale(s, fn, sourceCode))) return 'handled';
          return continuesAsSuccess(fallsThrough, fn, sourceCode) ? 'logged' : 'handled';
        }
        if (parent.type === AST_NODE_TYPES.ConditionalExpression) return 'handled';
        if (handlesStale(stale, fn, sourceCode)) return 'handled';
        // A refused write only logged: a finding when the code then goes on as if it had landed.
        if (stale && containsSuccessReturn(stale)) return 'logged';
        return continuesAsSuccess(parent, fn, sourceCode) ? 'logged' : 'handled';
      }
      case AST_NODE_TYPES.WhileStatement:
      case AST_NODE_TYPES.DoWhileStatement:
      case AST_NODE_TYPES.ForStatement:
      case AST_NODE_TYPES.SwitchStatement:
      case AST_NODE_TYPES.ReturnStatement:
      case AST_NODE_TYPES.ArrowFunctionExpression:
      case AST_NODE_TYPES.VariableDeclarator:
      case AST_NODE_TYPES.AssignmentExpression:
      case AST_NODE_TYPES.Property:
      case AST_NODE_TYPES.ArrayExpression:
      case AST_NODE_TYPES.ThrowStatement:
        return 'handled';
      case AST_NODE_TYPES.CallExpression:
        if (parent.callee === current) return 'none';
        return isLoggingCall(parent, sourceCode) ? 'logged' : 'handled';
      case AST_NODE_TYPES.TemplateLiteral:
      case AST_NODE_TYPES.BinaryExpression:
      case AST_NODE_TYPES.LogicalExpression:
      case AST_NODE_TYPES.UnaryExpression:
      case AST_NODE_TYPES.ChainExpression:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.AwaitExpression:
        current = parent;
        continue;
      case AST_NODE_TYPES.ExpressionStatement:
        return 'none';
      default:
        return 'handled';
    }
  }
  return 'handled';
}

/** `return true` / `return { ok: true }` inside the refused path. */
function containsSuccessReturn(node: Node, depth = 0): boolean {
  if (depth > 6) return false;
  if (node.type === AST_NODE_TYPES.ReturnStatement) return !returnsDistinct(node);
  if (node.type === AST_NODE_TYPES.BlockStatement) return node.body.some((s) => containsSuccessReturn(s, depth + 1));
  if (node.type === AST_NODE_TYPES.IfStatement) return containsSuccessReturn(node.consequent, depth + 1) || (!!node.alternate && containsSuccessReturn(node.alternate, depth + 1));
  return false;
}

function restAfter(statement: TSESTree.Statement): TSESTree.Statement[] {
  const parent = statement.parent;
  const body = parent?.type === AST_NODE_TYPES.BlockStatement || parent?.type === AST_NODE_TYPES.Program ? (parent.body as TSESTree.Statement[]) : parent?.type === AST_NODE_TYPES.SwitchCase ? parent.consequent : [];
  const index = body.indexOf(statement);
  return index < 0 ? [] : body.slice(index + 1);
}

interface UseVerdict {
  verdict: ReadVerdict;
  /** For misread: the node and text of the misleading read. */
  at?: Node;
  read?: string;
}

/** References of a binding after it is bound (the declaration excluded). */
function referencesOf(id: TSESTree.Identifier, sourceCode: SourceCode): TSESTree.Identifier[] {
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  if (!variable) return [];
  return variable.references.filter((r) => r.identifier !== id && r.isRead()).map((r) => r.identifier as TSESTree.Identifier);
}

interface ShapeReads {
  /** Members that count the written rows. */
  count: readonly string[];
  /** Members that look like a check but do not tell a refused write. */
  misleading: readonly string[];
  /** The value itself tells: a number, a record or null, a reply. */
  valueTells: boolean;
  /** The value is always a truthy object or array: `if (!result)` does not tell. */
  alwaysTruthy: boolean;
  /** mysql2: the result is the first element of a resolved pair. */
  tuple?: number;
  /** Members among `count` that hold the written rows (pg `rows` after RETURNING, Supabase `data`): their length tells. */
  rowLists?: readonly string[];
}

/** A list of the written rows: its length or first element tells; the list itself is always there. */
const ROW_LIST_READS: ShapeReads = { count: ['length', '0'], misleading: [], valueTells: false, alwaysTruthy: true };

function readsOf(shape: ResultShape, site: AnyWriteSite): ShapeReads {
  const returning = site.sink === 'sql' && site.call.source.analysis.statements.some((s) => s.returning.length > 0);
  switch (shape.type) {
    case 'count': {
      // pg: `rows` is empty without RETURNING; with it, the rows tell as well as the count.
      const misleading = (shape.misleading ?? []).filter((m) => !(returning && m === 'rows'));
      const rowLists = [...(returning ? ['rows'] : []), ...(shape.rows ?? [])];
      const count = [...shape.read, ...rowLists];
      return { count, misleading, valueTells: false, alwaysTruthy: true, tuple: shape.tuple, rowLists };
    }
    case 'rows':
      return { count: [...shape.read, '0'], misleading: [], valueTells: false, alwaysTruthy: true };
    case 'number':
    case 'record':
    case 'reply':
      return { count: [], misleading: [], valueTells: true, alwaysTruthy: false };
    case 'status':
      return { count: shape.read, misleading: [], valueTells: false, alwaysTruthy: true };
    default:
      return { count: [], misleading: [], valueTells: true, alwaysTruthy: false };
  }
}

/** What the code does with the result held in `id`. */
function judgeBinding(id: TSESTree.Identifier, reads: ShapeReads, fn: FunctionNode | undefined, sourceCode: SourceCode, asTuplePair: boolean): UseVerdict {
  let best: UseVerdict = { verdict: 'none' };
  const rank: Record<ReadVerdict, number> = { none: 0, misleading: 1, logged: 2, handled: 3 };
  const consider = (v: UseVerdict) => {
    if (rank[v.verdict] > rank[best.verdict]) best = v;
  };
  for (const name of referencesOf(id, sourceCode)) {
    // `(result as ResultSetHeader).affectedRows` reads `result` itself.
    const ref = typeWrapped(name);
    const parent = ref.parent;
    if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === ref) {
      const member = memberName(parent) ?? (parent.computed && parent.property.type === AST_NODE_TYPES.Literal ? String(parent.property.value) : undefined);
      if (member === undefined) continue;
      if (asTuplePair) {
        // `result.affectedRows` on mysql2's `[header, fields]`: undefined, whatever happened.
        if (reads.count.includes(member)) consider({ verdict: 'misleading', at: parent, read: sourceCode.getText(parent) });
        else if (member === '0' || member === String(reads.tuple)) consider({ verdict: judgeRead(parent, fn, sourceCode) === 'none' ? 'none' : 'handled' });
        continue;
      }
      if (reads.count.includes(member)) consider({ verdict: judgeRead(parent, fn, sourceCode) });
      else if (reads.misleading.includes(member)) consider({ verdict: 'misleading', at: outerMember(parent), read: sourceCode.getText(outerMember(parent)) });
      continue;
    }
    // The result handed on: returned, passed to a helper, stored, destructured later.
    if (parent?.type === AST_NODE_TYPES.CallExpression && parent.arguments.includes(ref as TSESTree.CallExpressionArgument)) {
      consider({ verdict: isLoggingCall(parent, sourceCode) ? 'logged' : 'handled' });
      continue;
    }
    if (reads.valueTells) {
      consider({ verdict: judgeRead(ref, fn, sourceCode) });
      continue;
    }
    if (reads.alwaysTruthy && isTruthinessTest(ref)) {
      consider({ verdict: 'misleading', at: truthinessNode(ref), read: sourceCode.getText(truthinessNode(ref)) });
      continue;
    }
    const verdict = judgeRead(ref, fn, sourceCode);
    if (verdict === 'handled' && !isTruthinessTest(ref)) consider({ verdict });
    else if (verdict === 'logged') consider({ verdict });
  }
  return best;
}

/** `result.rows.length`, `result.rows[0]`: the whole misleading read. */
function outerMember(member: TSESTree.MemberExpression): Node {
  let current: Node = member;
  while (current.parent?.type === AST_NODE_TYPES.MemberExpression && current.parent.object === current) current = current.parent;
  return current;
}

function isTruthinessTest(ref: Node): boolean {
  const node = truthinessNode(ref);
  const parent = node.parent;
  return (
    (parent?.type === AST_NODE_TYPES.IfStatement && parent.test === node) ||
    (parent?.type === AST_NODE_TYPES.ConditionalExpression && parent.test === node) ||
    (parent?.type === AST_NODE_TYPES.LogicalExpression && parent.left === node)
  );
}

function truthinessNode(ref: Node): Node {
  let node: Node = ref;
  while (node.parent?.type === AST_NODE_TYPES.UnaryExpression && node.parent.operator === '!') node = node.parent;
  return node;
}

/** The nearest `try` whose block holds `node`, in the same function. */
function enclosingTry(node: Node): TSESTree.TryStatement | undefined {
  const fn = enclosingFunction(node);
  for (let p = node.parent; p && p !== fn; p = p.parent) {
    if (p.type === AST_NODE_TYPES.TryStatement && contains(p.block, node) && p.handler) return p;
  }
  return undefined;
}

/** Whether a catch clause lets a refused write pass as success. */
function swallows(handler: TSESTree.CatchClause, shape: Extract<ResultShape, { type: 'exception' }>, fn: FunctionNode | undefined, sourceCode: SourceCode): boolean {
  const names = [...shape.names, ...shape.codes];
  const mentions = (n: Node) => names.some((name) => sourceCode.getText(n).includes(name));
  // A branch on the refusal itself: its own branch must act on it.
  for (const statement of handler.body.body) {
    if (statement.type !== AST_NODE_TYPES.IfStatement || !mentions(statement.test)) continue;
    const negated = /!==|!=|^\s*!/.test(sourceCode.getText(statement.test));
    const branch = negated ? statement.alternate ?? null : statement.consequent;
    if (branch === null) {
      const rest = restAfter(statement);
      if (rest.some((s) => handlesStale(s, fn, sourceCode))) return false;
      return turnsIntoSuccess(handler, fn, sourceCode);
    }
    if (containsSuccessReturn(branch)) return true;
    return !handlesStale(branch, fn, sourceCode) && turnsIntoSuccess(handler, fn, sourceCode);
  }
  if (containsSuccessReturn(handler.body)) return true;
  return !handlesStale(handler.body, fn, sourceCode) && turnsIntoSuccess(handler, fn, sourceCode);
}

/** A catch that neither throws nor returns lets the code after the `try` go on as if the write had landed. */
function turnsIntoSuccess(handler: TSESTree.CatchClause, fn: FunctionNode | undefined, sourceCode: SourceCode): boolean {
  const attempt = handler.parent;
  return attempt?.type === AST_NODE_TYPES.TryStatement && continuesAsSuccess(attempt, fn, sourceCode);
}

/** `write.catch(() => ...)` on the promise itself. */
function catchCallback(value: Node): FunctionNode | undefined {
  const parent = value.parent;
  if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === value && memberName(parent) === 'catch' && parent.parent?.type === AST_NODE_TYPES.CallExpression) {
    const cb = parent.parent.arguments[0];
    return cb && isFunctionNode(cb) ? cb : undefined;
  }
  return undefined;
}

function firstMember(shape: ResultShape): string {
  switch (shape.type) {
    case 'count':
    case 'status':
      return shape.read[0];
    case 'rows':
      return shape.read[0];
    case 'exception':
      return shape.codes[0] ?? shape.names[0];
    case 'number':
      return 'count';
    case 'record':
      return 'returned record';
    case 'reply':
      return 'reply';
    default:
      return 'result';
  }
}

const MAX_CALLER_DEPTH = 2;

/** How a call's result is used, for a write whose refusal shows in `shape`. */
function judgeUse(value: Node, site: AnyWriteSite, shape: ResultShape, analysis: FileAnalysis, sourceCode: SourceCode, depth: number): Omit<StaleResult, 'site' | 'shape' | 'member'> | undefined {
  const fn = enclosingFunction(value);
  const reads = readsOf(shape, site);
  const parent = value.parent;
  if (!parent) return undefined;
  switch (parent.type) {
    case AST_NODE_TYPES.ExpressionStatement:
      return { kind: 'ignored', statement: parent };
    case AST_NODE_TYPES.VariableDeclarator: {
      if (parent.init !== value) return undefined;
      const id = parent.id;
      if (id.type === AST_NODE_TYPES.Identifier) {
        const use = judgeBinding(id, reads, fn, sourceCode, reads.tuple !== undefined);
        if (use.verdict === 'handled') return undefined;
        if (use.verdict === 'misleading') return { kind: 'misread', at: use.at, read: use.read, binding: reads.tuple !== undefined ? id : undefined };
        if (use.verdict === 'logged') return { kind: 'loggedOnly' };
        return { kind: 'ignored' };
      }
      if (id.type === AST_NODE_TYPES.ObjectPattern) {
        // `const { rowCount } = await pool.query(...)`, `const { count } = await prisma.x.updateMany(...)`.
        let verdict: ReadVerdict = 'none';
        for (const p of id.properties) {
          if (p.type !== AST_NODE_TYPES.Property || p.key.type !== AST_NODE_TYPES.Identifier) continue;
          let local: Node = p.value.type === AST_NODE_TYPES.AssignmentPattern ? p.value.left : p.value;
          let inner: ShapeReads | undefined;
          // `const { rows: [row] } = ...RETURNING`: the first row, or undefined for a refused write.
          if (local.type === AST_NODE_TYPES.ArrayPattern && reads.rowLists?.includes(p.key.name) && local.elements[0]?.type === AST_NODE_TYPES.Identifier) {
            local = local.elements[0];
            inner = { count: [], misleading: [], valueTells: true, alwaysTruthy: false };
          }
          if (local.type !== AST_NODE_TYPES.Identifier) continue;
          if (reads.count.includes(p.key.name)) {
            // `const { rows } = ...RETURNING`: `rows.length` tells; `const { rowCount } = ...`: the number does.
            inner ??= reads.rowLists?.includes(p.key.name) ? ROW_LIST_READS : { ...reads, valueTells: true };
            const v = judgeBinding(local, inner, fn, sourceCode, false).verdict;
            if (v === 'handled') return undefined;
            if (v === 'logged') verdict = 'logged';
          }
        }
        return { kind: verdict === 'logged' ? 'loggedOnly' : 'ignored' };
      }
      if (id.type === AST_NODE_TYPES.ArrayPattern) {
        // mysql2 `const [header] = ...`, postgres.js `const [row] = ...`, Sequelize `const [count] = ...`.
        const first = id.elements[0];
        if (!first || first.type !== AST_NODE_TYPES.Identifier) return undefined;
        const inner: ShapeReads = reads.tuple !== undefined ? { ...reads, tuple: undefined } : { ...reads, count: [], valueTells: true, alwaysTruthy: false };
        const use = judgeBinding(first, inner, fn, sourceCode, false);
        if (use.verdict === 'handled') return undefined;
        if (use.verdict === 'misleading') return { kind: 'misread', at: use.at, read: use.read };
        return { kind: use.verdict === 'logged' ? 'loggedOnly' : 'ignored' };
      }
      return undefined;
    }
    case AST_NODE_TYPES.AssignmentExpression:
      if (parent.right === value && parent.left.type === AST_NODE_TYPES.Identifier) {
        const use = judgeBinding(parent.left, reads, fn, sourceCode, reads.tuple !== undefined);
        if (use.verdict === 'handled') return undefined;
        if (use.verdict === 'misleading') return { kind: 'misread', at: use.at, read: use.read };
        return { kind: use.verdict === 'logged' ? 'loggedOnly' : 'ignored' };
      }
      return undefined;
    case AST_NODE_TYPES.ReturnStatement:
    case AST_NODE_TYPES.ArrowFunctionExpression: {
      // Returned to the caller: fine, unless every same-file caller drops it.
      const owner = parent.type === AST_NODE_TYPES.ArrowFunctionExpression ? parent : fn;
      if (!owner || depth >= MAX_CALLER_DEPTH) return undefined;
      const callers = analysis.functions.callersOf(owner);
      if (callers.length === 0) return undefined;
      let ignoredBy: TSESTree.CallExpression | undefined;
      for (const call of callers) {
        const verdict = judgeUse(valueNode(call), site, shape, analysis, sourceCode, depth + 1);
        if (!verdict || verdict.kind !== 'ignored') return undefined;
        ignoredBy ??= call;
      }
      return ignoredBy ? { kind: 'returnedIgnored', caller: ignoredBy } : undefined;
    }
    case AST_NODE_TYPES.MemberExpression: {
      if (parent.object !== value) return undefined;
      const member = memberName(parent);
      if (member === undefined) return undefined;
      if (member === 'then') return undefined;
      if (reads.count.includes(member)) {
        const verdict = judgeRead(parent, fn, sourceCode);
        return verdict === 'handled' ? undefined : { kind: verdict === 'logged' ? 'loggedOnly' : 'ignored' };
      }
      if (reads.misleading.includes(member)) return { kind: 'misread', at: outerMember(parent), read: sourceCode.getText(outerMember(parent)) };
      return undefined;
    }
    default: {
      if (reads.valueTells || !isTruthinessTest(value)) return undefined;
      return { kind: 'misread', at: truthinessNode(value), read: sourceCode.getText(truthinessNode(value)) };
    }
  }
}

function enclosingStatement(node: Node): TSESTree.Statement | undefined {
  for (let p: Node | undefined = node; p; p = p.parent) {
    if (p.parent?.type === AST_NODE_TYPES.BlockStatement || p.parent?.type === AST_NODE_TYPES.Program || p.parent?.type === AST_NODE_TYPES.SwitchCase) return p as TSESTree.Statement;
    if (isFunctionNode(p)) return undefined;
  }
  return undefined;
}

/** The source of the value a conditional write compares, to tell writes fenced by the same token. */
function comparedValueText(write: ConditionalWrite, sourceCode: SourceCode): string | undefined {
  const { site } = write;
  switch (site.sink) {
    case 'sql': {
      const comparison = (write.unstored ?? site.verdicts.find((v) => v.tokenCompared))?.comparison;
      const param = comparison?.value.params[0];
      const node = param !== undefined ? site.call.param(param) : undefined;
      return node ? sourceCode.getText(node) : undefined;
    }
    case 'knex':
    case 'object':
      return site.verdict.value ? sourceCode.getText(site.verdict.value) : undefined;
    default:
      return undefined;
  }
}

export function findStaleResults(analysis: FileAnalysis, sourceCode: SourceCode): StaleResult[] {
  const found = staleResultsOf(analysis, sourceCode);
  const writes = findConditionalWrites(analysis, sourceCode);
  const flagged = new Set(found.map((f) => f.site.node));
  // A dropped result is still told when a later write in the same function, fenced by the same
  // token, is checked: the late worker is refused there too and reports it.
  return found.filter((f) => {
    if (f.kind !== 'ignored') return true;
    const self = writes.find((w) => w.site.node === f.site.node);
    const token = self && comparedValueText(self, sourceCode);
    const fn = enclosingFunction(f.site.node);
    if (!token || !fn) return true;
    return !writes.some((w) => w.site.node.range[0] > f.site.node.range[1] && enclosingFunction(w.site.node) === fn && !flagged.has(w.site.node) && comparedValueText(w, sourceCode) === token);
  });
}

function staleResultsOf(analysis: FileAnalysis, sourceCode: SourceCode): StaleResult[] {
  const out: StaleResult[] = [];
  for (const write of findConditionalWrites(analysis, sourceCode)) {
    const { site } = write;
    const shape = shapeOf(site, sourceCode);
    if (!shape) continue;
    const member = firstMember(shape);
    const value = valueNode(resultExpression(site));
    if (shape.type === 'none') {
      out.push({ kind: 'unobservable', site, shape, member: 'rowCount' });
      continue;
    }
    if (shape.type === 'exception') {
      const fn = enclosingFunction(value);
      const cb = catchCallback(value);
      const statement = enclosingStatement(value);
      if (cb && !handlesStale(cb.body, cb, sourceCode) && (containsSuccessReturn(cb.body) || (statement !== undefined && continuesAsSuccess(statement, fn, sourceCode)))) {
        out.push({ kind: 'swallowed', site, shape, member, at: cb });
        continue;
      }
      const attempt = enclosingTry(value);
      if (attempt?.handler && swallows(attempt.handler, shape, fn, sourceCode)) out.push({ kind: 'swallowed', site, shape, member, at: attempt.handler });
      continue;
    }
    const verdict = judgeUse(value, site, shape, analysis, sourceCode, 0);
    const guessed = shape.type === 'count' && shape.read === ANY_SQL_COUNT;
    if (verdict) out.push({ ...verdict, site, shape, member: guessed ? 'rowCount' : member, guessed });
  }
  return out;
}
