/**
 * Summaries of a project module, taken from the same per-file pass that lints files (run in
 * summary mode on the module's own `SourceCode`), so whatever the local analysis knows about
 * locks, tokens and sinks, the summaries know too. For each exported function, class method
 * and member of an exported object: the lock it takes and how a caller holds it, the releases
 * it makes, the writes it makes outside a lock of its own (and which arguments reach their
 * condition), and whether it returns a fence token.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { Scope, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, enclosingFunction, isFunctionNode, memberName, propertyKeyName, propertyValue, receiverPath, staticString, unwrap, walk, type FunctionNode, type Node } from './ast.js';
import type { FileAnalysis, WriteReading } from './file-analysis.js';
import { releasedInPlace, type AcquireSite } from './locks/acquires.js';
import { CUSTOM_ADVICE, GENERIC_RELEASE_METHOD, LOCAL_LOCK_PACKAGES } from './models/locks.js';
import { isMetadataLockDecorator } from './locks/metadata-lock-decorators.js';
import { isHandleTokenName, isStrongTokenName } from './models/token-names.js';
import type { ModuleBuilder, ProjectView } from './modules/module-graph.js';
import { receiverKey, type ReceiverKind, type ReceiverTable } from './modules/receivers.js';
import { readSetNx } from './locks/redis-locks.js';
import { loopComposedCallback } from './locks/loop-composed-locks.js';
import { builderChain, contextModelOf, contextTypeOf, returnTypeOfFunction } from './modules/request-contexts.js';
import { inSection, sectionRanges } from './locks/untaken-branches.js';
import { recordReceiver } from './sinks/record-writes.js';
import { writesClaimedRows } from './locks/row-claims.js';
import { readsRowForWrite, rowLockedInCallback } from './locks/transaction-row-locks.js';
import { callPicksClaimed, claimsAmong, readingPicksClaimed, type CheckedClaim } from './claim-ownership.js';
import { readSqlCall } from './sinks/sql-writes.js';
import { objectWriteTable, readObjectWrite } from './sinks/object-writes.js';
import { isLockTable } from './models/lock-tables.js';
import { insertedRecords, isInsertResult, readsInserted, type InsertedRecordInput } from './sinks/inserted-records.js';
import { recordKeysOf } from './record-keys.js';
import { heldOnOwnConnection } from './locks/advisory-scope.js';
import { abortCheckOf, mentionsAbort } from './locks/abort-checks.js';
import { isConstantFlagValue, redisContent, redisFlagValue } from './sinks/api-writes.js';
import { UnlockedReach } from './modules/unlocked-reach.js';
import { BUILT_FROM, directParam, keyArgument, NAMED_BY, paramProperty, paramSources, SAME_VALUE } from './modules/param-sources.js';
import { literalsRuleOut, omitsArgument, parameterPolarity, parametersRequiredFor } from './modules/optional-arguments.js';
import { isIoParameter } from './modules/io-parameters.js';
import { mergeImplementations, type AcquireSummary, type ExportSummary, type FunctionSummary, type ModuleSummary, type ReleaseSummary, type SourceLocation, type WriteSummary } from './modules/summaries.js';

/** How many writes one summary lists: enough to judge a call, bounded for odd code. */
const MAX_WRITES = 16;
/** How far an export is followed through the names and members it is built from (`export default x`, `const a = b`). */
const MAX_HOPS = 6;
const CALLBACK_PARAM = /^(?:fn|cb|callback|task|work|worker|handler|body|action|run|f|exec|execute|job|op|operation|critical|criticalSection|func|thunk|doWork|onLocked)$/i;
const RELEASE_FUNCTION = /release|unlock|free|drop|clear/i;
const ACQUIRE_FUNCTION = /^(?:acquire|lock|take|obtain|claim|grab|hold|try(?:Acquire|Lock|Take|Claim))/i;
const NAME_RELEASE_METHOD = /^(?:del|unlink|eval|evalsha|evalSha|fcall|hdel)$/i;
/** Deletes that compare nothing (a script or a `DELETE ... WHERE owner` may). */
const PLAIN_DELETE = /^(?:del|unlink)(?:Async)?$/i;
const ADVISORY_UNLOCK = /\bpg_advisory_unlock(?:_all|_shared)?\s*\(/i;
/** Ending a lease kept as a row: `DELETE FROM leases WHERE ...`. */
const LEASE_ROW_DELETE = /^\s*delete\s+from\s+(?:"?\w+"?\.)?"?\w*(?:locks?|leases?|mutex(?:es)?)"?\s/i;

/** Where a lock key comes from among a function's parameters (see `AcquireSummary.keyArg`, `keyArgs`). */
type KeyParams = Pick<AcquireSummary, 'keyArg' | 'keyProperty' | 'keyArgs' | 'keyExact'>;

type Target =
  | { kind: 'node'; node: Node }
  | { kind: 'reexport'; file: string; name: string }
  | { kind: 'value' };

export function buildModuleSummary(sourceCode: SourceCode, file: string, hash: string, view: ProjectView, analyze: (view: ProjectView) => FileAnalysis): ModuleBuilder {
  return new ModuleSummarizer(sourceCode, file, hash, view, analyze);
}

/**
 * Summaries of the linted file's own lock helpers (`shouldRun()` that takes `SET NX` and
 * returns, `wrapWithLock(fn)`), from a first pass over the file: what they lock, for the
 * second pass to read their calls as acquires. Writes are not summarised here: the file's
 * own pass reads them where they are.
 */
export function localLockSummaries(analysis: FileAnalysis, sourceCode: SourceCode, file: string): (fn: FunctionNode) => FunctionSummary {
  const summarizer = new ModuleSummarizer(sourceCode, file, '', undefined, () => analysis, true);
  return (fn) => summarizer.functionSummary(fn);
}

/** Listener registrations: the handler runs on a later event, not during the call. */
const LISTENER_METHOD = /^(?:on|once|addListener|addEventListener|prependListener|prependOnceListener)$/;

/**
 * Whether `node` sits in a function that `fn` only defines for later: a method it attaches to an
 * object (`client.setJson = async (...) => client.setex(...)` in a client factory), a listener it
 * registers (`client.on('error', ...)`) or a function it hands to a constructor, also as a member
 * of an options object (`new Proxy(target, { get: ... })`). Such writes are the attached method's,
 * not `fn`'s.
 */
function definedNotRun(node: Node, fn: FunctionNode): boolean {
  for (let inner = enclosingFunction(node); inner && inner !== fn; inner = enclosingFunction(inner)) {
    const parent = inner.parent;
    if (parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.right === inner && parent.left.type === AST_NODE_TYPES.MemberExpression) return true;
    if (parent?.type === AST_NODE_TYPES.CallExpression && parent.arguments.includes(inner as TSESTree.CallExpressionArgument) && LISTENER_METHOD.test(calleeName(parent) ?? '')) return true;
    // `new ChatSession(state, async (s) => this.save(s))`, `new Proxy({}, { get: () => ... })`: an
    // object keeps the function for its own later use (a promise's executor is the exception: it runs at once).
    const handed = handedIn(inner);
    if (handed.parent?.type === AST_NODE_TYPES.NewExpression && handed.parent.arguments.includes(handed as TSESTree.CallExpressionArgument) && calleeName(handed.parent) !== 'Promise') return true;
  }
  return false;
}

/** The argument a function is handed in as: itself, or the object literal (nested or not) it is a member of. */
function handedIn(inner: Node): Node {
  let current = inner;
  while (current.parent?.type === AST_NODE_TYPES.Property && current.parent.value === current && current.parent.parent?.type === AST_NODE_TYPES.ObjectExpression) current = current.parent.parent;
  return current;
}

/**
 * `return new Promise((resolve) => { ...; resolve(); })`: a callback API wrapped so the caller can
 * wait for it, resolving to nothing. The caller gets no handle or answer back from it.
 */
function resolvesToNothing(node: Node, visitorKeys: SourceCode.VisitorKeys): boolean {
  const n = unwrap(node);
  if (n.type !== AST_NODE_TYPES.NewExpression || n.callee.type !== AST_NODE_TYPES.Identifier || n.callee.name !== 'Promise') return false;
  const executor = n.arguments[0];
  const resolve = executor && isFunctionNode(executor) ? executor.params[0] : undefined;
  if (!executor || resolve?.type !== AST_NODE_TYPES.Identifier) return false;
  let valued = false;
  walk(executor, visitorKeys, (inner) => {
    if (inner.type === AST_NODE_TYPES.CallExpression && inner.callee.type === AST_NODE_TYPES.Identifier && inner.callee.name === resolve.name && inner.arguments.length > 0) valued = true;
  });
  return !valued;
}

/** Whether `name` is the parameter `param` itself (`fn`, `fn = noop`, `fn: () => void`), not a name destructured from it. */
function isWholeParam(param: TSESTree.Parameter | undefined, name: Node): boolean {
  let p: Node | undefined = param;
  if (p?.type === AST_NODE_TYPES.TSParameterProperty) p = p.parameter;
  if (p?.type === AST_NODE_TYPES.AssignmentPattern) p = p.left;
  const n = unwrap(name);
  return p?.type === AST_NODE_TYPES.Identifier && n.type === AST_NODE_TYPES.Identifier && p.name === n.name;
}

/** `null`, `undefined`, `false`, `0`, `''`: a return that says "nothing", as a failed acquire does. */
function isNoValue(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) return n.name === 'undefined';
  return n.type === AST_NODE_TYPES.Literal && !n.value;
}

function locationOf(file: string, node: Node): SourceLocation {
  return { file, line: node.loc.start.line, column: node.loc.start.column, endLine: node.loc.end.line, endColumn: node.loc.end.column };
}

function paramName(param: TSESTree.Parameter): string {
  const p = param.type === AST_NODE_TYPES.TSParameterProperty ? param.parameter : param;
  const inner = p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p;
  if (inner.type === AST_NODE_TYPES.Identifier) return inner.name;
  if (inner.type === AST_NODE_TYPES.RestElement && inner.argument.type === AST_NODE_TYPES.Identifier) return `...${inner.argument.name}`;
  return '{…}';
}

/** How messages name a write: `` `UPDATE accounts` ``, `` `prisma.account.update` `` (the callee, without the calls on the way). */
export function writeLabelOf(reading: WriteReading | { sink: 'call'; node: TSESTree.CallExpression | TSESTree.NewExpression }, sourceCode: SourceCode): string {
  if (reading.sink === 'sql') {
    const statement = reading.verdicts.find((v) => !v.tokenCompared)?.statement ?? reading.verdicts[0]?.statement;
    if (statement) return `\`${statement.kind.toUpperCase()}${statement.table ? ` ${statement.table}` : ''}\``;
  }
  if (reading.sink === 'knex') return `\`${reading.write.kind.toUpperCase()}${reading.write.table ? ` ${reading.write.table}` : ''}\``;
  const callee = reading.node.type === AST_NODE_TYPES.TaggedTemplateExpression ? reading.node.tag : reading.node.callee;
  const text = sourceCode.getText(callee).replace(/\s+/g, '').replace(/\((?:[^()]|\([^()]*\))*\)/g, '()');
  return `\`${text.length > 40 ? `…${text.slice(-39)}` : text}\``;
}

class ModuleSummarizer implements ModuleBuilder {
  readonly starExports: string[] = [];
  private readonly targets = new Map<string, Target>();
  /** Top-level declarations by name. */
  private readonly locals = new Map<string, Node>();
  private analysis: FileAnalysis | undefined;
  private analyzing = false;
  private readonly exportMemo = new Map<string, ExportSummary | undefined>();
  /** null while a function is being summarised (recursion). */
  private readonly functionMemo = new Map<FunctionNode, FunctionSummary | null>();
  /** Functions whose summary hit recursion or an import cycle somewhere below. */
  private readonly partialFunctions = new Set<FunctionNode>();

  private readonly view: ProjectView;

  constructor(
    private readonly sourceCode: SourceCode,
    private readonly file: string,
    private readonly hash: string,
    view: ProjectView | undefined,
    private readonly analyze: (view: ProjectView) => FileAnalysis,
    /** Summarise locks only (the linted file's own helpers): no exports, no writes. */
    private readonly locksOnly = false,
  ) {
    // Without a view nothing here follows an import: only `locksOnly` summaries are asked for.
    this.view = view as ProjectView;
    if (locksOnly) return;
    this.collectLocals();
    this.collectExports();
  }

  /** The summary of one function of this file. */
  functionSummary(fn: FunctionNode): FunctionSummary {
    return this.summarizeFunction(fn, this.functionName(fn));
  }

  private get ast(): TSESTree.Program {
    return this.sourceCode.ast as TSESTree.Program;
  }

  private collectLocals(): void {
    for (const statement of this.ast.body) {
      const decl = statement.type === AST_NODE_TYPES.ExportNamedDeclaration || statement.type === AST_NODE_TYPES.ExportDefaultDeclaration ? statement.declaration : statement;
      if (!decl) continue;
      if ((decl.type === AST_NODE_TYPES.FunctionDeclaration || decl.type === AST_NODE_TYPES.ClassDeclaration) && decl.id) this.locals.set(decl.id.name, decl);
      else if (decl.type === AST_NODE_TYPES.TSTypeAliasDeclaration || decl.type === AST_NODE_TYPES.TSInterfaceDeclaration) {
        if (!this.locals.has(decl.id.name)) this.locals.set(decl.id.name, decl);
      } else if (decl.type === AST_NODE_TYPES.VariableDeclaration) {
        for (const d of decl.declarations) if (d.id.type === AST_NODE_TYPES.Identifier) this.locals.set(d.id.name, d);
      } else if (decl.type === AST_NODE_TYPES.ImportDeclaration) {
        for (const spec of decl.specifiers) this.locals.set(spec.local.name, spec);
      }
    }
  }

