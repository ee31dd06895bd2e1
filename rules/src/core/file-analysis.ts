/**
 * One pass per file, shared by every rule (and by the language server's hover): finds the
 * acquires, their critical sections (following same-file calls), the writes reached inside
 * them, and whether each write carries a fence condition.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { RuleContext, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { contains, memberName, walk, type FunctionNode, type Node } from './ast.js';
import { findAcquires, type AcquireSite } from './locks/acquires.js';
import { FunctionIndex } from './modules/functions.js';
import { recordImport, type ImportTable } from './modules/imports.js';
import { judgeKnexWrite, readKnexWrite, type KnexVerdict, type KnexWrite } from './sinks/knex-writes.js';
import { judgeObjectWrite, readObjectWrite, type ObjectVerdict, type ObjectWrite } from './sinks/object-writes.js';
import { apiWriteFenced, readApiWrite, type ApiWrite } from './sinks/api-writes.js';
import { ReceiverTable, receiverKey } from './modules/receivers.js';
import { typeResolverFor } from './modules/types.js';
import { lockModels, tokenColumnSetting } from './settings.js';
import { isProtectedWrite, judgeWrite, readSqlCall, type SqlCall, type WriteVerdict } from './sinks/sql-writes.js';
import { TokenTracer } from './tokens/token-tracer.js';

export interface SqlWriteSite {
  sink: 'sql';
  node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;
  acquire: AcquireSite;
  call: SqlCall;
  /** One verdict per protected write statement in the text. */
  verdicts: WriteVerdict[];
  fenced: boolean;
}

export interface KnexWriteSite {
  sink: 'knex';
  node: TSESTree.CallExpression;
  acquire: AcquireSite;
  write: KnexWrite;
  verdict: KnexVerdict;
  fenced: boolean;
}

export interface ObjectWriteSite {
  sink: 'object';
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  acquire: AcquireSite;
  write: ObjectWrite;
  verdict: ObjectVerdict;
  fenced: boolean;
}

export interface ApiWriteSite {
  sink: 'api';
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  acquire: AcquireSite;
  write: ApiWrite;
  fenced: boolean;
}

export type WriteSite = SqlWriteSite | KnexWriteSite | ObjectWriteSite | ApiWriteSite;

export interface FileAnalysis {
  acquires: AcquireSite[];
  /** Protected writes reached while a lock is held. */
  writes: WriteSite[];
  /** Every SQL call reached while a lock is held, reads included, in source order. */
  sqlCalls: Array<{ call: SqlCall; acquire: AcquireSite }>;
  /** Every call expression of the file, in source order. */
  calls: TSESTree.CallExpression[];
  /** Every tagged template of the file (postgres.js `sql` queries among them), in source order. */
  taggedTemplates: TSESTree.TaggedTemplateExpression[];
  tracer: TokenTracer;
  functions: FunctionIndex;
  receivers: ReceiverTable;
  tokenColumn: string;
  /** The acquire whose critical section `node` runs in, if any. */
  sectionOf(node: Node): AcquireSite | undefined;
}

/**
 * Words without which a file cannot hold a lock: lets most files skip the analysis entirely.
 * `lock`/`lease` must start a word or a camelCase part, so `block`, `clock` and `release` do not
 * count, and OAuth's `acquireToken` is no acquire.
 */
const LOCK_HINT = /acquire(?!Token)|(?<![A-Za-z])[lL]ock|(?<=[a-z0-9_])Lock|(?<![A-Za-z])[lL]ease|(?<=[a-z0-9_])Lease|LOCK|LEASE|[rR]edlock|mutex|Mutex|semaphore|Semaphore|\bNX\b|\bnx\s*:|setnx|setNX|advisory|fenc|Fenc/;
const MAX_CALL_DEPTH = 4;

const cache = new WeakMap<SourceCode, FileAnalysis>();

export function getFileAnalysis(context: Readonly<RuleContext<string, readonly unknown[]>>): FileAnalysis {
  const sourceCode = context.sourceCode;
  const cached = cache.get(sourceCode);
  if (cached) return cached;
  const analysis = analyzeFile(sourceCode, context.settings);
  cache.set(sourceCode, analysis);
  return analysis;
}