  /** What a top-level name stands for: a declaration, or another module's export it imports. */
  private localTarget(name: string): Target {
    const decl = this.locals.get(name);
    if (!decl) return { kind: 'value' };
    if (decl.type === AST_NODE_TYPES.ImportSpecifier || decl.type === AST_NODE_TYPES.ImportDefaultSpecifier || decl.type === AST_NODE_TYPES.ImportNamespaceSpecifier) {
      const source = (decl.parent as TSESTree.ImportDeclaration).source.value;
      const file = this.view.resolve(source);
      if (!file || decl.type === AST_NODE_TYPES.ImportNamespaceSpecifier) return { kind: 'value' };
      const imported = decl.type === AST_NODE_TYPES.ImportDefaultSpecifier ? 'default' : decl.imported.type === AST_NODE_TYPES.Identifier ? decl.imported.name : String(decl.imported.value);
      return { kind: 'reexport', file, name: imported };
    }
    if (decl.type === AST_NODE_TYPES.VariableDeclarator) {
      if (!decl.init) {
        // `let store: Store;` set later (`store = cond ? ... : ...`, `if (pg) store = new PgStore(...)`): the first instance it is given.
        const assigned = decl.id.type === AST_NODE_TYPES.Identifier ? this.firstConstructedInto(decl.id.name) : undefined;
        return assigned ? { kind: 'node', node: assigned } : { kind: 'value' };
      }
      // `const { withLock } = require('./lock')` is not followed; `const x = require('./y')` re-exports y.
      const init = unwrap(decl.init);
      if (init.type === AST_NODE_TYPES.CallExpression && init.callee.type === AST_NODE_TYPES.Identifier && init.callee.name === 'require') {
        const source = init.arguments[0] && staticString(init.arguments[0]);
        const file = source !== undefined ? this.view.resolve(source) : undefined;
        return file ? { kind: 'reexport', file, name: 'module.exports' } : { kind: 'value' };
      }
      return { kind: 'node', node: init };
    }
    return { kind: 'node', node: decl };
  }

  /** The first `name = new X(...)` in the module (at its top or in a function), for a variable declared without a value. */
  private firstConstructedInto(name: string): TSESTree.NewExpression | undefined {
    let found: TSESTree.NewExpression | undefined;
    walk(this.ast, this.sourceCode.visitorKeys, (node) => {
      if (found || node.type !== AST_NODE_TYPES.AssignmentExpression || node.operator !== '=') return;
      const right = unwrap(node.right);
      if (node.left.type === AST_NODE_TYPES.Identifier && node.left.name === name && right.type === AST_NODE_TYPES.NewExpression) found = right;
    });
    return found;
  }

  private targetOfExpression(node: Node): Target {
    const n = unwrap(node);
    if (n.type === AST_NODE_TYPES.Identifier) return this.localTarget(n.name);
    // `{ intervalScheduler: require('./intervalScheduler') }`: another module's exports, as a member.
    const required = this.requiredFile(n);
    if (required !== null) return required ? { kind: 'reexport', file: required, name: 'module.exports' } : { kind: 'value' };
    return { kind: 'node', node: n };
  }

  /** The module a `require('./x')` call loads (undefined when it does not resolve); null for anything else. */
  private requiredFile(node: Node): string | undefined | null {
    if (node.type !== AST_NODE_TYPES.CallExpression || node.callee.type !== AST_NODE_TYPES.Identifier || node.callee.name !== 'require') return null;
    const source = node.arguments[0] && staticString(node.arguments[0]);
    return source !== undefined ? this.view.resolve(source) : undefined;
  }

  private collectExports(): void {
    for (const statement of this.ast.body) {
      switch (statement.type) {
        case AST_NODE_TYPES.ExportNamedDeclaration: {
          const decl = statement.declaration;
          if (decl) {
            if ((decl.type === AST_NODE_TYPES.FunctionDeclaration || decl.type === AST_NODE_TYPES.ClassDeclaration) && decl.id) this.targets.set(decl.id.name, { kind: 'node', node: decl });
            else if (decl.type === AST_NODE_TYPES.TSTypeAliasDeclaration || decl.type === AST_NODE_TYPES.TSInterfaceDeclaration) this.targets.set(decl.id.name, { kind: 'node', node: decl });
            else if (decl.type === AST_NODE_TYPES.VariableDeclaration) {
              for (const d of decl.declarations) if (d.id.type === AST_NODE_TYPES.Identifier) this.targets.set(d.id.name, d.init ? this.targetOfExpression(d.init) : { kind: 'value' });
            }
            break;
          }
          const from = statement.source ? this.view.resolve(statement.source.value) : undefined;
          for (const spec of statement.specifiers) {
            const local = spec.local.type === AST_NODE_TYPES.Identifier ? spec.local.name : String((spec.local as TSESTree.Literal).value);
            const exported = spec.exported.type === AST_NODE_TYPES.Identifier ? spec.exported.name : String(spec.exported.value);
            if (statement.source) this.targets.set(exported, from ? { kind: 'reexport', file: from, name: local } : { kind: 'value' });
            else this.targets.set(exported, this.localTarget(local));
          }
          break;
        }
        case AST_NODE_TYPES.ExportAllDeclaration: {
          const from = this.view.resolve(statement.source.value);
          if (statement.exported) {
            const exported = statement.exported as TSESTree.Identifier | TSESTree.StringLiteral;
            const name = exported.type === AST_NODE_TYPES.Identifier ? exported.name : String(exported.value);
            this.targets.set(name, from ? { kind: 'reexport', file: from, name: '*' } : { kind: 'value' });
          } else if (from) this.starExports.push(from);
          break;
        }
        case AST_NODE_TYPES.ExportDefaultDeclaration: {
          const decl = statement.declaration;
          this.targets.set('default', decl.type === AST_NODE_TYPES.FunctionDeclaration || decl.type === AST_NODE_TYPES.ClassDeclaration ? { kind: 'node', node: decl } : this.targetOfExpression(decl));
          break;
        }
        case AST_NODE_TYPES.TSExportAssignment:
          this.targets.set('default', this.targetOfExpression(statement.expression));
          this.targets.set('module.exports', this.targetOfExpression(statement.expression));
          break;
        case AST_NODE_TYPES.ExpressionStatement:
          this.collectCommonJsExport(statement.expression);
          break;
        default:
          break;
      }
    }
  }

  /** `module.exports = { a, b }`, `module.exports = fn`, `module.exports.a = ...`, `exports.a = ...`. */
  private collectCommonJsExport(expression: TSESTree.Expression): void {
    if (expression.type !== AST_NODE_TYPES.AssignmentExpression || expression.operator !== '=') return;
    const left = expression.left;
    if (left.type !== AST_NODE_TYPES.MemberExpression) return;
    const name = memberName(left);
    const object = left.object;
    const isModuleExports = (n: Node) => n.type === AST_NODE_TYPES.MemberExpression && n.object.type === AST_NODE_TYPES.Identifier && n.object.name === 'module' && memberName(n) === 'exports';
    if (isModuleExports(left)) {
      const right = unwrap(expression.right);
      this.targets.set('default', this.targetOfExpression(right));
      this.targets.set('module.exports', this.targetOfExpression(right));
      if (right.type === AST_NODE_TYPES.ObjectExpression) {
        for (const p of right.properties) {
          // `module.exports = { ...require('./lib') }`: that module's exports are this one's.
          if (p.type === AST_NODE_TYPES.SpreadElement) {
            const required = this.requiredFile(unwrap(p.argument));
            if (required) this.starExports.push(required);
            continue;
          }
          if (p.type !== AST_NODE_TYPES.Property) continue;
          const key = propertyKeyName(p);
          if (key) this.targets.set(key, this.targetOfExpression(p.value));
        }
      }
      return;
    }
    if (name && (isModuleExports(object) || (object.type === AST_NODE_TYPES.Identifier && object.name === 'exports'))) {
      this.targets.set(name, this.targetOfExpression(expression.right));
    }
  }

  /** The module's own analysis, run once; undefined while it runs (a cycle asked from below). */
  private getAnalysis(): FileAnalysis | undefined {
    if (this.analysis) return this.analysis;
    if (this.analyzing) return undefined;
    this.analyzing = true;
    try {
      this.analysis = this.analyze(this.view);
    } finally {
      this.analyzing = false;
    }
    return this.analysis;
  }

  exportSummary(name: string): ExportSummary | undefined {
    if (this.exportMemo.has(name)) return this.exportMemo.get(name);
    const target = this.targets.get(name);
    if (!target) return undefined;
    if (target.kind === 'reexport') return { kind: 'reexport', file: target.file, name: target.name };
    if (target.kind === 'value') return { kind: 'value' };
    if (!this.getAnalysis()) return undefined;
    const summary = this.summarizeNode(target.node, name, 0);
    this.exportMemo.set(name, summary);
    return summary;
  }

  finish(): ModuleSummary {
    const exports = new Map<string, ExportSummary>();
    for (const name of this.targets.keys()) {
      const summary = this.exportSummary(name);
      if (summary) exports.set(name, summary);
    }
    return { file: this.file, hash: this.hash, exports, starExports: this.starExports };
  }

  private summarizeNode(node: Node, name: string, depth: number): ExportSummary {
    const n = unwrap(node);
    if (depth > MAX_HOPS) return { kind: 'value' };
    if (n.type === AST_NODE_TYPES.Identifier) {
      const target = this.localTarget(n.name);
      if (target.kind === 'node') return this.summarizeNode(target.node, name, depth + 1);
      return target.kind === 'reexport' ? { kind: 'reexport', file: target.file, name: target.name } : this.valueOf(n);
    }
    if (isFunctionNode(n)) {
      const fn = this.summarizeFunction(n, name);
      const instance = this.instanceReturnedBy(n, depth);
      return { kind: 'function', fn: instance ? { ...fn, returnsInstance: instance } : fn };
    }
    // A memoising wrapper around a factory (`once(() => new Store())`, `memoize(...)`): calling it hands out the instance.
    if (n.type === AST_NODE_TYPES.CallExpression && n.arguments.length === 1 && isFunctionNode(n.arguments[0])) {
      const instance = this.instanceReturnedBy(n.arguments[0], depth);
      if (instance) return { kind: 'function', fn: { name, at: locationOf(this.file, n), params: [], releases: [], writes: [], partial: false, returnsInstance: instance } };
    }
    // A request-context framework's builder (`trpc.procedure.use(...)`): the context its handlers get.
    if (n.type === AST_NODE_TYPES.CallExpression || n.type === AST_NODE_TYPES.MemberExpression) {
      const requestContext = this.requestContextOf(n, depth);
      if (requestContext) return { kind: 'value', requestContext };
    }
    if (n.type === AST_NODE_TYPES.ClassDeclaration || n.type === AST_NODE_TYPES.ClassExpression) return this.summarizeClass(n, name);
    if (n.type === AST_NODE_TYPES.TSTypeAliasDeclaration || n.type === AST_NODE_TYPES.TSInterfaceDeclaration) return this.summarizeObjectType(n, depth);
    if (n.type === AST_NODE_TYPES.NewExpression) {
      const cls = unwrap(n.callee);
      if (cls.type === AST_NODE_TYPES.Identifier) {
        const target = this.localTarget(cls.name);
        let summary: ExportSummary | undefined;
        if (target.kind === 'node') summary = this.summarizeNode(target.node, cls.name, depth + 1);
        else if (target.kind === 'reexport') summary = this.view.exportOf(target.file, target.name);
        if (summary?.kind === 'class') return { kind: 'object', members: summary.methods };
      }
      return this.valueOf(n);
    }
    if (n.type === AST_NODE_TYPES.ObjectExpression) {
      const members = new Map<string, FunctionSummary>();
      const values = new Map<string, ExportSummary>();
      for (const p of n.properties) {
        if (p.type !== AST_NODE_TYPES.Property) continue;
        const key = propertyKeyName(p);
        if (!key) continue;
        let inner = this.summarizeNode(p.value, `${name}.${key}`, depth + 1);
        if (inner.kind === 'reexport') inner = this.view.exportOf(inner.file, inner.name) ?? { kind: 'value' };
        if (inner.kind === 'function') members.set(key, inner.fn);
        else values.set(key, inner);
      }
      return { kind: 'object', members, values };
    }
    return this.valueOf(n);
  }

  /**
   * The context a builder chain hands its handlers (`modules/request-contexts.ts`): made here by the
   * framework's context call, whose type argument names the context, or kept from the chain's root.
   */
  private requestContextOf(node: Node, depth: number): ExportSummary | undefined {
    const chain = builderChain(node);
    // Only a chain that builds (`.procedure`, `.use(...)`) or makes the context: other exports cost nothing here.
    if (!chain || depth > MAX_HOPS || !(chain.contextCall || chain.builder)) return undefined;
    if (chain.contextCall) {
      const decl = this.locals.get(chain.root.name);
      if (decl?.type !== AST_NODE_TYPES.ImportSpecifier) return undefined;
      const imported = decl.imported.type === AST_NODE_TYPES.Identifier ? decl.imported.name : String(decl.imported.value);
      if (!contextModelOf(chain.contextCall, imported, (decl.parent as TSESTree.ImportDeclaration).source.value)) return undefined;
      return this.contextOfType(contextTypeOf(chain.contextCall), depth + 1);
    }
    // The root: another module's export, or a builder chain of this module (`const t = initTRPC...`);
    // read from the tree, so a root that is no builder costs no summary of its own.
    const target = this.localTarget(chain.root.name);
    if (target.kind === 'reexport') {
      const root = this.view.exportOf(target.file, target.name);
      return root?.kind === 'value' ? root.requestContext : undefined;
    }
    const init = target.kind === 'node' ? unwrap(target.node) : undefined;
    return init && (init.type === AST_NODE_TYPES.CallExpression || init.type === AST_NODE_TYPES.MemberExpression) ? this.requestContextOf(init, depth + 1) : undefined;
  }

  /** The object a context type names: `Awaited<ReturnType<typeof createContext>>` inline, or a type alias of it, here or imported. */
  private contextOfType(type: TSESTree.TypeNode | undefined, depth: number): ExportSummary | undefined {
    if (!type || depth > MAX_HOPS) return undefined;
    const factory = returnTypeOfFunction(type);
    if (factory) return this.objectReturnedBy(factory, depth + 1);
    if (type.type !== AST_NODE_TYPES.TSTypeReference || type.typeName.type !== AST_NODE_TYPES.Identifier) return undefined;
    const target = this.localTarget(type.typeName.name);
    const found = target.kind === 'reexport' ? this.view.exportOf(target.file, target.name) : target.kind === 'node' ? this.summarizeNode(target.node, type.typeName.name, depth + 1) : undefined;
    return found?.kind === 'object' ? found : undefined;
  }

  /** The object literal a same-module function returns (`createContext` returning `{ db, usingLocks }`), as an object. */
  private objectReturnedBy(name: string, depth: number): ExportSummary | undefined {
    const target = this.localTarget(name);
    const fn = target.kind === 'node' ? unwrap(target.node) : undefined;
    if (!fn || !isFunctionNode(fn)) return undefined;
    const returns = this.returnsOf(fn).map((r) => unwrap(r));
    if (returns.length !== 1 || returns[0].type !== AST_NODE_TYPES.ObjectExpression) return undefined;
    const summary = this.summarizeNode(returns[0], `${name}()`, depth + 1);
    if (summary.kind !== 'object') return undefined;
    // A member made by a factory call (`store: getStore()` with `getStore = once(() => new Store())`): that instance.
    for (const p of returns[0].properties) {
      const key = p.type === AST_NODE_TYPES.Property ? propertyKeyName(p) : undefined;
      const value = p.type === AST_NODE_TYPES.Property ? unwrap(p.value) : undefined;
      if (!key || value?.type !== AST_NODE_TYPES.CallExpression || unwrap(value.callee).type !== AST_NODE_TYPES.Identifier) continue;
      let factory = this.summarizeNode(value.callee, key, depth + 1);
      if (factory.kind === 'reexport') factory = this.view.exportOf(factory.file, factory.name) ?? { kind: 'value' };
      if (factory.kind === 'function' && factory.fn.returnsInstance) (summary.values ??= new Map()).set(key, factory.fn.returnsInstance);
    }
    return summary;
  }

  /** The instance of a project class a function returns on its every path (`return new Store(...)`), as that instance. */
  private instanceReturnedBy(fn: FunctionNode, depth: number): ExportSummary | undefined {
    const returns = this.returnsOf(fn);
    if (returns.length === 0 || !returns.every((r) => unwrap(r).type === AST_NODE_TYPES.NewExpression)) return undefined;
    const made = new Set(returns.map((r) => this.sourceCode.getText((unwrap(r) as TSESTree.NewExpression).callee)));
    if (made.size !== 1) return undefined;
    const instance = this.summarizeNode(returns[0], `${this.functionName(fn)}()`, depth + 1);
    return instance.kind === 'object' && instance.members.size > 0 ? instance : undefined;
  }

  /**
   * A type that bundles services (`type Resources = { locker: JobLocker; store: JobStore }`,
   * handed to classes as one dependency object): each property typed as a class of the project
   * is an instance of it, so `this.$.locker.lock(...)` reaches the class's method.
   */
  private summarizeObjectType(node: TSESTree.TSTypeAliasDeclaration | TSESTree.TSInterfaceDeclaration, depth: number): ExportSummary {
    // `export type Context = Awaited<ReturnType<typeof createContext>>`: the object that function returns.
    const factory = node.type === AST_NODE_TYPES.TSTypeAliasDeclaration ? returnTypeOfFunction(node.typeAnnotation) : undefined;
    const returned = factory ? this.objectReturnedBy(factory, depth + 1) : undefined;
    if (returned) return returned;
    // `export type RedisClient = RedisClientType<...>`: a name for a client's type, as a typed value of it.
    if (node.type === AST_NODE_TYPES.TSTypeAliasDeclaration && node.typeAnnotation.type !== AST_NODE_TYPES.TSTypeLiteral) {
      const receiver = this.getAnalysis()?.receivers.kindOfType(node.typeAnnotation);
      if (receiver) return { kind: 'value', receiver };
    }
    const values = new Map<string, ExportSummary>();
    const body = node.type === AST_NODE_TYPES.TSInterfaceDeclaration ? node.body.body : node.typeAnnotation.type === AST_NODE_TYPES.TSTypeLiteral ? node.typeAnnotation.members : [];
    for (const member of body) {
      if (member.type !== AST_NODE_TYPES.TSPropertySignature || member.computed || member.key.type !== AST_NODE_TYPES.Identifier) continue;
      const type = member.typeAnnotation?.typeAnnotation;
      if (type?.type !== AST_NODE_TYPES.TSTypeReference || type.typeName.type !== AST_NODE_TYPES.Identifier) continue;
      const target = this.localTarget(type.typeName.name);
      let found = target.kind === 'reexport' ? this.view.exportOf(target.file, target.name) : target.kind === 'node' ? this.summarizeNode(target.node, type.typeName.name, depth + 1) : undefined;
      if (found?.kind === 'object' && found.interfaceName) {
        found = (target.kind === 'reexport' ? this.view.implementationOf(target.file, found.interfaceName, found.methodNames) : this.localImplementationOf(found.interfaceName, depth)) ?? found;
      }
      const instance = found?.kind === 'class' ? { kind: 'object' as const, members: found.methods } : found?.kind === 'object' ? found : undefined;
      if (instance) values.set(member.key.name, instance);
    }
    if (node.type !== AST_NODE_TYPES.TSInterfaceDeclaration) return { kind: 'object', members: new Map(), values };
    const methodNames = body.flatMap((member) => {
      const method = member.type === AST_NODE_TYPES.TSMethodSignature || (member.type === AST_NODE_TYPES.TSPropertySignature && member.typeAnnotation?.typeAnnotation.type === AST_NODE_TYPES.TSFunctionType);
      return method && !member.computed && member.key.type === AST_NODE_TYPES.Identifier ? [member.key.name] : [];
    });
    return { kind: 'object', members: new Map(), values, interfaceName: node.id.name, methodNames };
  }

  /** The classes of this module that implement interface `name`, as one instance. */
  private localImplementationOf(name: string, depth: number): ExportSummary | undefined {
    const classes: ExportSummary[] = [];
    for (const [local, decl] of this.locals) {
      if (decl.type !== AST_NODE_TYPES.ClassDeclaration || !(decl.implements ?? []).some((i) => i.expression.type === AST_NODE_TYPES.Identifier && i.expression.name === name)) continue;
      classes.push(this.summarizeNode(decl, local, depth + 1));
    }
    return mergeImplementations(classes);
  }

  /** A value export: a client or lock authority it creates, when the receiver table knows it. */
  private valueOf(node: Node): ExportSummary {
    const receiver = this.getAnalysis()?.receivers.kindOf(node);
    return receiver ? { kind: 'value', receiver } : { kind: 'value' };
  }

  private summarizeClass(node: TSESTree.ClassDeclaration | TSESTree.ClassExpression, exportName: string): ExportSummary {
    const className = node.id?.name ?? exportName;
    const statics = new Map<string, FunctionSummary>();
    const methods = new Map<string, FunctionSummary>();
    const inProcessLocks = new Set(this.inProcessLockFields(node));
    let inheritedConstruct: FunctionSummary | undefined;
    let inheritedFields: Map<string, ReceiverKind> | undefined;
    // Methods of an imported base class, overridden by the class's own.
    if (node.superClass) {
      const base = unwrap(node.superClass);
      if (base.type === AST_NODE_TYPES.Identifier) {
        const target = this.localTarget(base.name);
        const inherited = target.kind === 'reexport' ? this.view.exportOf(target.file, target.name) : target.kind === 'node' ? this.summarizeNode(target.node, base.name, 1) : undefined;
        if (inherited?.kind === 'class') {
          for (const [k, v] of inherited.methods) methods.set(k, v);
          for (const [k, v] of inherited.statics) statics.set(k, v);
          for (const f of inherited.inProcessLocks ?? []) inProcessLocks.add(f);
          inheritedConstruct = inherited.construct;
          inheritedFields = inherited.fieldReceivers;
        }
      }
    }
    for (const member of node.body.body) {
      if (member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition) continue;
      if (member.type === AST_NODE_TYPES.MethodDefinition && member.kind !== 'method') continue;
      const key = propertyKeyName(member);
      const value = member.value && unwrap(member.value);
      if (!key || !value || !isFunctionNode(value)) continue;
      const summary = this.summarizeFunction(value, `${className}.${key}`);
      (member.static ? statics : methods).set(key, summary);
    }
    // `Redis.defaultClient` read off the class by a caller: the receiver table knows static members as `Class.member`.
    const staticReceivers = new Map<string, ReceiverKind>();
    const receivers = node.id ? this.getAnalysis()?.receivers : undefined;
    for (const member of node.body.body) {
      if ((member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition) || !member.static) continue;
      if (member.type === AST_NODE_TYPES.MethodDefinition && member.kind !== 'get') continue;
      const key = propertyKeyName(member);
      const kind = key && receivers?.get(`${className}.${key}`);
      if (key && kind) staticReceivers.set(key, kind);
    }
    const ctor = node.body.body.find((m): m is TSESTree.MethodDefinition => m.type === AST_NODE_TYPES.MethodDefinition && m.kind === 'constructor');
    const fieldReceivers = new Map([...(inheritedFields ?? []), ...this.fieldReceivers(node, ctor, this.getAnalysis()?.receivers)]);
    // A class without a constructor of its own is built by its base's.
    const construct = ctor ? this.constructorSummary(node, ctor.value, className) : inheritedConstruct;
    const implemented = (node.implements ?? []).flatMap((i) => (i.expression.type === AST_NODE_TYPES.Identifier ? [i.expression.name] : []));
    const fieldInstances = this.fieldInstances(node, ctor);
    return { kind: 'class', name: className, statics, methods, inProcessLocks: [...inProcessLocks], implements: implemented, ...(staticReceivers.size > 0 ? { staticReceivers } : {}), ...(fieldReceivers.size > 0 ? { fieldReceivers } : {}), ...(fieldInstances.size > 0 ? { fieldInstances } : {}), construct };
  }

  /** Classes whose field instances are being read, so a class that holds an instance of itself ends. */
  private readonly readingFields = new Set<Node>();

  /**
   * Public instance fields given an instance of a project class, imported or of this module: by
   * the field's initializer or by a `this.x = new X(...)` statement of the constructor. Private
   * and protected fields are left out: no caller reaches them.
   */
  private fieldInstances(node: TSESTree.ClassDeclaration | TSESTree.ClassExpression, ctor: TSESTree.MethodDefinition | undefined): Map<string, ExportSummary> {
    const out = new Map<string, ExportSummary>();
    if (this.readingFields.has(node)) return out;
    this.readingFields.add(node);
    try {
      const hidden = new Set<string>();
      for (const member of node.body.body) {
        if (member.type !== AST_NODE_TYPES.PropertyDefinition) continue;
        const key = propertyKeyName(member);
        if (key && (member.accessibility === 'private' || member.accessibility === 'protected' || member.key.type === AST_NODE_TYPES.PrivateIdentifier)) hidden.add(key);
      }
      for (const param of ctor?.value.params ?? []) {
        if (param.type !== AST_NODE_TYPES.TSParameterProperty || param.accessibility === 'public') continue;
        const id = param.parameter.type === AST_NODE_TYPES.AssignmentPattern ? param.parameter.left : param.parameter;
        if (id.type === AST_NODE_TYPES.Identifier) hidden.add(id.name);
      }
      const consider = (name: string, value: Node) => {
        if (hidden.has(name) || out.has(name)) return;
        const v = unwrap(value);
        if (v.type !== AST_NODE_TYPES.NewExpression || v.callee.type !== AST_NODE_TYPES.Identifier) return;
        const target = this.localTarget(v.callee.name);
        const cls =
          target.kind === 'reexport'
            ? this.view.exportOf(target.file, target.name)
            : target.kind === 'node' && (target.node.type === AST_NODE_TYPES.ClassDeclaration || target.node.type === AST_NODE_TYPES.ClassExpression)
              ? this.summarizeNode(target.node, v.callee.name, 1)
              : undefined;
        if (cls?.kind === 'class') out.set(name, { kind: 'object', members: cls.methods, ...(cls.fieldInstances ? { values: cls.fieldInstances } : {}) });
      };
      for (const member of node.body.body) {
        if (member.type !== AST_NODE_TYPES.PropertyDefinition || member.static || !member.value) continue;
        const key = propertyKeyName(member);
        if (key) consider(key, member.value);
      }
      for (const statement of ctor?.value.body?.body ?? []) {
        if (statement.type !== AST_NODE_TYPES.ExpressionStatement || statement.expression.type !== AST_NODE_TYPES.AssignmentExpression) continue;
        const { left, right } = statement.expression;
        if (left.type !== AST_NODE_TYPES.MemberExpression || left.computed || left.object.type !== AST_NODE_TYPES.ThisExpression || left.property.type !== AST_NODE_TYPES.Identifier) continue;
        consider(left.property.name, right);
      }
    } finally {
      this.readingFields.delete(node);
    }
    return out;
  }

  /**
   * The instance fields of a class that hold a client or lock authority, as the receiver table
   * knows them (`this.redis`): declared fields, getters and constructor parameter properties.
   * The table keys `this.x` per file, so only names this class itself declares are read.
   */
  private fieldReceivers(node: TSESTree.ClassDeclaration | TSESTree.ClassExpression, ctor: TSESTree.MethodDefinition | undefined, receivers: ReceiverTable | undefined): Map<string, ReceiverKind> {
    const fields = new Map<string, ReceiverKind>();
    if (!receivers) return fields;
    const names: string[] = [];
    for (const member of node.body.body) {
      if ((member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition) || member.static) continue;
      if (member.type === AST_NODE_TYPES.MethodDefinition && member.kind !== 'get') continue;
      const key = propertyKeyName(member);
      if (key) names.push(key);
    }
    for (const param of ctor?.value.params ?? []) {
      if (param.type !== AST_NODE_TYPES.TSParameterProperty) continue;
      const id = param.parameter.type === AST_NODE_TYPES.AssignmentPattern ? param.parameter.left : param.parameter;
      if (id.type === AST_NODE_TYPES.Identifier) names.push(id.name);
    }
    for (const name of names) {
      const kind = receivers.get(`this.${name}`);
      if (kind) fields.set(name, kind);
    }
    return fields;
  }