function bodyOf(fn: FunctionNode): TSESTree.Range {
  return fn.body.range;
}

export function analyzeFile(sourceCode: SourceCode, settings: unknown): FileAnalysis {
  const imports: ImportTable = new Map();
  const models = lockModels(settings);
  const receivers = new ReceiverTable(imports, models);
  const functions = new FunctionIndex();
  const tokenColumn = tokenColumnSetting(settings);
  const calls: TSESTree.CallExpression[] = [];
  const tagged: TSESTree.TaggedTemplateExpression[] = [];
  const constructed: TSESTree.NewExpression[] = [];
  const membersRead = new Map<string, Set<string>>();

  const empty = (): FileAnalysis => {
    const tracer = new TokenTracer(sourceCode, functions, []);
    return { acquires: [], writes: [], sqlCalls: [], calls, taggedTemplates: tagged, tracer, functions, receivers, tokenColumn, sectionOf: () => undefined };
  };
  if (!LOCK_HINT.test(sourceCode.text)) return empty();

  const ast = sourceCode.ast as TSESTree.Program;
  walk(ast, sourceCode.visitorKeys, (node) => {
    switch (node.type) {
      case AST_NODE_TYPES.ImportDeclaration:
      case AST_NODE_TYPES.TSImportEqualsDeclaration:
        recordImport(node, imports);
        break;
      case AST_NODE_TYPES.VariableDeclarator:
        recordImport(node, imports);
        receivers.record(node);
        functions.record(node);
        break;
      case AST_NODE_TYPES.AssignmentExpression:
      case AST_NODE_TYPES.TSParameterProperty:
        receivers.record(node);
        break;
      case AST_NODE_TYPES.PropertyDefinition:
        receivers.record(node);
        functions.record(node);
        break;
      case AST_NODE_TYPES.FunctionDeclaration:
      case AST_NODE_TYPES.FunctionExpression:
      case AST_NODE_TYPES.ArrowFunctionExpression:
        functions.record(node);
        if (node.type === AST_NODE_TYPES.FunctionDeclaration) receivers.record(node);
        for (const param of node.params) if (param.type === AST_NODE_TYPES.Identifier) receivers.record(param);
        break;
      case AST_NODE_TYPES.MethodDefinition:
        functions.record(node);
        receivers.record(node);
        break;
      case AST_NODE_TYPES.Property:
        functions.record(node);
        break;
      case AST_NODE_TYPES.ClassDeclaration:
      case AST_NODE_TYPES.ClassExpression:
        receivers.record(node);
        break;
      case AST_NODE_TYPES.CallExpression:
        calls.push(node);
        functions.record(node);
        receivers.record(node);
        break;
      case AST_NODE_TYPES.TaggedTemplateExpression:
        tagged.push(node);
        break;
      case AST_NODE_TYPES.NewExpression:
        constructed.push(node);
        break;
      case AST_NODE_TYPES.MemberExpression: {
        const key = receiverKey(node.object);
        const name = memberName(node);
        if (key && name) {
          const set = membersRead.get(key);
          if (set) set.add(name);
          else membersRead.set(key, new Set([name]));
        }
        break;
      }
      default:
        break;
    }
  });
  receivers.finish();
  receivers.typeResolver = typeResolverFor(sourceCode, (binding) => receivers.knows(binding));
  // Acquires are classified after the walk, so every receiver of the file is known by then.
  const acquires = findAcquires({ calls, receivers, sourceText: (n) => sourceCode.getText(n), membersRead, program: ast });
  if (acquires.length === 0) return empty();

  // Functions reached from each critical section: the section runs their bodies too.
  const reached = new Map<FunctionNode, AcquireSite>();
  for (const site of acquires) {
    const queue: Array<{ range: TSESTree.Range; depth: number }> = [{ range: site.range, depth: 0 }];
    while (queue.length > 0) {
      const { range, depth } = queue.shift()!;
      if (depth >= MAX_CALL_DEPTH) continue;
      for (const call of calls) {
        if (!contains(range, call)) continue;
        const fn = functions.callee(call);
        if (!fn || reached.has(fn) || contains(fn, site.node)) continue;
        reached.set(fn, site);
        queue.push({ range: bodyOf(fn), depth: depth + 1 });
      }
    }
  }

  const sectionOf = (node: Node): AcquireSite | undefined => {
    let best: AcquireSite | undefined;
    for (const site of acquires) {
      if (contains(site.range, node) && (!best || best.range[0] <= site.range[0])) best = site;
    }
    if (best) return best;
    for (const [fn, site] of reached) if (contains(bodyOf(fn), node)) return site;
    return undefined;
  };

  const tracer = new TokenTracer(sourceCode, functions, acquires, { imports });
  const text = (n: Node) => sourceCode.getText(n);
  const isTokenValue = (node: Node) => tracer.isToken(node);
  const judge = { isTokenValue, isNonTokenValue: (node: Node) => tracer.isNonToken(node) };
  const writes: WriteSite[] = [];
  const sqlCalls: FileAnalysis['sqlCalls'] = [];

  const candidates: Array<TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | TSESTree.NewExpression> = [...calls, ...tagged, ...constructed].sort(
    (a, b) => a.range[0] - b.range[0],
  );
  for (const node of candidates) {
    const acquire = sectionOf(node);
    if (!acquire) continue;
    if (node.type === AST_NODE_TYPES.CallExpression) {
      const knex = readKnexWrite(node, receivers);
      if (knex) {
        const verdict = judgeKnexWrite(knex, judge);
        writes.push({ sink: 'knex', node, acquire, write: knex, verdict, fenced: verdict.tokenCompared && verdict.tokenStored });
        continue;
      }
    }
    if (node.type !== AST_NODE_TYPES.TaggedTemplateExpression) {
      const write = readObjectWrite(node, receivers);
      if (write) {
        const verdict = judgeObjectWrite(write, judge);
        writes.push({ sink: 'object', node, acquire, write, verdict, fenced: verdict.tokenCompared && verdict.tokenStored });
        continue;
      }
      const api = readApiWrite(node, receivers, text);
      if (api && !(api.api === 'redis' && api.keyText === acquire.lockKeyText)) {
        writes.push({ sink: 'api', node, acquire, write: api, fenced: apiWriteFenced(api, isTokenValue, text) });
        continue;
      }
      if (node.type === AST_NODE_TYPES.NewExpression) continue;
    }
    const call = readSqlCall(node, sourceCode, receivers);
    if (!call) continue;
    sqlCalls.push({ call, acquire });
    const statements = call.source.analysis.statements.filter(isProtectedWrite);
    if (statements.length === 0) continue;
    const verdicts = statements.map((s) => judgeWrite(s, call, judge));
    const guarded = verdicts.every((v) => v.tokenCompared) || lockedByEarlierSelect(node, statements, sqlCalls);
    writes.push({ sink: 'sql', node, acquire, call, verdicts, fenced: guarded && verdicts.every((v) => v.tokenStored || !v.tokenCompared) });
  }
  return { acquires, writes, sqlCalls, calls, taggedTemplates: tagged, tracer, functions, receivers, tokenColumn, sectionOf };
}

/**
 * `SELECT ... FOR UPDATE` on the same table earlier in the same function: the row stays
 * locked until the transaction ends, so the check and the write are one step.
 */
function lockedByEarlierSelect(node: Node, statements: WriteVerdict['statement'][], earlier: FileAnalysis['sqlCalls']): boolean {
  const tables = new Set(statements.map((s) => s.table));
  return earlier.some(({ call }) =>
    call.node !== node &&
    call.node.range[1] <= node.range[0] &&
    sameFunction(call.node, node) &&
    call.source.analysis.statements.some((s) => s.kind === 'select' && s.forUpdate && (s.table === undefined || tables.has(s.table))),
  );
}

function sameFunction(a: Node, b: Node): boolean {
  const fa = enclosing(a);
  return fa !== undefined && fa === enclosing(b);
}

function enclosing(node: Node): Node | undefined {
  let current = node.parent;
  while (current && current.type !== AST_NODE_TYPES.FunctionDeclaration && current.type !== AST_NODE_TYPES.FunctionExpression && current.type !== AST_NODE_TYPES.ArrowFunctionExpression) current = current.parent;
  return current;
}