  /**
   * Template base classes: a method calls `this.onFlush()` under its lock, and the constructor
   * set `this.onFlush` from its arguments (`options.onFlush`, a parameter, a parameter property).
   * Whatever a caller hands there runs under the lock: the constructor is a callback acquire.
   */
  private constructorSummary(node: TSESTree.ClassDeclaration | TSESTree.ClassExpression, ctor: TSESTree.FunctionExpression | TSESTree.TSEmptyBodyFunctionExpression, className: string): FunctionSummary | undefined {
    const analysis = this.getAnalysis();
    if (!analysis || !ctor.body) return undefined;
    const fields = this.fieldsFromConstructor(ctor as TSESTree.FunctionExpression);
    if (fields.size === 0) return undefined;
    for (const site of analysis.acquires) {
      const owner = enclosingFunction(site.node);
      if (site.handedOver || !owner || !contains(node.body, site.node) || contains(ctor, site.node)) continue;
      for (const call of analysis.calls) {
        if (!inSection(site, call) || !contains(node.body, call)) continue;
        const callee = unwrap(call.callee);
        const target = callee.type === AST_NODE_TYPES.MemberExpression && /^(?:call|apply)$/.test(memberName(callee) ?? '') ? unwrap(callee.object) : callee;
        if (target.type !== AST_NODE_TYPES.MemberExpression || unwrap(target.object).type !== AST_NODE_TYPES.ThisExpression) continue;
        const field = fields.get(memberName(target) ?? '');
        if (!field) continue;
        const acquire: AcquireSummary = {
          style: 'callback',
          callbackArg: field.arg,
          callbackProperty: field.property,
          tokenProperties: [],
          ...this.acquireFields(site, call),
        };
        return { name: `${className}.constructor`, at: locationOf(this.file, ctor), params: ctor.params.map(paramName), acquire, releases: [], writes: [], partial: false };
      }
    }
    return undefined;
  }

  /** Instance fields the constructor sets from its arguments: `this.f = options.f`, `this.f = f`, `private f: ...`. */
  private fieldsFromConstructor(ctor: TSESTree.FunctionExpression): Map<string, { arg: number; property?: string }> {
    const out = new Map<string, { arg: number; property?: string }>();
    ctor.params.forEach((param, arg) => {
      if (param.type === AST_NODE_TYPES.TSParameterProperty) {
        const inner = param.parameter.type === AST_NODE_TYPES.AssignmentPattern ? param.parameter.left : param.parameter;
        if (inner.type === AST_NODE_TYPES.Identifier) out.set(inner.name, { arg });
      }
    });
    walk(ctor.body, this.sourceCode.visitorKeys, (n) => {
      if (n.type !== AST_NODE_TYPES.AssignmentExpression || n.operator !== '=' || n.left.type !== AST_NODE_TYPES.MemberExpression || n.left.object.type !== AST_NODE_TYPES.ThisExpression) return;
      const field = memberName(n.left);
      if (!field) return;
      const right = unwrap(n.right);
      const arg = this.directParam(right.type === AST_NODE_TYPES.MemberExpression ? right.object : right, ctor);
      if (arg === undefined) return;
      const param = ctor.params[arg];
      const pattern = param?.type === AST_NODE_TYPES.AssignmentPattern ? param.left : param;
      if (pattern?.type === AST_NODE_TYPES.ObjectPattern) {
        // `constructor({ name, onFlush })`: the destructured property.
        if (right.type !== AST_NODE_TYPES.Identifier) return;
        for (const p of pattern.properties) {
          if (p.type !== AST_NODE_TYPES.Property) continue;
          const value = p.value.type === AST_NODE_TYPES.AssignmentPattern ? p.value.left : p.value;
          if (value.type === AST_NODE_TYPES.Identifier && value.name === right.name) out.set(field, { arg, property: propertyKeyName(p) });
        }
        return;
      }
      out.set(field, right.type === AST_NODE_TYPES.MemberExpression ? { arg, property: memberName(right) } : { arg });
    });
    return out;
  }

  /** Whether a top-level name is imported from an in-process lock package (async-mutex, async-lock, ...). */
  private fromInProcessLockPackage(name: string): boolean {
    const decl = this.locals.get(name);
    if (decl?.type !== AST_NODE_TYPES.ImportSpecifier && decl?.type !== AST_NODE_TYPES.ImportDefaultSpecifier && decl?.type !== AST_NODE_TYPES.ImportNamespaceSpecifier) return false;
    return LOCAL_LOCK_PACKAGES.includes(String((decl.parent as TSESTree.ImportDeclaration).source.value));
  }

  /** Fields set to, or typed as, an in-process lock: `lock = new Mutex()`, `lock: Mutex`, `this.lock = new AsyncLock()`. */
  private inProcessLockFields(node: TSESTree.ClassDeclaration | TSESTree.ClassExpression): string[] {
    const out: string[] = [];
    const isLocal = (value: Node | null | undefined, annotation: TSESTree.TypeNode | undefined): boolean => {
      const v = value && unwrap(value);
      if (v?.type === AST_NODE_TYPES.NewExpression && v.callee.type === AST_NODE_TYPES.Identifier && this.fromInProcessLockPackage(v.callee.name)) return true;
      return annotation?.type === AST_NODE_TYPES.TSTypeReference && annotation.typeName.type === AST_NODE_TYPES.Identifier && this.fromInProcessLockPackage(annotation.typeName.name);
    };
    for (const member of node.body.body) {
      if (member.type === AST_NODE_TYPES.PropertyDefinition && !member.static) {
        const key = propertyKeyName(member);
        if (key && isLocal(member.value, member.typeAnnotation?.typeAnnotation)) out.push(key);
      }
      if (member.type === AST_NODE_TYPES.MethodDefinition && member.kind === 'constructor') {
        walk(member.value.body ?? member.value, this.sourceCode.visitorKeys, (n) => {
          if (n.type !== AST_NODE_TYPES.AssignmentExpression || n.left.type !== AST_NODE_TYPES.MemberExpression || n.left.object.type !== AST_NODE_TYPES.ThisExpression) return;
          const key = memberName(n.left);
          if (key && isLocal(n.right, undefined)) out.push(key);
        });
      }
    }
    return out;
  }

  /** The parameter index an expression is, directly (`fn`, not `fn.x`). */
  private directParam(node: Node | undefined, fn: FunctionNode): number | undefined {
    return directParam(node, fn, this.sourceCode);
  }

  /**
   * The parameter a value is, as passed or only converted to text: `value`, `String(value)`,
   * `JSON.stringify(value)`, `` `${value}` ``, through a `const` of `fn`, or through a same-file
   * function each of whose returns is its own first parameter so converted (`this.serialize(value)`).
   */
  private convertedParam(node: Node | undefined, fn: FunctionNode, analysis: FileAnalysis, depth = 0): number | undefined {
    if (!node || depth > MAX_HOPS) return undefined;
    const direct = this.directParam(node, fn);
    if (direct !== undefined) return direct;
    const n = unwrap(node);
    if (n.type === AST_NODE_TYPES.Identifier) {
      const def = ASTUtils.findVariable(this.sourceCode.getScope(n), n.name)?.defs[0];
      return def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init && contains(fn, def.node) ? this.convertedParam(def.node.init, fn, analysis, depth + 1) : undefined;
    }
    if (n.type === AST_NODE_TYPES.TemplateLiteral) {
      return n.expressions.length === 1 && n.quasis.every((q) => q.value.raw === '') ? this.convertedParam(n.expressions[0], fn, analysis, depth + 1) : undefined;
    }
    if (n.type !== AST_NODE_TYPES.CallExpression) return undefined;
    const callee = unwrap(n.callee);
    const only = n.arguments.length === 1 && n.arguments[0].type !== AST_NODE_TYPES.SpreadElement ? n.arguments[0] : undefined;
    if (only && /^(?:String|JSON\.stringify)$/.test(receiverPath(callee).join('.'))) return this.convertedParam(only, fn, analysis, depth + 1);
    if (n.arguments.length === 0 && callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'toString') return this.convertedParam(callee.object, fn, analysis, depth + 1);
    const helper = only ? analysis.functions.callee(n) : undefined;
    if (!helper || helper === fn || contains(helper, n)) return undefined;
    const returns = this.returnsOf(helper);
    return returns.length > 0 && returns.every((r) => this.convertedParam(r, helper, analysis, depth + 1) === 0) ? this.convertedParam(only, fn, analysis, depth + 1) : undefined;
  }

  /**
   * `const ok = await redis.set(k, v, 'PX', ttl, 'NX'); return ok === 'OK';`: the reply of a set-if-absent
   * is handed back for the caller to test, and nothing after it throws (a helper that throws when
   * the key is taken decides by itself, whatever its caller does with the result).
   */
  private returnsReply(setNx: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression, fn: FunctionNode): boolean {
    // The reply, and the consts read from it (`const { rows } = await client.query(...)`, `const ok = rows[0]?.locked === true`).
    const replies: Scope.Variable[] = [];
    const bind = (value: Node): void => {
      let held: Node = value;
      while (held.parent && (held.parent.type === AST_NODE_TYPES.AwaitExpression || held.parent.type === AST_NODE_TYPES.TSAsExpression || held.parent.type === AST_NODE_TYPES.TSNonNullExpression)) held = held.parent;
      const declarator = held.parent?.type === AST_NODE_TYPES.VariableDeclarator && held.parent.init === held ? held.parent : undefined;
      if (!declarator || replies.length >= 8) return;
      for (const variable of this.sourceCode.getDeclaredVariables(declarator)) if (!replies.includes(variable)) replies.push(variable);
    };
    bind(setNx);
    for (let i = 0; i < replies.length; i++) {
      for (const ref of replies[i].references) {
        // Read into another const (`const locked = result.rows[0]?.locked === true`).
        let top: Node = ref.identifier;
        while (top.parent && top.parent.type !== AST_NODE_TYPES.VariableDeclarator && !/Statement$|Declaration$/.test(top.parent.type) && !isFunctionNode(top.parent)) top = top.parent;
        if (top.parent?.type === AST_NODE_TYPES.VariableDeclarator && top.parent.init === top && top.parent.parent?.type === AST_NODE_TYPES.VariableDeclaration && top.parent.parent.kind === 'const') bind(top);
      }
    }
    const returned = this.returnsOf(fn).some((r) => contains(r, setNx) || replies.some((reply) => reply.references.some((ref) => contains(r, ref.identifier))));
    if (!returned) return false;
    let throws = false;
    walk(fn.body, this.sourceCode.visitorKeys, (node) => {
      if (node.type !== AST_NODE_TYPES.ThrowStatement || node.range[0] < setNx.range[1] || enclosingFunction(node) !== fn) return;
      for (let p: Node | undefined = node.parent; p && p !== fn; p = p.parent) if (p.type === AST_NODE_TYPES.CatchClause) return;
      throws = true;
    });
    return !throws;
  }

  /** A returned function: inline, or a function declared inside `fn` and returned by name (`return methodWithLock`). */
  private returnedFunction(node: Node, fn: FunctionNode): FunctionNode | undefined {
    const n = unwrap(node);
    if (isFunctionNode(n)) return n;
    if (n.type !== AST_NODE_TYPES.Identifier) return undefined;
    const def = ASTUtils.findVariable(this.sourceCode.getScope(n), n.name)?.defs[0];
    const declared = def?.type === 'FunctionName' ? def.node : def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init ? unwrap(def.node.init) : undefined;
    return declared && isFunctionNode(declared) && contains(fn.body, declared) ? declared : undefined;
  }

  /** Return values of `fn`, not of the functions nested in it. */
  /** The values `fn` returns, per function: several parts of its summary ask, and the answer depends on the tree alone. */
  private readonly returnsMemo = new Map<FunctionNode, readonly Node[]>();

  private returnsOf(fn: FunctionNode): readonly Node[] {
    const known = this.returnsMemo.get(fn);
    if (known) return known;
    const out: Node[] = [];
    if (fn.body.type !== AST_NODE_TYPES.BlockStatement) out.push(fn.body);
    else {
      walk(fn.body, this.sourceCode.visitorKeys, (node) => {
        if (node.type === AST_NODE_TYPES.ReturnStatement && node.argument && enclosingFunction(node) === fn) out.push(node.argument);
      });
    }
    this.returnsMemo.set(fn, out);
    return out;
  }

  /**
   * `return await retryable(() => this.locker.lock(owner, key), attempts)`: the acquire is what an
   * inline callback returns, handed to a call whose result `fn` returns (a retry or timing
   * wrapper gives back what its callback gave it), so `fn` returns the lock held.
   */
  private retriedBy(owner: FunctionNode | undefined, acquire: Node, fn: FunctionNode): boolean {
    const wrapper = owner?.parent;
    if (!owner || wrapper?.type !== AST_NODE_TYPES.CallExpression || !wrapper.arguments.includes(owner as TSESTree.CallExpressionArgument)) return false;
    return this.returnsOf(owner).some((r) => unwrap(r) === acquire) && this.returnsOf(fn).some((r) => unwrap(r) === wrapper);
  }

  /** The parameter a lock helper runs under its lock: passed to a callback acquire, or called inside the section. */
  private callbackParamOf(site: AcquireSite, fn: FunctionNode, analysis: FileAnalysis): number | undefined {
    if (site.callbackArgument) return this.directParam(site.callbackArgument, fn);
    const args = site.node.type === AST_NODE_TYPES.CallExpression ? site.node.arguments : [];
    const last = this.directParam(args[args.length - 1], fn);
    for (const call of analysis.calls) {
      if (!inSection(site, call) || !contains(fn, call)) continue;
      const callee = unwrap(call.callee);
      const target = callee.type === AST_NODE_TYPES.MemberExpression && /^(?:call|apply)$/.test(memberName(callee) ?? '') ? callee.object : callee;
      const index = this.directParam(target, fn);
      // The parameter itself, called: a callback. One destructured from an options object
      // (`{ onGiveUp }`) is an option, read by `optionCalledIn`.
      if (index !== undefined && isWholeParam(fn.params[index], target)) return index;
    }
    if (last !== undefined && CALLBACK_PARAM.test(paramName(fn.params[last]))) return last;
    return undefined;
  }

  private acquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    // `wrapWithLock(method)` returns a function that runs `method` under the lock, inline or by name.
    const returned = this.returnsOf(fn).map((r) => this.returnedFunction(r, fn)).filter((r): r is FunctionNode => r !== undefined);
    for (const site of analysis.acquires) {
      const owner = enclosingFunction(site.node);
      // A lock handed to this function and released here was taken by a caller: no acquire for callers.
      if (site.handedOver) continue;
      if (owner !== fn && !returned.some((r) => r === owner) && !this.retriedBy(owner, site.node, fn)) {
        // `setInterval(() => withLease(name, ms, job), ms)`: a callback acquire in a callback of this
        // function, handed this function's parameter, runs that parameter under the lock whenever it runs.
        const forwarded = site.callbackArgument && contains(fn.body, site.node) ? this.directParam(site.callbackArgument, fn) : undefined;
        if (forwarded !== undefined) {
          return {
            ...this.siteLock(site, fn),
            style: 'callback',
            callbackArg: forwarded,
            tokenProperties: [],
          };
        }
        continue;
      }
      const common = {
        ...this.acquireFields(site),
        ...(site.keyNode ? this.keyNamedBy(site.keyNode, fn) : site.node.type === AST_NODE_TYPES.CallExpression ? this.keyParamOf(site.node, site.origin, fn) : {}),
      };
      const setNx = site.library === 'redis-set-nx' && site.node.type === AST_NODE_TYPES.CallExpression ? readSetNx(site.node) : undefined;
      const valueArg = setNx?.value ? this.convertedParam(setNx.value, fn, analysis) : undefined;
      // A try-lock that hands back whether it took the lock (`return rows[0].locked`) is, like a `SET NX`, a lock only where the caller tests that.
      const tryAdvisory = site.advisory?.fn.startsWith('pg_try_') && (site.node.type === AST_NODE_TYPES.CallExpression || site.node.type === AST_NODE_TYPES.TaggedTemplateExpression) ? site.node : undefined;
      const returnsReply = setNx !== undefined ? this.returnsReply(setNx.call, fn) : tryAdvisory !== undefined && this.returnsReply(tryAdvisory, fn);
      const callbackArg = this.callbackParamOf(site, fn, analysis);
      if (callbackArg !== undefined) return { ...common, style: 'callback', callbackArg, tokenProperties: [], session: this.sessionOf(site, fn, analysis, callbackArg) };
      // A lock still held when the function returns: the caller holds it until a release.
      // A lock that runs a callback of its own (`lock(name, keys, async () => ...)`) is given back when
      // the callback returns: what the call returns is the callback's result, never a held lock, also
      // when a wrapper hands it on (`return startSpan(..., async () => lock(..., cb))`).
      const ownCallback = site.scope.type !== AST_NODE_TYPES.Program && site.scope !== owner && contains(site.node, site.scope);
      const inCallback = ownCallback || (site.scope !== fn && site.scope.type !== AST_NODE_TYPES.Program && !this.retriedBy(owner, site.node, fn));
      if (!releasedInPlace(site) && !inCallback && !site.callbackArgument) {
        // It escapes when the caller gets something back, the lock sits on the caller's own
        // connection, or the function is named for taking it; a function that only uses the
        // lock and lets it expire is no acquire for its callers.
        // A function that also hands back a value on a path that took no lock (get-or-create:
        // `if (existing) return existing;` before the acquire) tells its caller nothing about the
        // lock: what it returns is the function's result, not a lock the caller now holds.
        const session = this.sessionOf(site, fn, analysis, undefined);
        const returns = this.returnsOf(fn);
        const valueWithoutLock = returns.some((r) => r.range[1] <= site.node.range[0] && !isNoValue(r));
        const handsBack = !valueWithoutLock && returns.some((r) => !resolvesToNothing(r, this.sourceCode.visitorKeys));
        if (handsBack || session?.arg !== undefined || ACQUIRE_FUNCTION.test(this.functionName(fn))) {
          const returnsStatement = this.returnedStatementScope(site, fn);
          return {
            ...common,
            style: 'handle',
            tokenProperties: this.handleTokenProperties(site.node, site.handleKey, site.tokenProperties, fn, analysis),
            session,
            ...(valueArg !== undefined ? { valueArg } : {}),
            ...(returnsReply ? { returnsReply } : {}),
            ...(returnsStatement ? { returnsStatement } : {}),
          };
        }
      }
      // `withLeaderLock({ key, onLeader })`: an option of the caller's called under the lock. (A
      // helper that also returns with the lock held, `if (!(await claim({ onBusy, onGiveUp }))) return;`,
      // is read as the handle above: the caller's code after it runs under the lock too.)
      const option = owner === fn ? this.optionCalledIn(site, fn, analysis) : undefined;
      if (option) return { ...common, style: 'callback', callbackArg: option.arg, callbackProperty: option.property, tokenProperties: [] };
    }
    return this.composedAcquireOf(fn, analysis) ?? this.wrappedAcquireOf(fn, analysis) ?? this.loopComposedAcquireOf(fn, analysis) ?? this.optionCallbackAcquireOf(fn, analysis) ?? this.promisifiedAcquireOf(fn, analysis) ?? this.decoratorAcquireOf(fn, analysis) ?? this.metadataDecoratorAcquireOf(fn, analysis) ?? this.curriedAcquireOf(fn, analysis);
  }

  /**
   * A lock factory: `fn` returns a function that runs its own argument under a lock (`(work) =>
   * redlock.using(keys, ttl, () => work())`), or returns what another such factory returns
   * (`(id) => withLock(\`thread:${id}\`)`). Calling what the call returns takes the lock, so the
   * caller's `withLock(name)(async () => ...)` is the section.
   */
  private curriedAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    for (const returned of this.returnsOf(fn)) {
      const runner = this.returnedFunction(returned, fn);
      if (runner && runner !== fn) {
        const inner = this.summarizeFunction(runner, `${this.functionName(fn)}()`).acquire;
        if (inner?.style === 'callback' && inner.callbackArg !== undefined && !inner.curried && !inner.decorates && inner.callbackProperty === undefined) {
          // The lock's key comes from `fn`'s arguments, not the runner's: a release by name cannot pair with it.
          return { ...inner, keyArg: undefined, keyProperty: undefined, curried: true };
        }
        continue;
      }
      const call = unwrap(returned);
      if (call.type !== AST_NODE_TYPES.CallExpression) continue;
      const local = analysis.functions.callee(call);
      const summary = local ? (local === fn ? undefined : this.summarizeFunction(local, this.functionName(local))) : analysis.callees?.summaryOf(call);
      if (summary?.acquire?.curried && !summary.partial) return { ...summary.acquire, flow: [locationOf(this.file, call), ...summary.acquire.flow] };
    }
    return undefined;
  }

  /**
   * A method decorator factory: `fn` returns a decorator `(target, key, descriptor) => ...` that
   * keeps `descriptor.value` and puts in its place a function calling it under a lock
   * (`const original = descriptor.value; descriptor.value = async function (...args) { lock; await
   * original.apply(this, args); release }`). Where `@fn(...)` decorates a method, that method runs
   * under the lock.
   */
  private decoratorAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    for (const returned of this.returnsOf(fn)) {
      const decorator = this.returnedFunction(returned, fn);
      const descriptor = decorator?.params[2];
      if (!decorator || descriptor?.type !== AST_NODE_TYPES.Identifier) continue;
      const isOriginal = (node: Node): boolean => {
        const n = unwrap(node);
        if (n.type === AST_NODE_TYPES.MemberExpression) return unwrap(n.object).type === AST_NODE_TYPES.Identifier && (unwrap(n.object) as TSESTree.Identifier).name === descriptor.name && memberName(n) === 'value';
        if (n.type !== AST_NODE_TYPES.Identifier) return false;
        const def = ASTUtils.findVariable(this.sourceCode.getScope(n), n.name)?.defs[0];
        return def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init !== null && contains(decorator.body, def.node) && isOriginal(def.node.init);
      };
      for (const site of analysis.acquires) {
        if (site.handedOver || site.callbackArgument || !contains(decorator.body, site.node)) continue;
        const runsOriginal = analysis.calls.some((call) => {
          if (!inSection(site, call)) return false;
          const callee = unwrap(call.callee);
          const target = callee.type === AST_NODE_TYPES.MemberExpression && /^(?:call|apply)$/.test(memberName(callee) ?? '') ? callee.object : callee;
          return isOriginal(target);
        });
        if (!runsOriginal) continue;
        return {
          ...this.siteLock(site, fn),
          style: 'callback',
          decorates: true,
          tokenProperties: [],
        };
      }
    }
    return undefined;
  }

  /** A lock decorator that only records metadata for an interceptor to act on (`locks/metadata-lock-decorators.ts`). */
  private metadataDecoratorAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    const name = this.functionName(fn);
    if (!isMetadataLockDecorator(name, this.returnsOf(fn), analysis.receivers, this.sourceCode)) return undefined;
    return { style: 'callback', decorates: true, library: 'custom', label: `\`@${name}\``, advice: CUSTOM_ADVICE, at: locationOf(this.file, fn), flow: [], tokenProperties: [] };
  }

  /**
   * The scope of an advisory lock this function returns as a statement not yet run
   * (`return prisma.$queryRaw\`SELECT pg_advisory_xact_lock(...)\``, or a helper's such statement
   * returned in turn). An `async` function sends it before it returns, so it returns none.
   */
  private returnedStatementScope(site: AcquireSite, fn: FunctionNode): AcquireSummary['returnsStatement'] {
    const scope = site.advisory?.scope ?? site.origin?.returnsStatement;
    if (!scope || fn.async || enclosingFunction(site.node) !== fn) return undefined;
    return this.returnsOf(fn).some((r) => unwrap(r) === site.node) ? scope : undefined;
  }

  /**
   * A scheduler set up by this function: a function defined inside it (run now or by a timer)
   * takes a lock and, under it, calls a function the caller handed in as an option
   * (`init({ name, runFunc })` destructured, or `options.runFunc(...)`): that option runs under the
   * lock, as a base class's `super({ onFlush })` does.
   */
  private optionCallbackAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    for (const site of analysis.acquires) {
      const owner = enclosingFunction(site.node);
      if (!owner || owner === fn || !contains(fn.body, site.node) || site.callbackArgument) continue;
      for (const call of analysis.calls) {
        if (!inSection(site, call)) continue;
        const option = this.optionOf(call.callee, fn);
        if (!option) continue;
        return {
          ...this.acquireFields(site, call),
          style: 'callback',
          callbackArg: option.arg,
          callbackProperty: option.property,
          tokenProperties: [],
        };
      }
    }
    return undefined;
  }

  /** The first option of the caller's (see `optionOf`) that is called inside `range`. */
  private optionCalledIn(site: AcquireSite, fn: FunctionNode, analysis: FileAnalysis): { arg: number; property: string } | undefined {
    for (const call of analysis.calls) {
      if (!inSection(site, call) || enclosingFunction(call) !== fn) continue;
      const option = this.optionOf(call.callee, fn);
      if (option) return option;
    }
    return undefined;
  }

  /**
   * `runFunc` destructured from parameter `arg` (`({ runFunc }) => ...`, or `const { runFunc } =
   * options` in the body), or `options.runFunc` of a parameter.
   */
  private optionOf(callee: Node, fn: FunctionNode): { arg: number; property: string } | undefined {
    const target = unwrap(callee);
    if (target.type === AST_NODE_TYPES.Identifier) {
      const def = ASTUtils.findVariable(this.sourceCode.getScope(target), target.name)?.defs[0];
      const declarator = def?.type === 'Variable' && def.node.type === AST_NODE_TYPES.VariableDeclarator ? def.node : undefined;
      if (declarator?.id.type === AST_NODE_TYPES.ObjectPattern && declarator.init && enclosingFunction(declarator) === fn) {
        const arg = this.directParam(declarator.init, fn);
        const param = arg !== undefined ? fn.params[arg] : undefined;
        const property = arg !== undefined && param?.type === AST_NODE_TYPES.Identifier ? this.patternProperty(declarator.id, target.name) : undefined;
        if (arg !== undefined && property) return { arg, property };
      }
    }
    if (target.type === AST_NODE_TYPES.MemberExpression && !target.computed) {
      const arg = this.directParam(target.object, fn);
      const property = memberName(target);
      const param = arg !== undefined ? fn.params[arg] : undefined;
      return arg !== undefined && property && param?.type === AST_NODE_TYPES.Identifier ? { arg, property } : undefined;
    }
    if (target.type !== AST_NODE_TYPES.Identifier) return undefined;
    const arg = this.directParam(target, fn);
    if (arg === undefined) return undefined;
    let pattern: Node = fn.params[arg];
    if (pattern.type === AST_NODE_TYPES.AssignmentPattern) pattern = pattern.left;
    if (pattern.type !== AST_NODE_TYPES.ObjectPattern) return undefined;
    const property = this.patternProperty(pattern, target.name);
    return property ? { arg, property } : undefined;
  }

  /** The property an object pattern binds `name` to: `{ onLeader }`, `{ run: job }`, `{ run = noop }`. */
  private patternProperty(pattern: TSESTree.ObjectPattern, name: string): string | undefined {
    for (const p of pattern.properties) {
      if (p.type !== AST_NODE_TYPES.Property) continue;
      const value = p.value.type === AST_NODE_TYPES.AssignmentPattern ? p.value.left : p.value;
      if (value.type === AST_NODE_TYPES.Identifier && value.name === name) return propertyKeyName(p);
    }
    return undefined;
  }

  /**
   * A callback acquire wrapped in a promise this function returns, whose callback resolves it
   * with the handle: `return new Promise((resolve, reject) => locks.acquireLock(id, (err, lock) =>
   * err ? reject(err) : resolve(lock)))`. The caller gets the handle, held until its release.
   */
  private promisifiedAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    for (const site of analysis.acquires) {
      const callback = site.scope;
      if (callback.type === AST_NODE_TYPES.Program || callback === fn || site.node.type !== AST_NODE_TYPES.CallExpression) continue;
      const executor = enclosingFunction(site.node);
      const promise = executor?.parent;
      if (!executor || promise?.type !== AST_NODE_TYPES.NewExpression || promise.arguments[0] !== executor || calleeName(promise) !== 'Promise') continue;
      if (enclosingFunction(promise) !== fn || !this.returnsOf(fn).some((r) => unwrap(r) === promise)) continue;
      const resolve = executor.params[0];
      if (resolve?.type !== AST_NODE_TYPES.Identifier) continue;
      const handles = new Set(callback.params.flatMap((p) => (p.type === AST_NODE_TYPES.Identifier ? [p.name] : [])));
      const resolvesHandle = analysis.calls.some((c) => {
        const callee = unwrap(c.callee);
        const arg = c.arguments[0] && unwrap(c.arguments[0]);
        return contains(callback.body, c) && callee.type === AST_NODE_TYPES.Identifier && callee.name === resolve.name && arg?.type === AST_NODE_TYPES.Identifier && handles.has(arg.name);
      });
      if (!resolvesHandle) continue;
      return {
        ...this.acquireFields(site),
        ...this.keyParamOf(site.node, site.origin, fn),
        style: 'handle',
        tokenProperties: site.tokenProperties,
      };
    }
    return undefined;
  }

  /**
   * Whether `node` runs as part of `fn` itself: in its body, or in callbacks written inline as
   * arguments of its calls (`startSpan(name, async () => ...)`, `tryCatch(...)`), not in a
   * function it only defines for later.
   */
  private runsInline(node: Node, fn: FunctionNode): boolean {
    for (let owner = enclosingFunction(node); owner; owner = enclosingFunction(owner)) {
      if (owner === fn) return true;
      const parent = owner.parent;
      if (parent?.type !== AST_NODE_TYPES.CallExpression || !parent.arguments.includes(owner as TSESTree.CallExpressionArgument)) return false;
    }
    return false;
  }

  /**
   * A lock taken inside an inline callback of this function (an acquire wrapped in a tracing
   * span or a retry helper), after which the function calls a function parameter: that
   * parameter runs under the lock (`await tryCatch(span(() => redlock.acquire(keys)))`, then
   * `routine()` before the release in `finally`).
   */
  private wrappedAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    for (const site of analysis.acquires) {
      if (site.handedOver || enclosingFunction(site.node) === fn || site.callbackArgument || !contains(fn.body, site.node) || !this.runsInline(site.node, fn)) continue;
      for (const call of analysis.calls) {
        if (call.range[0] <= site.node.range[1] || !contains(fn.body, call) || !this.runsInline(call, fn)) continue;
        const index = this.directParam(call.callee, fn);
        if (index === undefined) continue;
        return {
          ...this.siteLock(site, fn),
          style: 'callback',
          callbackArg: index,
          tokenProperties: [],
          // `db.transaction(async (trx) => { lock on trx; return fn(trx) })`: the callback gets the locked transaction.
          session: this.sessionOf(site, fn, analysis, index),
        };
      }
    }
    return undefined;
  }

  /** The lock a site takes (see `acquireFields`) and the parameters its key comes from. */
  private siteLock(site: AcquireSite, fn: FunctionNode): Pick<AcquireSummary, 'library' | 'label' | 'advice' | 'at' | 'flow'> & KeyParams {
    return { ...this.acquireFields(site), ...(site.node.type === AST_NODE_TYPES.CallExpression ? this.keyParamOf(site.node, site.origin, fn) : {}) };
  }

  /**
   * What an acquire summary says of the lock a site of this module takes: its library, label,
   * advice and place (the lock inside a helper, when the site calls one), and the flow down to it,
   * from `via` (the call that runs the site) when given.
   */
  private acquireFields(site: AcquireSite, via?: Node): Pick<AcquireSummary, 'library' | 'label' | 'advice' | 'at' | 'flow'> {
    const inner = site.origin ? [locationOf(this.file, site.node), ...site.origin.flow] : [];
    return {
      library: site.library,
      label: site.origin?.label ?? site.label,
      advice: site.advice,
      at: site.origin?.at ?? locationOf(this.file, site.node),
      flow: via ? [locationOf(this.file, via), ...inner] : inner,
    };
  }

  /** One lock per list entry, each wrapping the callback before it in a loop (`locks/loop-composed-locks.ts`): the parameter runs under them all. */
  private loopComposedAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    const found = loopComposedCallback(fn, analysis.acquires, analysis.calls, this.sourceCode);
    if (!found) return undefined;
    const { site, param } = found;
    return {
      ...this.acquireFields(site),
      style: 'callback',
      callbackArg: param,
      tokenProperties: [],
    };
  }

  /**
   * The connection an advisory lock is held on, as the caller will see it: an argument of this
   * function, or the parameter of the callback it runs under the lock.
   */
  private sessionOf(site: AcquireSite, fn: FunctionNode, analysis: FileAnalysis, callbackArg: number | undefined): AcquireSummary['session'] {
    if (site.origin?.session) {
      const inner = site.origin.session;
      if (inner.arg !== undefined) {
        const arg = site.node.type === AST_NODE_TYPES.CallExpression ? this.directParam(site.node.arguments[inner.arg], fn) : undefined;
        return arg !== undefined ? { arg, scope: inner.scope } : undefined;
      }
      return callbackArg !== undefined ? inner : undefined;
    }
    if (site.library !== 'pg-advisory-lock' && !site.advisory) return undefined;
    const scope = site.advisory?.scope ?? (/_xact_/i.test(this.sourceCode.getText(site.node)) ? 'transaction' : 'session');
    // The connection is the receiver of the query call, or the tag of a tagged template (postgres.js `tx\`...\``),
    // or the receiver of the call a template is handed to (drizzle's `tx.execute(sql\`...\`)`).
    const runner = site.node.type === AST_NODE_TYPES.TaggedTemplateExpression && site.node.parent?.type === AST_NODE_TYPES.CallExpression && site.node.parent.arguments[0] === site.node ? site.node.parent : undefined;
    // Prisma's `tx.$queryRaw\`...\``: the client is the tag's object.
    const tag = site.node.type === AST_NODE_TYPES.TaggedTemplateExpression ? unwrap(site.node.tag) : undefined;
    const prismaRaw = tag?.type === AST_NODE_TYPES.MemberExpression && /^\$/.test(memberName(tag) ?? '') ? tag.object : undefined;
    const connection = site.node.type === AST_NODE_TYPES.CallExpression ? calleeObject(site.node) : runner ? calleeObject(runner) : (prismaRaw ?? site.node.tag);
    if (!connection) return undefined;
    const arg = this.directParam(connection, fn);
    if (arg !== undefined) return { arg, scope };
    // `fn(client)` under the lock, where `client` is the connection that took it, and holds it
    // (a transaction or a dedicated client, not the pool).
    const key = receiverKey(connection);
    if (callbackArg === undefined || !key) return undefined;
    const held = { fn: site.advisory?.fn ?? '', scope, connection: key };
    if (!heldOnOwnConnection(held, site.node, [...analysis.calls, ...analysis.taggedTemplates], this.sourceCode)) return undefined;
    for (const call of analysis.calls) {
      if (!inSection(site, call) || this.directParam(call.callee, fn) !== callbackArg) continue;
      const callbackParam = call.arguments.findIndex((a) => receiverKey(a) === key);
      if (callbackParam >= 0) return { callbackParam, scope };
    }
    return undefined;
  }

  /**
   * A lock taken through another helper of this module (`withLock` over `acquireLock` and
   * `releaseLock`): the per-file pass reads same-file helpers only from inside a held lock, so
   * their composition is read here, from their summaries.
   */
  private composedAcquireOf(fn: FunctionNode, analysis: FileAnalysis): AcquireSummary | undefined {
    const calls = analysis.calls.filter((c) => contains(fn.body, c) && this.runsInline(c, fn));
    for (const call of calls) {
      const local = analysis.functions.callee(call);
      if (!local || local === fn) continue;
      const inner = this.summarizeFunction(local, this.functionName(local)).acquire;
      if (!inner) continue;
      const common = {
        library: inner.library,
        label: inner.label,
        advice: inner.advice,
        at: inner.at,
        flow: [locationOf(this.file, call), ...inner.flow],
        ...this.keyParamOf(call, inner, fn),
      };
      if (inner.style === 'callback' && inner.callbackArg !== undefined) {
        const index = inner.callbackArg < 0 ? call.arguments.length + inner.callbackArg : inner.callbackArg;
        const callbackArg = this.directParam(call.arguments[index], fn);
        if (callbackArg !== undefined) return { ...common, style: 'callback', callbackArg, tokenProperties: [] };
        continue;
      }
      // Held from here: a parameter called afterwards runs under it; otherwise the caller holds it.
      const later = calls.filter((c) => c.range[0] > call.range[1]);
      const released = later.find((c) => {
        const callee = analysis.functions.callee(c);
        const summary = callee && callee !== fn ? this.summarizeFunction(callee, this.functionName(callee)) : analysis.callees?.summaryOf(c);
        return (summary?.releases.length ?? 0) > 0;
      });
      for (const c of later) {
        if (released && c.range[0] > released.range[0]) break;
        const index = this.directParam(c.callee, fn);
        if (index !== undefined) return { ...common, style: 'callback', callbackArg: index, tokenProperties: [] };
      }
      // A wrapper that returns what the inner acquire gave it still holds the lock for its caller.
      const handleKey = this.boundKey(call);
      const root = handleKey?.split('.')[0];
      // `await using lock = await this.lockFor(id)`: disposed at the end of its block, never passed on.
      const passesOn = !this.boundByUsing(call) && this.returnsOf(fn).some((r) => contains(r, call) || (root !== undefined && this.mentions(r, root)));
      if (!released && passesOn) {
        return { ...common, style: 'handle', tokenProperties: this.handleTokenProperties(call, handleKey, inner.tokenProperties, fn, analysis) };
      }
    }
    return undefined;
  }

  /** Whether an expression reads the variable `name`. */
  private mentions(node: Node, name: string): boolean {
    let found = false;
    walk(node, this.sourceCode.visitorKeys, (n) => {
      if (n.type === AST_NODE_TYPES.Identifier && n.name === name) found = true;
    });
    return found;
  }

  /** `await using lock = await acquire(...)`: the result is disposed of where its block ends. */
  private boundByUsing(call: Node): boolean {
    let current: Node = call;
    while (current.parent && (current.parent.type === AST_NODE_TYPES.AwaitExpression || current.parent.type === AST_NODE_TYPES.TSAsExpression || current.parent.type === AST_NODE_TYPES.TSNonNullExpression)) current = current.parent;
    const declaration = current.parent?.type === AST_NODE_TYPES.VariableDeclarator ? current.parent.parent : undefined;
    const kind: string | undefined = declaration?.type === AST_NODE_TYPES.VariableDeclaration ? declaration.kind : undefined;
    return kind === 'using' || kind === 'await using';
  }

  /** `const lock = await acquire(...)`: the key the result is bound to. */
  private boundKey(call: Node): string | undefined {
    let current: Node = call;
    while (current.parent && (current.parent.type === AST_NODE_TYPES.AwaitExpression || current.parent.type === AST_NODE_TYPES.TSAsExpression || current.parent.type === AST_NODE_TYPES.TSNonNullExpression)) current = current.parent;
    const parent = current.parent;
    if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.init === current) return receiverKey(parent.id);
    if (parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.right === current) return receiverKey(parent.left);
    return undefined;
  }

  /** The parameter (and, for an options object, its property) a call's lock key comes from. */
  private keyParamOf(call: TSESTree.CallExpression, inner: Pick<AcquireSummary, 'keyArg' | 'keyProperty' | 'keyArgs' | 'keyExact'> | undefined, fn: FunctionNode): KeyParams {
    if (inner?.keyArgs) {
      // A key built from several of the inner helper's arguments: each maps to this function's parameters.
      const all = new Set<number>();
      for (const index of inner.keyArgs) for (const source of paramSources(call.arguments[index], fn, this.sourceCode, NAMED_BY)) all.add(source);
      const [keyArg] = all;
      if (keyArg === undefined) return {};
      return all.size > 1 ? { keyArg, keyArgs: [...all].sort((a, b) => a - b) } : { keyArg };
    }
    const args = inner?.keyArg !== undefined ? [keyArgument(call.arguments, inner.keyArg, inner.keyProperty)] : call.arguments;
    for (const arg of args) {
      const { keyExact, ...found } = this.keyNamedBy(arg, fn);
      if (found.keyArg === undefined) continue;
      // The key itself only when it is handed on as is: to a helper whose key is its argument, or as a library call's first argument.
      const exact = keyExact && (inner ? inner.keyExact === true && inner.keyProperty === undefined : arg === call.arguments[0]);
      return exact ? { ...found, keyExact } : found;
    }
    return {};
  }

  /** The parameter a key is named by and, when that is an options object, the property. */
  private keyNamedBy(key: Node | undefined, fn: FunctionNode): KeyParams {
    const sources = paramSources(key, fn, this.sourceCode, NAMED_BY);
    const [keyArg] = sources;
    if (keyArg === undefined) return {};
    const named = paramProperty(key, fn, this.sourceCode);
    if (named?.index === keyArg) return { keyArg, keyProperty: named.property };
    if (sources.size > 1) return { keyArg, keyArgs: [...sources].sort((a, b) => a - b) };
    return this.directParam(key, fn) === keyArg ? { keyArg, keyExact: true } : { keyArg };
  }

  /** Token-carrying properties of what a function returns after taking a lock. */
  private handleTokenProperties(acquire: Node, handleKey: string | undefined, carried: readonly string[], fn: FunctionNode, analysis: FileAnalysis): string[] {
    const out = new Set<string>();
    for (const ret of this.returnsOf(fn)) {
      const r = unwrap(ret);
      if (r === acquire || (handleKey && receiverKey(r) === handleKey)) carried.forEach((p) => out.add(p));
      if (r.type === AST_NODE_TYPES.ObjectExpression) {
        for (const p of r.properties) {
          if (p.type !== AST_NODE_TYPES.Property) continue;
          const key = propertyKeyName(p);
          if (key && (isStrongTokenName(key) || (isHandleTokenName(key) && analysis.tracer.isToken(p.value)))) out.add(key);
        }
      }
    }
    return [...out];
  }

  private returnsTokenOf(fn: FunctionNode, analysis: FileAnalysis): FunctionSummary['returnsToken'] {
    const properties = new Set<string>();
    for (const ret of this.returnsOf(fn)) {
      const r = unwrap(ret);
      if (analysis.tracer.isToken(r)) return { properties: [] };
      if (r.type === AST_NODE_TYPES.ObjectExpression) {
        for (const p of r.properties) {
          if (p.type !== AST_NODE_TYPES.Property) continue;
          const key = propertyKeyName(p);
          if (key && isHandleTokenName(key) && analysis.tracer.isToken(p.value)) properties.add(key);
        }
      }
    }
    return properties.size > 0 ? { properties: [...properties] } : undefined;
  }

  private releasesOf(fn: FunctionNode, name: string, analysis: FileAnalysis): ReleaseSummary[] {
    const out: ReleaseSummary[] = [];
    const add = (release: ReleaseSummary) => {
      const same = out.find((r) => r.by === release.by && r.arg === release.arg);
      if (!same) out.push(release);
      else if (same.plain && !release.plain) delete same.plain;
    };
    const releaseNamed = RELEASE_FUNCTION.test(name.split('.').pop() ?? name);
    const moduleLocks = analysis.acquires.some((site) => !site.handedOver);
    for (const call of analysis.calls) {
      if (!contains(fn.body, call)) continue;
      const method = calleeName(call) ?? '';
      const object = calleeObject(call);
      const releaseMethod = GENERIC_RELEASE_METHOD.test(method);
      // Another helper's release, read from its summary, decides over the method's name.
      const local = analysis.functions.callee(call);
      const inner = local && local !== fn ? this.summarizeFunction(local, this.functionName(local)) : analysis.callees?.summaryOf(call);
      // `lock.release()` on the handle passed in.
      const self = object && releaseMethod ? this.directParam(object, fn) : undefined;
      // `res.end()` on a response or stream passed in closes I/O, not a lease.
      if (self !== undefined && !isIoParameter(fn, self, this.sourceCode)) add({ by: 'handle', arg: self });
      // `redlock.release(lock)`, `this.authority.release(lease)`; not `this.leases.release(boxId)`
      // whose summary releases the lock named by that argument.
      if (object && releaseMethod) {
        for (const [position, arg] of call.arguments.entries()) {
          if (inner?.releases.some((r) => r.by === 'name' && r.arg === position)) continue;
          const index = this.directParam(arg, fn);
          if (index !== undefined && !isIoParameter(fn, index, this.sourceCode)) add({ by: 'handle', arg: index });
        }
      }
      // `redis.del(`lock:${key}`)`, a compare-and-delete script, `pg_advisory_unlock($1)` with the key passed in.
      const head = call.arguments[0] && staticString(call.arguments[0]);
      // `DELETE FROM leases WHERE resource = $1 AND owner = $2` with a handle's fields: a release of that handle.
      if (head !== undefined && LEASE_ROW_DELETE.test(head)) {
        for (const arg of call.arguments.slice(1)) {
          const values = arg.type === AST_NODE_TYPES.ArrayExpression ? arg.elements : [arg];
          for (const value of values) {
            const v = value && value.type !== AST_NODE_TYPES.SpreadElement ? unwrap(value) : undefined;
            if (v?.type !== AST_NODE_TYPES.MemberExpression) continue;
            const index = this.directParam(v.object, fn);
            if (index !== undefined) add({ by: 'handle', arg: index });
          }
        }
      }
      // `send(new DeleteCommand({ TableName: LOCK_TABLE, Key: { printerId } }))`: a lock table's item deleted by a key passed in.
      if (releaseNamed || moduleLocks) {
        const command = method === 'send' && call.arguments[0] ? unwrap(call.arguments[0]) : undefined;
        const write = command?.type === AST_NODE_TYPES.NewExpression ? readObjectWrite(command, analysis.receivers) : /^delete/.test(method) ? readObjectWrite(call, analysis.receivers) : undefined;
        const key = write?.api === 'dynamodb' && write.kind === 'delete' && isLockTable(objectWriteTable(write, this.sourceCode)) ? propertyValue(write.filter, 'Key') : undefined;
        const keyObject = key && unwrap(key).type === AST_NODE_TYPES.ObjectExpression ? (unwrap(key) as TSESTree.ObjectExpression) : undefined;
        for (const p of keyObject?.properties ?? []) {
          const named = p.type === AST_NODE_TYPES.Property ? this.keyNamedBy(p.value, fn) : {};
          if (named.keyArg === undefined) continue;
          add({ by: 'name', arg: named.keyArg, ...(named.keyProperty ? { keyProperty: named.keyProperty } : {}), ...(named.keyArgs ? { keyArgs: named.keyArgs } : {}) });
          break;
        }
      }
      if ((releaseNamed || moduleLocks) && (NAME_RELEASE_METHOD.test(method) || (head !== undefined && ADVISORY_UNLOCK.test(head)))) {
        const named = this.keyParamOf(call, undefined, fn);
        const plain = PLAIN_DELETE.test(method) && !analysis.calls.some((c) => contains(fn.body, c) && /^(?:watch|WATCH)$/.test(calleeName(c) ?? ''));
        if (named.keyArg !== undefined) add({ by: 'name', arg: named.keyArg, ...(named.keyProperty ? { keyProperty: named.keyProperty } : {}), ...(named.keyArgs ? { keyArgs: named.keyArgs } : {}), ...(plain ? { plain } : {}) });
      }
      // Another helper's release, with this function's parameter in its place.
      for (const release of inner?.releases ?? []) {
        const arg = release.by === 'name' ? keyArgument(call.arguments, release.arg, release.keyProperty) : call.arguments[release.arg];
        const index = this.directParam(arg, fn) ?? [...paramSources(arg, fn, this.sourceCode, SAME_VALUE)][0];
        const named = release.by === 'name' ? paramProperty(arg, fn, this.sourceCode) : undefined;
        const keyArgs = release.keyArgs ? mappedKeyArgs(release.keyArgs, call, fn, this.sourceCode) : undefined;
        if (index !== undefined) add({ by: release.by, arg: index, ...(named?.index === index ? { keyProperty: named.property } : {}), ...(keyArgs ? { keyArgs } : {}), ...(release.plain ? { plain: true } : {}) });
      }
    }
    // Prisma's `` $executeRaw`SELECT pg_advisory_unlock(hashtext(${key}))` ``, postgres.js `` sql`...` ``: the key is an interpolation.
    if (releaseNamed || moduleLocks) {
      for (const tagged of analysis.taggedTemplates) {
        if (!contains(fn.body, tagged) || !ADVISORY_UNLOCK.test(tagged.quasi.quasis.map((q) => q.value.raw).join('?'))) continue;
        for (const expression of tagged.quasi.expressions) {
          const named = this.keyNamedBy(expression, fn);
          if (named.keyArg === undefined) continue;
          add({ by: 'name', arg: named.keyArg, ...(named.keyProperty ? { keyProperty: named.keyProperty } : {}), ...(named.keyArgs ? { keyArgs: named.keyArgs } : {}) });
          break;
        }
      }
    }
    return out;
  }

  private writesOf(fn: FunctionNode, analysis: FileAnalysis): { writes: WriteSummary[]; partial: boolean } {
    const writes: WriteSummary[] = [];
    let partial = false;
    if (this.locksOnly) return { writes, partial };
    const ownSections = analysis.acquires.filter((site) => contains(fn, site.node));
    const inOwnSection = (node: Node) => ownSections.some((site) => inSection(site, node));
    const nodes = [...analysis.calls, ...analysis.taggedTemplates, ...analysis.constructed].filter((n) => contains(fn.body, n) && !inOwnSection(n) && !definedNotRun(n, fn)).sort((a, b) => a.range[0] - b.range[0]);
    const passesToken = (arg: Node | undefined) => !!arg && arg.type !== AST_NODE_TYPES.SpreadElement && (analysis.tracer.isToken(arg) || analysis.tracer.isHandle(arg));
    // Records this function has just inserted: a write that picks one of them writes its own row.
    const inserted = insertedRecords(fn, this.insertInput(fn, analysis));
    const keyParams = (keys: readonly Node[]) => [...new Set(keys.flatMap((k) => [...paramSources(k, fn, this.sourceCode, SAME_VALUE)]))];
    // What each write stores, by the parameters it comes from; a write whose content this function
    // decides itself, in a function the module also runs with no lock held, guards nothing a lock holds.
    const valueParams = (values: readonly (Node | undefined)[]) => [...new Set(values.flatMap((v) => [...paramSources(v, fn, this.sourceCode, BUILT_FROM)]))].sort((a, b) => a - b);
    const unguarded = (valueArgs: number[] | undefined) => valueArgs !== undefined && valueArgs.length === 0 && this.unlockedReach(analysis).calledUnlocked(fn);
    const fnCalls = analysis.calls.filter((c) => contains(fn.body, c));
    const claims: CheckedClaim[] = [];
    for (const node of nodes) {
      if (writes.length >= MAX_WRITES) break;
      const reading = analysis.readWrite(node);
      // Made in a transaction callback whose first step took its row for writing: it commits under
      // that row lock, whatever lock a caller holds (see `locks/transaction-row-locks.ts`).
      if (!reading?.fenced && rowLockedInCallback(node, this.sourceCode)) continue;
      if (reading) {
        // A checked claim of a record: later writes of that record where it matched are this holder's.
        if (reading.fenced) claims.push(...claimsAmong([reading]));
        else if (claims.length > 0 && readingPicksClaimed(reading, claims, this.sourceCode)) continue;
        const keys = recordKeysOf(reading);
        if (keys.some((k) => readsInserted(k, inserted, this.sourceCode))) continue;
        const conditionArgs: number[] = [];
        for (let i = 0; i < fn.params.length; i++) {
          const fromParam = (v: Node) => paramSources(v, fn, this.sourceCode, SAME_VALUE).has(i);
          if (reading.fenced) {
            // Fenced as written: the arguments whose value must be a token for it to stay fenced.
            const withoutToken = analysis.readWrite(node, { isNonTokenValue: (v) => fromParam(v) || analysis.tracer.isNonToken(v), isTokenValue: (v) => !fromParam(v) && analysis.tracer.isToken(v) });
            if (withoutToken && !withoutToken.fenced) conditionArgs.push(i);
          } else {
            // Not fenced as written: the arguments that would fence it, were the caller's value a token.
            const asToken = analysis.readWrite(node, { isTokenValue: (v) => fromParam(v) || analysis.tracer.isToken(v) });
            if (asToken?.fenced) conditionArgs.push(i);
          }
        }
        if (reading.fenced && conditionArgs.length === 0) continue;
        // A write of a function handed a token or lease is judged (and reported) in this module.
        const reportedThere = analysis.receivedWrites.some((w) => w.node === reading.node && !w.fenced);
        const handedIn = reading.sink === 'object' ? reading.write.record?.handedIn : undefined;
        const recordArg = handedIn ? this.directParam(handedIn, fn) : undefined;
        const ofRecord = reading.sink === 'object' && reading.write.record?.inherited ? { ofRecord: true } : recordArg !== undefined ? { recordArg } : {};
        const keyArgs = keyParams(keys);
        const keyParam = reading.sink === 'api' && reading.write.api === 'redis' && keys.length === 1 ? this.directParam(keys[0], fn) : undefined;
        const onlyWithArgs = parametersRequiredFor(reading.node, fn, this.sourceCode);
        const polarity = parameterPolarity(reading.node, fn, this.sourceCode);
        const literalGuards = { ...(polarity.truthy.length > 0 ? { onlyWhenTruthy: polarity.truthy } : {}), ...(polarity.falsy.length > 0 ? { onlyWhenFalsy: polarity.falsy } : {}) };
        const content = reading.sink === 'api' ? redisContent(reading.write) : undefined;
        const valueArgs = content && valueParams(content);
        const own = valueArgs ? { valueArgs, ...(unguarded(valueArgs) ? { unguarded: true } : {}) } : {};
        const flagValue = reading.sink === 'api' ? redisFlagValue(reading.write) : undefined;
        const flagArg = flagValue ? this.directParam(flagValue, fn) : undefined;
        if (flagArg !== undefined) Object.assign(own, { flagArg });
        // An SQL write's table and the parameter it runs on: a caller may have claimed those rows on that connection.
        const table = reading.sink === 'sql' ? reading.verdicts[0]?.statement.table : undefined;
        const connectionArg = table !== undefined ? this.directParam(connectionOf(reading.node), fn) : undefined;
        const target = table !== undefined && connectionArg !== undefined ? { table, connectionArg } : {};
        writes.push({ sink: reading.sink, label: writeLabelOf(reading, this.sourceCode), at: locationOf(this.file, reading.node), fenced: reading.fenced, conditionArgs, reportedThere, flow: [locationOf(this.file, reading.node)], ...ofRecord, ...(keyArgs.length > 0 ? { keyArgs } : {}), ...own, ...(onlyWithArgs.length > 0 ? { onlyWithArgs } : {}), ...literalGuards, ...target, ...(reading.sink === 'api' && reading.write.api === 'redis' ? { keyValue: true } : {}), ...(keyParam !== undefined ? { keyParam } : {}) });
        continue;
      }
      if (node.type !== AST_NODE_TYPES.CallExpression) continue;
      if (analysis.callees?.isPending(node)) partial = true;
      const local = analysis.functions.callee(node);
      const inner = local && local !== fn ? this.summarizeFunction(local, this.functionName(local)) : analysis.callees?.summaryOf(node);
      if (!inner) continue;
      if (inner.partial) partial = true;
      // A write of the instance's own record stays one through `this.m()`; on another receiver it needs a fetched record.
      const onThis = !!calleeObject(node) && unwrap(calleeObject(node)!).type === AST_NODE_TYPES.ThisExpression;
      const onRecord = !onThis && recordReceiver(node, analysis.receivers);
      // The parameters this call's own path tests, and those the callee's write needs that are this function's.
      const guarded = parametersRequiredFor(node, fn, this.sourceCode);
      for (const found of inner.writes) {
        if (found.ofRecord && !onThis && !onRecord) continue;
        // A write behind an optional argument this call leaves out is not made.
        if (found.onlyWithArgs?.some((j) => omitsArgument(node, j))) continue;
        // A write in a branch this call's literal argument rules out (`setBan(user, true)` and the `else`).
        if (literalsRuleOut(node, found.onlyWhenTruthy, found.onlyWhenFalsy)) continue;
        // A constant passed as the value a Redis SET stores: a flag, no data.
        if (found.flagArg !== undefined && isConstantFlagValue(node.arguments[found.flagArg])) continue;
        const needed = new Set(guarded);
        for (const j of found.onlyWithArgs ?? []) {
          const i = this.directParam(node.arguments[j], fn);
          if (i !== undefined) needed.add(i);
        }
        const onlyWithArgs = needed.size > 0 ? { onlyWithArgs: [...needed].sort((a, b) => a - b) } : { onlyWithArgs: undefined };
        const valueArgs = found.valueArgs && valueParams(found.valueArgs.map((j) => node.arguments[j]));
        const own = valueArgs ? { valueArgs, ...(found.unguarded || unguarded(valueArgs) ? { unguarded: true } : {}) } : {};
        const flagArg = found.flagArg !== undefined ? this.directParam(node.arguments[found.flagArg], fn) : undefined;
        // Rows this function's transaction claimed FOR UPDATE through another call, written on that connection.
        if (!found.fenced && claims.length > 0 && callPicksClaimed(node, found.keyArgs, claims, this.sourceCode)) continue;
        if (!found.fenced && writesClaimedRows(node, found, fnCalls, (c) => this.calleeSummary(c, fn, analysis), this.sourceCode)) continue;
        const connectionArg = found.connectionArg !== undefined ? this.directParam(node.arguments[found.connectionArg], fn) : undefined;
        const keyParam = found.keyParam !== undefined ? this.directParam(node.arguments[found.keyParam], fn) : undefined;
        const write = { ...(found.ofRecord && onRecord ? { ...found, ofRecord: undefined } : found), ...own, flagArg, connectionArg, keyParam };
        // The record this write picks is one this function has just inserted.
        const keyNodes = (write.keyArgs ?? []).map((j) => node.arguments[j]).filter((a): a is TSESTree.CallExpressionArgument => a !== undefined);
        if (keyNodes.some((k) => readsInserted(k, inserted, this.sourceCode))) continue;
        const keyArgs = keyParams(keyNodes);
        if (!write.fenced && write.conditionArgs.some((j) => passesToken(node.arguments[j]))) continue;
        // A clock, random or constant value passed where the write expects its token: no fence.
        if (write.fenced && write.conditionArgs.some((j) => { const arg = node.arguments[j]; return !!arg && arg.type !== AST_NODE_TYPES.SpreadElement && analysis.tracer.isNonToken(arg); })) {
          writes.push({ ...write, fenced: false, conditionArgs: [], keyArgs, ...onlyWithArgs, flow: [locationOf(this.file, node), ...write.flow] });
          continue;
        }
        const conditionArgs = new Set<number>();
        for (const j of write.conditionArgs) for (const i of paramSources(node.arguments[j], fn, this.sourceCode, SAME_VALUE)) conditionArgs.add(i);
        // Fenced inside, on a value this function computes itself: fenced for its callers too.
        if (write.fenced && conditionArgs.size === 0) continue;
        writes.push({ ...write, conditionArgs: [...conditionArgs], keyArgs, ...onlyWithArgs, flow: [locationOf(this.file, node), ...write.flow] });
        if (writes.length >= MAX_WRITES) break;
      }
    }
    return { writes, partial };
  }

  private reach: { analysis: FileAnalysis; reach: UnlockedReach } | undefined;

  /** Where this module runs code with no lock held (built once per analysis, on first use). */
  private unlockedReach(analysis: FileAnalysis): UnlockedReach {
    if (this.reach?.analysis !== analysis) this.reach = { analysis, reach: new UnlockedReach(analysis.calls, analysis.functions, analysis.acquires.flatMap(sectionRanges), false) };
    return this.reach.reach;
  }

  /** How inserts are recognised in `fn`: library creates by name, project functions by their summaries. */
  private insertInput(fn: FunctionNode, analysis: FileAnalysis): InsertedRecordInput {
    return {
      sourceCode: this.sourceCode,
      summaryOf: (call) => {
        const local = analysis.functions.callee(call);
        return local && local !== fn ? this.summarizeFunction(local, this.functionName(local)) : analysis.callees?.summaryOf(call);
      },
    };
  }

  private functionName(fn: FunctionNode): string {
    const parent = fn.parent;
    if (fn.type === AST_NODE_TYPES.FunctionDeclaration && fn.id) return fn.id.name;
    if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier) return parent.id.name;
    if ((parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.PropertyDefinition || parent?.type === AST_NODE_TYPES.Property) && !parent.computed) {
      return propertyKeyName(parent) ?? 'function';
    }
    return 'function';
  }

  /**
   * `fn(this, tx)` on a function parameter, directly or through another method that does
   * (`return this.storeFor(id).runInTransaction(id, fn)`): the callback gets this object back.
   */
  private selfToCallbackOf(fn: FunctionNode, analysis: FileAnalysis): FunctionSummary['selfToCallback'] {
    for (const call of analysis.calls) {
      if (!contains(fn.body, call)) continue;
      const arg = this.directParam(call.callee, fn);
      const param = call.arguments.findIndex((a) => unwrap(a).type === AST_NODE_TYPES.ThisExpression);
      if (arg !== undefined && param >= 0) return { arg, param };
    }
    for (const call of analysis.calls) {
      if (!contains(fn.body, call) || unwrap(call.callee).type !== AST_NODE_TYPES.MemberExpression) continue;
      const inner = analysis.callees?.summaryOf(call)?.selfToCallback;
      const handed = inner ? this.directParam(call.arguments[inner.arg], fn) : undefined;
      if (inner && handed !== undefined) return { arg: handed, param: inner.param };
    }
    return undefined;
  }

  /**
   * A query wrapper: a call in `fn` of a SQL client's query method whose text is a parameter of
   * `fn` (`pool.query(sql, params)`, `pool.query({ text: sql, values: params })`, the text perhaps
   * rewritten in place first). The receiver must be a SQL client, or unresolved and called `query`.
   */
  private runsSqlParamOf(fn: FunctionNode, analysis: FileAnalysis): FunctionSummary['runsSqlParam'] {
    if (this.locksOnly) return undefined;
    const catalog = analysis.receivers.catalog;
    for (const call of analysis.calls) {
      const method = calleeName(call);
      if (!method || !catalog.sqlMethodNames.has(method) || !contains(fn.body, call)) continue;
      const object = calleeObject(call);
      const model = object ? analysis.receivers.sinkModelOf(object) : undefined;
      if (model ? model.family !== 'sql' : method !== 'query') continue;
      const first = call.arguments[0] && call.arguments[0].type !== AST_NODE_TYPES.SpreadElement ? unwrap(call.arguments[0]) : undefined;
      if (!first) continue;
      const config = first.type === AST_NODE_TYPES.ObjectExpression ? first : undefined;
      const textNode = config ? propertyValue(config, /^(?:text|sql)$/) : first;
      const valuesNode = config ? propertyValue(config, 'values') : call.arguments[1];
      const text = this.directParam(textNode, fn);
      if (text === undefined) continue;
      const values = valuesNode && valuesNode.type !== AST_NODE_TYPES.SpreadElement ? this.directParam(valuesNode, fn) : undefined;
      return values !== undefined ? { text, values } : { text };
    }
    return undefined;
  }

  /** The summary of what a call of `fn` invokes: a same-file function, or another module's. */
  private calleeSummary(call: TSESTree.CallExpression, fn: FunctionNode, analysis: FileAnalysis): FunctionSummary | undefined {
    const local = analysis.functions.callee(call);
    return local && local !== fn ? this.summarizeFunction(local, this.functionName(local)) : analysis.callees?.summaryOf(call);
  }

  /** Tables `fn` reads `FOR UPDATE` on a connection that is one of its parameters (see `claimsRows`). */
  private claimsRowsOf(fn: FunctionNode, analysis: FileAnalysis): Array<{ table: string; connectionArg: number }> {
    const out: Array<{ table: string; connectionArg: number }> = [];
    for (const node of [...analysis.calls, ...analysis.taggedTemplates]) {
      if (!contains(fn.body, node) || out.length >= 4) continue;
      const text = node.type === AST_NODE_TYPES.TaggedTemplateExpression ? node.quasi.quasis.map((q) => q.value.raw).join(' ') : this.sourceCode.getText(node);
      if (!/\bfor\s+(?:no\s+key\s+)?update\b/i.test(text)) continue;
      const call = readSqlCall(node, this.sourceCode, analysis.receivers);
      const connectionArg = call && this.directParam(connectionOf(call.node), fn);
      if (!call || connectionArg === undefined) continue;
      for (const s of call.source.analysis.statements) if (s.kind === 'select' && s.forUpdate && s.table) out.push({ table: s.table, connectionArg });
    }
    return out;
  }

  /**
   * Whether `fn` reads rows through the ORM taking them for writing (see `locksRows`): itself, or
   * by returning what a function that does returns (a service delegating to its repository).
   */
  private locksRowsOf(fn: FunctionNode, analysis: FileAnalysis): boolean {
    if (analysis.calls.some((call) => contains(fn.body, call) && readsRowForWrite(call))) return true;
    return this.returnsOf(fn).some((r) => {
      const value = unwrap(r);
      const call = value.type === AST_NODE_TYPES.AwaitExpression ? unwrap(value.argument) : value;
      return call.type === AST_NODE_TYPES.CallExpression && this.calleeSummary(call, fn, analysis)?.locksRows === true;
    });
  }

  private summarizeFunction(fn: FunctionNode, name: string): FunctionSummary {
    const memo = this.functionMemo.get(fn);
    const base: FunctionSummary = { name, at: locationOf(this.file, fn), params: fn.params.map(paramName), releases: [], writes: [], partial: false };
    if (memo) return memo;
    // Recursion: what the function does is not known yet where it calls itself.
    if (memo === null) return { ...base, partial: true };
    const analysis = this.getAnalysis();
    if (!analysis) return { ...base, partial: true };
    this.functionMemo.set(fn, null);
    const summary: FunctionSummary = { ...base };
    try {
      summary.acquire = this.acquireOf(fn, analysis);
      // A helper that takes and releases its own lock is no release for its callers.
      summary.releases = summary.acquire ? [] : this.releasesOf(fn, name, analysis);
      const { writes, partial } = this.writesOf(fn, analysis);
      summary.writes = writes;
      summary.partial = partial;
      summary.returnsToken = this.returnsTokenOf(fn, analysis);
      summary.returnsReceiver = this.returnsOf(fn).map((r) => analysis.receivers.kindOf(r)).find((k) => k !== undefined);
      const insertInput = this.insertInput(fn, analysis);
      if (!this.locksOnly && this.returnsOf(fn).some((r) => isInsertResult(r, insertedRecords(fn, insertInput), insertInput))) summary.returnsInserted = true;
      summary.selfToCallback = this.selfToCallbackOf(fn, analysis);
      summary.runsSqlParam = this.runsSqlParamOf(fn, analysis);
      const claims = this.locksOnly ? [] : this.claimsRowsOf(fn, analysis);
      if (claims.length > 0) summary.claimsRows = claims;
      if (!this.locksOnly && this.locksRowsOf(fn, analysis)) summary.locksRows = true;
      if (mentionsAbort(fn, this.sourceCode.text)) summary.checksLease = abortCheckOf(fn, this.sourceCode.visitorKeys);
      // An acquire that comes from a helper we could not read is unknown, not absent.
      if (!summary.acquire && analysis.calls.some((c) => contains(fn.body, c) && analysis.callees?.isPending(c))) summary.partial = true;
    } catch {
      summary.partial = true;
    }
    if (summary.partial) this.partialFunctions.add(fn);
    this.functionMemo.set(fn, summary);
    return summary;
  }
}

/** The connection or transaction an SQL call runs on: `tx` of `tx.query(...)` and of `` tx`...` ``. */
function connectionOf(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | TSESTree.NewExpression): Node | undefined {
  const head = unwrap(node.type === AST_NODE_TYPES.TaggedTemplateExpression ? node.tag : node.callee);
  if (head.type === AST_NODE_TYPES.Identifier) return node.type === AST_NODE_TYPES.TaggedTemplateExpression ? head : undefined;
  return head.type === AST_NODE_TYPES.MemberExpression ? unwrap(head.object) : undefined;
}

/** An inner helper's key arguments as this function's parameters; undefined when one is not a parameter here. */
function mappedKeyArgs(inner: readonly number[], call: TSESTree.CallExpression, fn: FunctionNode, sourceCode: SourceCode): number[] | undefined {
  const all = new Set<number>();
  for (const index of inner) {
    const sources = paramSources(call.arguments[index], fn, sourceCode, NAMED_BY);
    if (sources.size === 0) return undefined;
    for (const source of sources) all.add(source);
  }
  return all.size > 1 ? [...all].sort((a, b) => a - b) : undefined;
}
