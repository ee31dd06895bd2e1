/**
 * One pass per file, shared by every rule (and by the language server's hover): finds the
 * acquires, their critical sections (following same-file calls), the writes reached inside
 * them, and whether each write carries a fence condition.
 */
import { isAbsolute } from 'node:path';
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { RuleContext, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, contains, enclosingFunction, isFunctionNode, memberName, receiverPath, unwrap, walk, type FunctionNode, type Node } from './ast.js';
import { fileNodes } from './file-nodes.js';
import { findAcquires, releasedInPlace, type AcquireSite } from './locks/acquires.js';
import { callsKnownInstance } from './modules/method-receivers.js';
import { boundToAdvisoryLock, callBoundToAdvisoryLock, chainBoundToAdvisoryLock, returnedUnrunBy, runsLaterInBatch, type AdvisoryScope, type SqlNode } from './locks/advisory-scope.js';
import { rowLockedInCallback, rowLockedSection, type RowLockedSection } from './locks/transaction-row-locks.js';
import { fileWideKey, RedisLockKeys } from './locks/redis-locks.js';
import { namesHeldKey, sameAsHeldKey } from './locks/held-key-callers.js';
import { inSection, sectionRanges } from './locks/untaken-branches.js';
import { callPicksClaimed, claimsAmong, readingPicksClaimed } from './claim-ownership.js';
import { isFreshKey, lockKeyArgument } from './locks/fresh-keys.js';
import { writesClaimedRows } from './locks/row-claims.js';
import { agedKnexPurge, agedObjectPurge, agedScoreTrim, agedSqlPurge } from './sinks/aged-rows.js';
import { recheckedInTransaction } from './sinks/rechecked-writes.js';
import { claimedByUniqueInsert } from './sinks/unique-claims.js';
import { firstAwaitEnd, startedJustBeforeRelease } from './locks/unawaited-calls.js';
import { LOCK_KEY_NAME } from './models/locks.js';
import { REDIS_WATCH_METHOD } from './models/record-reads.js';
import { FunctionIndex } from './modules/functions.js';
import { recordImport, resolveImported, type ImportBinding, type ImportTable } from './modules/imports.js';
import { projectGraph } from './modules/module-graph.js';
import type { ProjectView } from './modules/module-graph.js';
import { ProjectCallees } from './modules/project-callees.js';
import { forwardedCall, tableEntryFunctions } from './modules/table-entries.js';
import { isCacheFillRead } from './sinks/cache-fills.js';
import { ownerOf, UnlockedReach } from './modules/unlocked-reach.js';
import { BUILT_FROM, directParam, paramSources } from './modules/param-sources.js';
import type { FunctionSummary, SourceLocation, WriteSummary } from './modules/summaries.js';
import { judgeKnexWrite, readKnexWrite, type KnexVerdict, type KnexWrite } from './sinks/knex-writes.js';
import { judgeObjectWrite, objectWriteTable, readObjectWrite, type ObjectVerdict, type ObjectWrite } from './sinks/object-writes.js';
import { isLeaseUpkeepColumn, isLockTable } from './models/lock-tables.js';
import { apiWriteFenced, isConstantFlagValue, readApiWrite, redisCommandOf, type ApiWrite } from './sinks/api-writes.js';
import { isBuiltRecord, readRecordWrite, recordReceiver } from './sinks/record-writes.js';
import { ReceiverTable, receiverKey } from './modules/receivers.js';
import { typeResolverFor } from './modules/types.js';
import { catalogFor, projectSetting, settingsKey, tokenColumnSetting } from './settings.js';
import { isProtectedWrite, judgeWrite, readSqlCall, type SqlCall, type WriteVerdict } from './sinks/sql-writes.js';
import { literalsRuleOut, omitsArgument } from './modules/optional-arguments.js';
import { onlyRelativeAssignments, onlyRelativeKnexWrite, onlyRelativeObjectWrite } from './sinks/relative-changes.js';
import { claimedKey, conditionOnArgument, definedCommands, onlyAddsIfAbsent, judgeRedisScript, readRedisScript, type RedisScriptCommands, type RedisScriptVerdict } from './sinks/redis-scripts.js';
import { sinkModel } from './models/sinks.js';
import { findReceivedLeases, type ReceivedLease } from './tokens/received-leases.js';
import { HANDLE_STEP, TokenTracer, type PathStep } from './tokens/token-tracer.js';
import { buildModuleSummary, localLockSummaries, writeLabelOf } from './module-summaries.js';
import { insertedRecords, isInsertResult, readsInserted } from './sinks/inserted-records.js';
import { recordKeysOf } from './record-keys.js';

export interface SqlWriteSite {
  sink: 'sql';
  node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;
  acquire: AcquireSite;
  call: SqlCall;
  /** One verdict per protected write statement in the text. */
  verdicts: WriteVerdict[];
  fenced: boolean;
  /** Made on the advisory lock's own connection, in its transaction or session: it cannot outlive the lock. */
  boundToLock?: AdvisoryScope;
}

export interface KnexWriteSite {
  sink: 'knex';
  node: TSESTree.CallExpression;
  acquire: AcquireSite;
  write: KnexWrite;
  verdict: KnexVerdict;
  fenced: boolean;
  /** Made on the advisory lock's own connection, in its transaction or session: it cannot outlive the lock. */
  boundToLock?: AdvisoryScope;
}

export interface ObjectWriteSite {
  sink: 'object';
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  acquire: AcquireSite;
  write: ObjectWrite;
  verdict: ObjectVerdict;
  fenced: boolean;
  /** Made on the advisory lock's own connection, in its transaction or session: it cannot outlive the lock. */
  boundToLock?: AdvisoryScope;
}

export interface ApiWriteSite {
  sink: 'api';
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  acquire: AcquireSite;
  write: ApiWrite;
  /** Redis scripts only: what the script compares and stores. */
  verdict?: RedisScriptVerdict;
  fenced: boolean;
  /** Made on the advisory lock's own connection, in its transaction or session: it cannot outlive the lock. */
  boundToLock?: AdvisoryScope;
}

/** A call to a project function (another module's repository, DAL function, service) that writes. */
export interface CallWriteSite {
  sink: 'call';
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  acquire: AcquireSite;
  /** The summary of the function called. */
  callee: FunctionSummary;
  /** The write inside that decides the verdict: the first unfenced one, else the first. */
  write: WriteSummary;
  fenced: boolean;
  /** Handed the advisory lock's own connection, in its transaction or session: its writes cannot outlive the lock. */
  boundToLock?: AdvisoryScope;
  /** From the lock to the write, across files: the acquire (and the lock inside a helper), the calls, the write. */
  flow: SourceLocation[];
  /** The write inside fences on an argument, and this call passes a clock, random or constant value there. */
  nonTokenArgument?: Node;
  /** The other unfenced writes inside, each at its own place (a function that writes three keys makes three late writes). */
  furtherUnfenced?: WriteSummary[];
}

export type WriteSite = (SqlWriteSite | KnexWriteSite | ObjectWriteSite | ApiWriteSite | CallWriteSite) & {
  /**
   * A write in a same-file helper that several critical sections reach: reported at each
   * of those calls (as a call to another module's function is), not here. See `sharedHelperCalls`.
   */
  reachedFrom?: CallWriteSite[];
};

/** A write read at a node, before it is tied to a critical section. */
export type WriteReading =
  | Omit<SqlWriteSite, 'acquire'>
  | Omit<KnexWriteSite, 'acquire'>
  | Omit<ObjectWriteSite, 'acquire'>
  | Omit<ApiWriteSite, 'acquire'>;

/** A write of this file read anywhere, in a critical section (`acquire` set) or not. */
export type AnyWriteSite = WriteReading & { acquire?: AcquireSite };

/** A write in a function handed a token or lease by its caller, outside any critical section of this file. */
export type ReceivedWriteSite = WriteReading & { received: ReceivedLease };

/** How `readWrite` judges values; the tracer's answers by default. */
export interface ReadWriteJudge {
  isTokenValue?: (node: Node) => boolean;
  isNonTokenValue?: (node: Node) => boolean;
  earlier?: FileAnalysis['sqlCalls'];
}

export interface AnalysisOptions {
  /** Absolute path of the file: its imports are followed into the project's modules. */
  file?: string;
  /** How the file sees the project's modules; derived from `file` when not given. */
  project?: ProjectView;
  /** Summarising an imported module: no lock-word gate, every function's writes are read. */
  summaryMode?: boolean;
  /** The tree is the one ESLint lints (a rule's `context.sourceCode`): its traversal is there to read. */
  linted?: boolean;
}

export interface FileAnalysis {
  acquires: AcquireSite[];
  /** Protected writes reached while a lock is held. */
  writes: WriteSite[];
  /** Functions handed a fence token or a lease by their caller (the acquire is elsewhere). */
  received: ReceivedLease[];
  /** Protected writes of those functions (and of same-file functions they call) outside any section. */
  receivedWrites: ReceivedWriteSite[];
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
  /** Every `new` expression of the file, in source order. */
  constructed: TSESTree.NewExpression[];
  /** The project functions calls invoke, with their summaries; undefined without project analysis. */
  callees?: ProjectCallees;
  /** The absolute path of the file, when known. */
  file?: string;
  /**
   * The write a call or tagged template makes, judged with `isTokenValue` (the tracer's by
   * default), whether or not a lock is held there. `earlier`: SQL calls before it in the same
   * section, for `SELECT ... FOR UPDATE` row locks.
   */
  readWrite(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | TSESTree.NewExpression, judge?: ReadWriteJudge): WriteReading | undefined;
}

/**
 * A file with no lock word whose class hands a callback to an imported base class that runs it
 * under a lock (`super({ onFlush: ... })`): the section is in this file, the lock in the base's.
 */
function extendsLockingBase(sourceCode: SourceCode, viewOf: () => ProjectView | undefined): boolean {
  if (!/\bsuper\s*\(/.test(sourceCode.text)) return false;
  const ast = sourceCode.ast as TSESTree.Program;
  const imports: ImportTable = new Map();
  for (const statement of ast.body) if (statement.type === AST_NODE_TYPES.ImportDeclaration) recordImport(statement, imports);
  const bases: ImportBinding[] = [];
  for (const statement of ast.body) {
    const decl = statement.type === AST_NODE_TYPES.ExportNamedDeclaration || statement.type === AST_NODE_TYPES.ExportDefaultDeclaration ? statement.declaration : statement;
    if ((decl?.type === AST_NODE_TYPES.ClassDeclaration || decl?.type === AST_NODE_TYPES.ClassExpression) && decl.superClass) {
      const binding = resolveImported(decl.superClass, imports);
      // A package's class resolves to no project file and reads as unknown.
      if (binding) bases.push(binding);
    }
  }
  if (bases.length === 0) return false;
  const view = viewOf();
  if (!view) return false;
  try {
    return bases.some((binding) => {
      const exported = view.exportOfBinding(binding);
      return exported?.kind === 'class' && exported.construct?.acquire !== undefined;
    });
  } catch {
    return false;
  }
}

/**
 * A file that names no lock can still take one through the project's own helper
 * (`await runExclusive('digest', async () => ...)` from `../jobs/guard`): an import the module
 * graph summarises as an acquire, a callback or a handle one, opens the gate. Only a module whose
 * own text names a lock (or re-exports others) is summarised for the question, so a file of plain
 * code pays one resolution and one cached text test per project import.
 */
function importsLockHelper(sourceCode: SourceCode, viewOf: () => ProjectView | undefined): boolean {
  const table: ImportTable = new Map();
  for (const statement of (sourceCode.ast as TSESTree.Program).body) {
    if (statement.type === AST_NODE_TYPES.ImportDeclaration) {
      if (statement.importKind === 'type') continue;
      const own: ImportTable = new Map();
      recordImport(statement, own);
      for (const [local, binding] of own) {
        const spec = statement.specifiers.find((s) => s.local.name === local);
        if (!(spec?.type === AST_NODE_TYPES.ImportSpecifier && spec.importKind === 'type')) table.set(local, binding);
      }
    } else if (statement.type === AST_NODE_TYPES.VariableDeclaration) {
      // CommonJS: `const { runExclusive } = require('../jobs')`.
      for (const declarator of statement.declarations) recordImport(declarator, table);
    }
  }
  const bindings = [...table.values()];
  if (bindings.length === 0) return false;
  const view = viewOf();
  if (!view) return false;
  try {
    return bindings.some((binding) => {
      const file = view.resolve(binding.source);
      if (!file || !view.moduleTextMatches(file, LOCK_HELPER_MODULE)) return false;
      const exported = view.exportOfBinding(binding);
      if (exported?.kind === 'function') return exported.fn.acquire !== undefined;
      if (exported?.kind === 'class') return [...exported.statics.values(), ...exported.methods.values()].some((fn) => fn.acquire !== undefined);
      // A namespace or an exported object of functions: `jobs.runExclusive(...)`.
      if (exported?.kind === 'object') return [...exported.members.values()].some((fn) => fn.acquire !== undefined);
      return false;
    });
  } catch {
    return false;
  }
}

/**
 * Words without which a file cannot hold a lock: lets most files skip the analysis entirely.
 * `lock`/`lease` must start a word or a camelCase part, so `block`, `clock` and `release` do not
 * count, and OAuth's `acquireToken` is no acquire.
 *
 * It runs over the text of every linted file, so it is written for speed: the character before
 * `lock`/`lease` is matched (`^|[^A-Za-z]`, `[a-z0-9_]`) rather than looked behind at, which makes
 * V8 try every position of the text against each lookbehind. Only `test` is ever asked of it.
 */
export const LOCK_HINT = /acquire(?!Token)|(?:^|[^A-Za-z])[lL](?:ock|ease)|[a-z0-9_]L(?:ock|ease)|LOCK|LEASE|[rR]edlock|mutex|Mutex|semaphore|Semaphore|\bNX\b|\bnx\s*:|setnx|setNX|advisory|fenc|Fenc|\.election\s*\(/;
/** A module that may export a lock helper: its text names a lock, or it re-exports other modules (a barrel). */
const LOCK_HELPER_MODULE = new RegExp(`${LOCK_HINT.source}|\\bexport\\s*(?:\\*|\\{[^}]*\\})\\s*from\\b`);
const MAX_CALL_DEPTH = 4;

const cache = new WeakMap<SourceCode, FileAnalysis>();

export function getFileAnalysis(context: Readonly<RuleContext<string, readonly unknown[]>>): FileAnalysis {
  const sourceCode = context.sourceCode;
  const cached = cache.get(sourceCode);
  if (cached) return cached;
  const filename = context.physicalFilename ?? context.filename;
  const analysis = analyzeFile(sourceCode, context.settings, { file: isAbsolute(filename) ? filename : undefined, linted: true });
  cache.set(sourceCode, analysis);
  return analysis;
}

/** Summaries of imported modules: each is analysed by this same pass, in summary mode. */
function summarizerFor(settings: unknown) {
  return (moduleSource: SourceCode, file: string, hash: string, view: ProjectView) =>
    buildModuleSummary(moduleSource, file, hash, view, (project) => analyzeFile(moduleSource, settings, { file, project, summaryMode: true }));
}

function bodyOf(fn: FunctionNode): TSESTree.Range {
  return fn.body.range;
}

export function analyzeFile(sourceCode: SourceCode, settings: unknown, options: AnalysisOptions = {}): FileAnalysis {
  const imports: ImportTable = new Map();
  const catalog = catalogFor(settings);
  const receivers = new ReceiverTable(imports, catalog);
  const functions = new FunctionIndex();
  const tokenColumn = tokenColumnSetting(settings);
  const calls: TSESTree.CallExpression[] = [];
  const tagged: TSESTree.TaggedTemplateExpression[] = [];
  const constructed: TSESTree.NewExpression[] = [];
  const membersRead = new Map<string, Set<string>>();
  const functionNodes: FunctionNode[] = [];

  let scripts: RedisScriptCommands = new Map();
  // A lock taken through a helper (`this.claim(doc)`) has no key at its call site; a plain SET of
  // the key the file's SET NX lease takes (`this.keyFor(doc)` in the renewal timer) renews or
  // takes over that lock, it writes nothing the lock protects.
  let lockKeys: RedisLockKeys | undefined;
  // A key parameter that every caller fills with the value naming a lock it takes is that lock's key.
  let heldAcquires: AcquireSite[] = [];
  const isOwnLockKey = (key: Node): boolean => {
    lockKeys ??= new RedisLockKeys(calls, sourceCode);
    const site = lockKeys.setNxOf(key);
    if (site && (fileWideKey(key, sourceCode) || enclosingFunction(site.call) === enclosingFunction(key))) return true;
    return namesHeldKey(key, heldAcquires, functions, sourceCode) || sameAsHeldKey(key, heldAcquires, functions, sourceCode);
  };

  // `await this.watch(key)` before `multi()...exec()`: a WATCH sent in the function, or by a same-file helper it called.
  const watchedBefore = (node: Node): boolean => {
    const fn = enclosingFunction(node);
    const sendsWatch = (call: TSESTree.CallExpression, depth: number): boolean => {
      if (REDIS_WATCH_METHOD.test(calleeName(call) ?? '')) return true;
      const callee = depth < 2 ? functions.callee(call) : undefined;
      return !!callee && calls.some((c) => enclosingFunction(c) === callee && sendsWatch(c, depth + 1));
    };
    return calls.some((c) => c.range[1] <= node.range[0] && enclosingFunction(c) === fn && sendsWatch(c, 0));
  };

  // A write whose records the same transaction has just read again and checked (see `rechecked-writes.ts`).
  const recheckedBefore = (write: ObjectWrite): boolean => recheckedInTransaction(write, calls, sourceCode);
  // A write batched with an insert of a unique key in one transaction (see `unique-claims.ts`).
  const claimedUniquely = (write: ObjectWrite): boolean => claimedByUniqueInsert(write, calls, sourceCode);

  const readWrite: FileAnalysis['readWrite'] = (node, judge = {}) =>
    readWriteAt(node, {
      receivers,
      sourceCode,
      isTokenValue: judge.isTokenValue ?? ((n) => tracer.isToken(n)),
      isNonTokenValue: judge.isNonTokenValue ?? ((n) => tracer.isNonToken(n)),
      earlier: judge.earlier ?? [],
      isOwnLockKey,
      scripts,
      inheritedRecords: options.summaryMode,
      watchedBefore,
      recheckedBefore,
      claimedUniquely,
    });
  let tracer = new TokenTracer(sourceCode, functions, [], { imports, catalog });
  const empty = (): FileAnalysis => ({
    acquires: [], writes: [], received: [], receivedWrites: [], sqlCalls: [], calls, taggedTemplates: tagged, constructed, tracer, functions, receivers, tokenColumn, sectionOf: () => undefined, readWrite, file: options.file,
  });
  // One view (one budget) for the gate and the pass, so the modules the gate read count as this file's dependencies.
  let view: ProjectView | undefined | null = null;
  const viewOf = () => {
    if (view === null) view = options.project ?? (options.file && projectSetting(settings) ? projectGraph.viewFor(options.file, settingsKey(settings), summarizerFor(settings)) : undefined);
    return view;
  };
  if (!options.summaryMode && !LOCK_HINT.test(sourceCode.text) && !catalog.ownLockHint?.test(sourceCode.text) && !extendsLockingBase(sourceCode, viewOf) && !importsLockHelper(sourceCode, viewOf)) return empty();

  // The project's modules are consulted only for files that passed the gate.
  const project = viewOf();
  const callees = project ? new ProjectCallees(project, imports, sourceCode) : undefined;
  if (callees) {
    receivers.importedKind = (binding) => {
      // Project code by its declaration (a class, or a registry of classes such as `models.Order`)
      // is no client, and no static member of another export either: no summary is read for it.
      if (callees.view.isPlainCodeBinding(binding)) return undefined;
      const exported = callees.view.receiverExportOf(binding);
      if (exported?.kind === 'value') return exported.receiver;
      // `Redis.defaultClient` of `import Redis from './redis'`: a static member of the default-exported class.
      if (exported === undefined && binding.exported !== 'default' && binding.exported !== '*') {
        const owner = callees.view.exportOfBinding({ ...binding, exported: 'default' });
        if (owner?.kind === 'class') return owner.staticReceivers?.get(binding.exported);
      }
      return undefined;
    };
    receivers.importedCallKind = (binding) => {
      const exported = callees.view.exportOfBinding(binding);
      return exported?.kind === 'function' ? exported.fn.returnsReceiver : undefined;
    };
    receivers.methodCallKind = (call) => callees.summaryOf(call)?.returnsReceiver;
    receivers.fieldKind = (member) => callees.fieldReceiverOf(member);
    receivers.libraryBaseOf = (binding) => callees.view.libraryBaseOfBinding(binding);
    receivers.forwardedSql = (call) => callees.summaryOf(call)?.runsSqlParam;
  }
  // A project's own method (a same-file class's instance, or a summarized one of another module).
  receivers.projectMethod = (call) => {
    const local = functions.callee(call);
    if (local && callsKnownInstance(call, local)) return true;
    return callees !== undefined && callees.summaryOf(call) !== undefined;
  };

  const ast = sourceCode.ast as TSESTree.Program;
  for (const node of fileNodes(sourceCode, options.linted === true)) {
    switch (node.type) {
      case AST_NODE_TYPES.ImportDeclaration:
      case AST_NODE_TYPES.TSImportEqualsDeclaration:
        recordImport(node, imports);
        break;
      case AST_NODE_TYPES.VariableDeclarator:
        recordImport(node, imports);
        receivers.record(node);
        functions.record(node);
        callees?.record(node);
        break;
      case AST_NODE_TYPES.AssignmentExpression:
        receivers.record(node);
        functions.record(node);
        callees?.record(node);
        break;
      case AST_NODE_TYPES.TSParameterProperty:
        receivers.record(node);
        callees?.record(node);
        break;
      case AST_NODE_TYPES.PropertyDefinition:
        receivers.record(node);
        functions.record(node);
        callees?.record(node);
        break;
      case AST_NODE_TYPES.FunctionDeclaration:
      case AST_NODE_TYPES.FunctionExpression:
      case AST_NODE_TYPES.ArrowFunctionExpression:
        functions.record(node);
        functionNodes.push(node);
        if (node.type === AST_NODE_TYPES.FunctionDeclaration) {
          receivers.record(node);
          callees?.record(node);
        }
        for (const param of node.params) {
          if (param.type !== AST_NODE_TYPES.Identifier) continue;
          receivers.record(param);
          callees?.record(param);
        }
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
        callees?.record(node);
        break;
      case AST_NODE_TYPES.TSTypeAliasDeclaration:
        receivers.record(node);
        break;
      case AST_NODE_TYPES.TSInterfaceDeclaration:
        receivers.record(node);
        callees?.record(node);
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
  }
  receivers.finish();
  receivers.inferRedisByCommands(calls, callees && ((key) => callees.isInstance(key)));
  receivers.typeResolver = typeResolverFor(sourceCode, (binding) => receivers.knows(binding));
  scripts = definedCommands(calls, sourceCode);
  // Acquires are classified after the walk, so every receiver of the file is known by then.
  const fileName = options.file ?? '<text>';
  const projectSummary = callees ? (call: TSESTree.CallExpression) => callees.summaryOf(call) : undefined;
  const acquireInput = {
    calls,
    taggedTemplates: tagged,
    receivers,
    sourceText: (n: Node) => sourceCode.getText(n),
    sourceCode,
    membersRead,
    program: ast,
    summaryOf: projectSummary,
    functionNamed: (name: string) => functions.named(name),
    localCallee: (call: TSESTree.CallExpression) => functions.callee(call),
    isInProcessLock: callees ? (n: Node) => callees.isInProcessLock(n) : undefined,
    locationOf: (n: Node) => locationOf(fileName, n),
    scriptClaimKey: (call: TSESTree.CallExpression) => {
      const script = readRedisScript(call, sourceCode, scripts);
      return script && claimedKey(script);
    },
  };
  if (callees) spendBudgetOnLocksFirst(acquireInput, callees, functions, sourceCode);
  let acquires = findAcquires(acquireInput);
  let summaryOf = projectSummary;
  // The file's own lock helpers (a function that takes a lock and returns holding it, or runs a
  // parameter under it): a second pass reads their calls as acquires, from their summaries.
  const helpers = localLockHelpers(acquires, functions, calls, sourceCode);
  if (helpers.size > 0) {
    const firstPass: FileAnalysis = {
      ...empty(), acquires, tracer: new TokenTracer(sourceCode, functions, acquires, { imports, catalog }), callees,
    };
    const local = localLockSummaries(firstPass, sourceCode, fileName);
    // And the same-file functions named for giving a lock back (`this.releaseRoomLock(id)`): their
    // summaries say what they release, so a section that calls one ends there.
    const releasers = new Set(calls.filter((c) => RELEASE_HELPER_NAME.test(calleeName(c) ?? '')).map((c) => functions.callee(c)).filter((f): f is FunctionNode => f !== undefined));
    const localSummary = (call: TSESTree.CallExpression) => {
      const fn = functions.callee(call);
      return fn && (helpers.has(fn) || releasers.has(fn)) && !contains(fn, call) ? local(fn) : undefined;
    };
    summaryOf = (call) => projectSummary?.(call) ?? localSummary(call);
    acquires = findAcquires({ ...acquireInput, summaryOf });
  }
  heldAcquires = acquires;
  // A receiver this file takes a SET NX lease on is a Redis client, whatever its declared type
  // (`private redis: RedisLike`, a structural subset of ioredis): its other commands are Redis writes.
  for (const site of acquires) {
    if (site.library !== 'redis-set-nx' || site.origin || site.node.type !== AST_NODE_TYPES.CallExpression) continue;
    const object = calleeObject(site.node);
    const key = object && receiverKey(object);
    if (key && !receivers.get(key)) receivers.set(key, { type: 'redis' });
  }
  const hooks = summaryOf && { returnsToken: (call: TSESTree.CallExpression, path: readonly PathStep[]) => summaryReturnsToken(summaryOf(call), path) };
  tracer = new TokenTracer(sourceCode, functions, acquires, { imports, hooks, catalog });
  // A function that takes its own lock is judged by that lock's section.
  const received = findReceivedLeases(
    functionNodes.filter((fn) => !acquires.some((a) => contains(fn, a.node))),
    tracer,
    receivers,
    sourceCode,
  );
  if (acquires.length === 0 && received.length === 0) return { ...empty(), tracer, callees };

  // Functions reached from each critical section: the section runs their bodies too.
  const reached = new Map<FunctionNode, AcquireSite>();
  // The call in the section itself through which a function is reached (`renameShelf(id)`).
  const enteredBy = new Map<FunctionNode, TSESTree.CallExpression>();
  // Functions the section starts without waiting for, right before its release: what they run
  // after their first `await` runs once the lock is given back (from this offset on).
  const releasedBefore = new Map<FunctionNode, number>();
  for (const site of acquires) {
    const queue: Array<{ range: TSESTree.Range; depth: number }> = sectionRanges(site).map((range) => ({ range, depth: 0 }));
    while (queue.length > 0) {
      const { range, depth } = queue.shift()!;
      if (depth >= MAX_CALL_DEPTH) continue;
      for (const call of calls) {
        if (!contains(range, call)) continue;
        const fn = functions.callee(call);
        if (!fn || reached.has(fn) || contains(fn, site.node)) continue;
        reached.set(fn, site);
        if (depth === 0) enteredBy.set(fn, call);
        const late = depth === 0 && startedJustBeforeRelease(call, site, sourceCode) ? firstAwaitEnd(fn, sourceCode) : undefined;
        if (late !== undefined) releasedBefore.set(fn, late);
        const body = bodyOf(fn);
        queue.push({ range: late !== undefined ? [body[0], late] : body, depth: depth + 1 });
      }
    }
  }

  // Same for the functions handed a lease: their same-file callees run under it too.
  const reachedFromReceived = new Map<FunctionNode, ReceivedLease>();
  for (const lease of received) {
    const queue: Array<{ range: TSESTree.Range; depth: number }> = [{ range: bodyOf(lease.fn), depth: 0 }];
    while (queue.length > 0) {
      const { range, depth } = queue.shift()!;
      if (depth >= MAX_CALL_DEPTH) continue;
      for (const call of calls) {
        if (!contains(range, call)) continue;
        const fn = functions.callee(call);
        if (!fn || reachedFromReceived.has(fn) || received.some((r) => r.fn === fn) || acquires.some((a) => contains(fn, a.node))) continue;
        reachedFromReceived.set(fn, lease);
        queue.push({ range: bodyOf(fn), depth: depth + 1 });
      }
    }
  }
  const receivedOf = (node: Node): ReceivedLease | undefined => {
    let best: ReceivedLease | undefined;
    for (const lease of received) {
      if (contains(bodyOf(lease.fn), node) && (!best || best.fn.range[0] <= lease.fn.range[0])) best = lease;
    }
    if (best) return best;
    for (const [fn, lease] of reachedFromReceived) if (contains(bodyOf(fn), node)) return lease;
    return undefined;
  };

  const sectionOf = (node: Node): AcquireSite | undefined => {
    let best: AcquireSite | undefined;
    for (const site of acquires) {
      if (inSection(site, node) && (!best || best.range[0] <= site.range[0])) best = site;
    }
    if (best) return best;
    for (const [fn, site] of reached) {
      if (!contains(bodyOf(fn), node)) continue;
      const late = releasedBefore.get(fn);
      if (late !== undefined && node.range[0] >= late) return undefined;
      return site;
    }
    return undefined;
  };

  // A helper reached from a section that decides what it writes and also runs here with no lock held.
  let reach: UnlockedReach | undefined;
  const unguardedHere = (node: TSESTree.CallExpression | TSESTree.NewExpression, acquire: AcquireSite, write: WriteSummary): boolean => {
    if (write.unguarded) return true;
    const fn = ownerOf(node);
    if (!write.valueArgs || !fn || inSection(acquire, node)) return false;
    if (write.valueArgs.some((j) => paramSources(node.arguments[j], fn, sourceCode, BUILT_FROM).size > 0)) return false;
    reach ??= new UnlockedReach(calls, functions, acquires.flatMap(sectionRanges), true);
    return reach.calledUnlocked(fn);
  };

  const writes: WriteSite[] = [];
  const sqlCalls: FileAnalysis['sqlCalls'] = [];
  const receivedWrites: ReceivedWriteSite[] = [];
  const receivedSql: Array<{ call: SqlCall }> = [];

  // A statement a same-file helper returns unrun runs where the section's call of that helper stands.
  const statementOf = (node: Node): Node => {
    const fn = returnedUnrunBy(node);
    return (fn && enteredBy.get(fn)) ?? node;
  };
  const candidates: Array<TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | TSESTree.NewExpression> = [...calls, ...tagged, ...constructed].sort(
    (a, b) => a.range[0] - b.range[0],
  );
  const queries = [...calls, ...tagged];
  // Records each function has just inserted (`const user = await this.users.create(...)`): a call
  // that writes the record it picks by their id writes the holder's own row, no other holder's.
  const insertedBy = new Map<FunctionNode, Set<string>>();
  // A same-file function that returns what it inserted (`createJob()` returning the id it made and inserted).
  const returnsInsertedHere = new Map<FunctionNode, boolean>();
  const localInsertSummary = (call: TSESTree.CallExpression): FunctionSummary | undefined => {
    const fn = functions.callee(call);
    if (!fn || fn.body.type !== AST_NODE_TYPES.BlockStatement) return undefined;
    let returns = returnsInsertedHere.get(fn);
    if (returns === undefined) {
      returnsInsertedHere.set(fn, false);
      const own = insertedIn(fn);
      const values: Node[] = [];
      walk(fn.body, sourceCode.visitorKeys, (n) => {
        if (n.type === AST_NODE_TYPES.ReturnStatement && n.argument && enclosingFunction(n) === fn) values.push(n.argument);
      });
      returns = values.length > 0 && values.every((v) => isInsertResult(v, own, { sourceCode, summaryOf: () => undefined }));
      returnsInsertedHere.set(fn, returns);
    }
    return returns ? ({ name: '', at: locationOf(fileName, fn), params: [], releases: [], writes: [], partial: false, returnsInserted: true } as FunctionSummary) : undefined;
  };
  const insertedIn = (fn: FunctionNode): Set<string> => {
    let names = insertedBy.get(fn);
    if (!names) {
      names = insertedRecords(fn, {
        sourceCode,
        summaryOf: (call) => {
          const summary = callees?.summaryOf(call);
          return summary?.returnsInserted ? summary : (localInsertSummary(call) ?? summary);
        },
      });
      insertedBy.set(fn, names);
    }
    return names;
  };
  // Records this request inserted, in the write's function or one it is nested in: a lock callback
  // (`withLock(k, async () => repo.update(jobId, ...))`) sees the `jobId` its enclosing function created.
  // In a same-file helper, also a parameter every caller fills with a record it has just inserted
  // (`finishJob(jobId)` after `const jobId = await createJob(...)`).
  const ownRecordsBy = new Map<FunctionNode, Set<string>>();
  const ownRecords = (node: Node, depth = 0): Set<string> => {
    const fn = enclosingFunction(node);
    const known = fn && depth === 0 ? ownRecordsBy.get(fn) : undefined;
    if (known) return known;
    const names = new Set<string>();
    for (let f = fn; f; f = enclosingFunction(f)) for (const name of insertedIn(f)) names.add(name);
    if (fn && depth < 2) {
      const callers = fn.params.some((p) => p.type === AST_NODE_TYPES.Identifier) ? functions.callersOf(fn) : [];
      fn.params.forEach((param, i) => {
        if (param.type !== AST_NODE_TYPES.Identifier || callers.length === 0) return;
        if (callers.every((c) => c.arguments.length > i && readsInserted(c.arguments[i], ownRecords(c, depth + 1), sourceCode))) names.add(param.name);
      });
    }
    if (fn && depth === 0) ownRecordsBy.set(fn, names);
    return names;
  };
  // A section that first takes its row for writing in a decorator-managed transaction (see transaction-row-locks.ts).
  const rowLocks = new Map<AcquireSite, RowLockedSection | undefined>();
  const rowLocked = (acquire: AcquireSite, node: Node, inTransaction: (family: string) => boolean): AdvisoryScope | undefined => {
    if (!rowLocks.has(acquire)) rowLocks.set(acquire, rowLockedSection(acquire, imports, sourceCode, (c) => callees?.summaryOf(c)));
    const held = rowLocks.get(acquire);
    return held && node.range[0] >= held.from && inTransaction(held.family) ? 'transaction' : undefined;
  };
  for (const node of candidates) {
    const acquire = sectionOf(node);
    if (!acquire) {
      const lease = receivedOf(node);
      const reading = lease && readWriteAt(node, { receivers, sourceCode, isTokenValue: (n) => tracer.isToken(n), isNonTokenValue: (n) => tracer.isNonToken(n), earlier: receivedSql, scripts, watchedBefore, recheckedBefore, claimedUniquely });
      if (reading?.sink === 'sql') receivedSql.push({ call: reading.call });
      if (lease && reading && !isLeaseUpkeep(reading, lease)) receivedWrites.push({ ...reading, received: lease });
      continue;
    }
    // A write on the connection a helper's advisory lock is held on commits while the lock is held.
    if (acquire.lockedSession) {
      // `tx.visit.update(...)` on the `tx` the helper locked: a Prisma model delegate is the client's.
      const on = writeConnection(node);
      const key = acquire.lockedSession.key;
      if (on !== undefined && (on === key || on.startsWith(`${key}.`))) continue;
    }
    const reading = readWriteAt(node, { receivers, sourceCode, isTokenValue: (n) => tracer.isToken(n), isNonTokenValue: (n) => tracer.isNonToken(n), earlier: sqlCalls, lockKeyText: acquire.lockKeyText, isOwnLockKey, scripts, watchedBefore, recheckedBefore, claimedUniquely });
    if (reading) {
      if (reading.sink === 'sql') sqlCalls.push({ call: reading.call, acquire });
      // A write of rows this request has just inserted, picked by the ids the insert returned, is its own.
      if (!reading.fenced && recordKeysOf(reading).some((k) => readsInserted(k, ownRecords(node), sourceCode))) continue;
      const bound =
        batchedUnderLock(acquire, statementOf(reading.node), sourceCode) ??
        (acquire.advisory ? boundToAdvisoryLock(acquire.advisory, acquire.node, reading.node, queries, sourceCode, (fn) => functions.callersOf(fn)) : undefined) ??
        (reading.sink === 'object' && !reading.fenced ? rowLocked(acquire, reading.node, (family) => reading.write.model.family === family) : undefined) ??
        (!reading.fenced && rowLockedInCallback(reading.node, sourceCode) ? 'transaction' : undefined);
      writes.push((bound ? { ...reading, acquire, fenced: true, boundToLock: bound } : { ...reading, acquire }) as WriteSite);
      continue;
    }
    if (node.type !== AST_NODE_TYPES.TaggedTemplateExpression) {
      const viaCall = callees && callWriteSite(node, acquire, callees, tracer, project!, receivers, unguardedHere, { inserted: ownRecords(node), sourceCode, calls, isOwnLockKey });
      if (viaCall) {
        // Handed the advisory lock's own transaction or session (`tasks.expire(trx)`): its writes go through it.
        // Also for a helper's lock: `closeWatches(tx, id)` handed the transaction `lockChat(tx, id)` locked.
        const session = acquire.lockedSession;
        const handedSession = session && node.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && receiverKey(a) === session.key) ? session.scope : undefined;
        const bound = viaCall.fenced
          ? undefined
          : (batchedUnderLock(acquire, node, sourceCode) ??
            (acquire.advisory ? callBoundToAdvisoryLock(acquire.advisory, acquire.node, node, queries, sourceCode, (fn) => functions.callersOf(fn)) : handedSession) ??
            // Its writes go through the ORM, which the method's transaction carries.
            rowLocked(acquire, node, () => [viaCall.write, ...(viaCall.furtherUnfenced ?? [])].every((w) => w.sink === 'object')) ??
            (rowLockedInCallback(node, sourceCode) ? 'transaction' : undefined));
        writes.push(bound ? { ...viaCall, fenced: true, boundToLock: bound } : viaCall);
        continue;
      }
      if (node.type === AST_NODE_TYPES.NewExpression) continue;
    }
    const call = readSqlCall(node, sourceCode, receivers);
    if (call) sqlCalls.push({ call, acquire });
  }
  if (callees) writes.push(...passedFunctionWrites(acquires, callees, project!));
  dropClaimOwnedWrites(writes, sourceCode);
  // A lock keyed by a value this function has just made (`lock:${randomUUID()}`, a new record's id) has no other holder.
  const freshKeyed = new Map<AcquireSite, boolean>();
  const uncontended = (site: AcquireSite): boolean => {
    let fresh = freshKeyed.get(site);
    if (fresh === undefined) {
      const own = ownRecords(site.node);
      fresh = !site.handedOver && isFreshKey(lockKeyArgument(site.node, site.keyNode), sourceCode, (n) => readsInserted(n, own, sourceCode));
      freshKeyed.set(site, fresh);
    }
    return fresh;
  };
  for (let i = writes.length - 1; i >= 0; i--) if (!writes[i].fenced && uncontended(writes[i].acquire)) writes.splice(i, 1);
  sharedHelperCalls(writes, acquires, calls, functions, sourceCode, fileName, queries);
  return { acquires, writes, received, receivedWrites, sqlCalls, calls, taggedTemplates: tagged, constructed, tracer, functions, receivers, tokenColumn, sectionOf, readWrite, callees, file: options.file };
}

/**
 * Writes made after a compare-and-set claim went through (see `sinks/claimed-records.ts`): a
 * tokenless claim (a status move, a set-once fill, an optimistic check) whose result the section
 * tests (`if (r.count === 0) return;`), and a later unfenced write in the branch where it matched
 * that picks the same record, or a call whose key argument does. Only this holder gets there.
 */
function dropClaimOwnedWrites(writes: WriteSite[], sourceCode: SourceCode): void {
  const claims = claimsAmong(writes);
  if (claims.length === 0) return;
  const owned = (w: WriteSite): boolean => {
    if (w.fenced) return false;
    const mine = claims.filter((claim) => claim.acquire === w.acquire);
    if (w.sink === 'call') return callPicksClaimed(w.node, w.write.keyArgs, mine, sourceCode);
    return readingPicksClaimed(w, mine, sourceCode);
  };
  for (let i = writes.length - 1; i >= 0; i--) if (owned(writes[i])) writes.splice(i, 1);
}

/**
 * An xact advisory lock statement (or a helper's call returning one) and a write that follows it
 * in the same batch transaction (`prisma.$transaction([lockSplits(id), prisma.split.update(...)])`):
 * the write commits with the transaction that holds the lock.
 */
function batchedUnderLock(acquire: AcquireSite, write: Node, sourceCode: SourceCode): AdvisoryScope | undefined {
  const scope = acquire.advisory?.scope ?? acquire.origin?.returnsStatement;
  return scope === 'transaction' && runsLaterInBatch(acquire.node, write, sourceCode) ? 'transaction' : undefined;
}

/**
 * A function of another module handed to a lock by reference (`redlock.using(keys, ttl, sweep)`,
 * `scheduler.init({ runFunc: importPayments })`) runs under it where the lock calls it: its
 * unfenced writes are reported at the call that hands it over.
 */
function passedFunctionWrites(acquires: readonly AcquireSite[], callees: ProjectCallees, project: ProjectView): CallWriteSite[] {
  const out: CallWriteSite[] = [];
  for (const acquire of acquires) {
    const reference = acquire.callbackArgument && unwrap(acquire.callbackArgument);
    if (!reference || (reference.type !== AST_NODE_TYPES.Identifier && reference.type !== AST_NODE_TYPES.MemberExpression)) continue;
    if (acquire.node.type !== AST_NODE_TYPES.CallExpression) continue;
    const passed = callees.exportOfExpression(reference, 'static', 0);
    if (passed?.kind !== 'function') continue;
    const write = passed.fn.writes.find((w) => !w.reportedThere && !w.fenced && !w.ofRecord);
    if (!write) continue;
    const flow = [...(acquire.flow ?? [locationOf(project.file, acquire.node)]), locationOf(project.file, reference), ...write.flow];
    out.push({ sink: 'call', node: acquire.node, acquire, callee: passed.fn, write, fenced: false, flow });
  }
  return out;
}

/**
 * A same-file helper that several critical sections reach (`this.saveTrip(id, data)` from every
 * locked operation of a service) is the file's own write API, as another module's repository is:
 * its unfenced write is reported at each call under a lock that leads to it, under that call's
 * lock, where the call must hand its token down; not once at the helper, under whichever lock
 * reached it first. A helper that only one section reaches is part of that section and is reported
 * where it writes. Sets `reachedFrom` on the writes it moves; one site per call (its first write).
 */
function sharedHelperCalls(writes: WriteSite[], acquires: readonly AcquireSite[], calls: readonly TSESTree.CallExpression[], functions: FunctionIndex, sourceCode: SourceCode, file: string, queries: readonly SqlNode[]): void {
  const inHelpers = writes.filter((w) => !w.fenced && !w.boundToLock && !acquires.some((a) => inSection(a, w.node)));
  if (inHelpers.length === 0) return;
  const innermost = (node: Node) => {
    let best: AcquireSite | undefined;
    for (const site of acquires) if (inSection(site, node) && (!best || best.range[0] <= site.range[0])) best = site;
    return best;
  };
  // Per write, the calls in a section that reach it, each with the calls on the way down.
  const entries = new Map<WriteSite, Array<{ call: TSESTree.CallExpression; acquire: AcquireSite; path: TSESTree.CallExpression[] }>>();
  for (const call of calls) {
    const acquire = innermost(call);
    const first = acquire && functions.callee(call);
    if (!acquire || !first || contains(first, acquire.node)) continue;
    const paths = new Map<FunctionNode, TSESTree.CallExpression[]>([[first, []]]);
    const queue: FunctionNode[] = [first];
    while (queue.length > 0) {
      const fn = queue.shift()!;
      const path = paths.get(fn)!;
      if (path.length + 1 >= MAX_CALL_DEPTH) continue;
      for (const inner of calls) {
        const next = contains(bodyOf(fn), inner) ? functions.callee(inner) : undefined;
        if (!next || paths.has(next) || contains(next, acquire.node)) continue;
        paths.set(next, [...path, inner]);
        queue.push(next);
      }
    }
    for (const write of inHelpers) {
      // The innermost reached function that holds the write.
      let holder: FunctionNode | undefined;
      for (const fn of paths.keys()) if (contains(bodyOf(fn), write.node) && (!holder || contains(holder, fn))) holder = fn;
      if (!holder) continue;
      const list = entries.get(write) ?? [];
      list.push({ call, acquire, path: paths.get(holder)! });
      entries.set(write, list);
    }
  }
  const byCall = new Map<TSESTree.CallExpression, CallWriteSite>();
  for (const write of inHelpers) {
    const all = entries.get(write) ?? [];
    // A call that hands the helper the very transaction (or session) its advisory lock holds: the write commits inside it.
    const boundVia = (r: (typeof all)[number]) =>
      r.acquire.advisory && (write.sink === 'sql' || write.sink === 'object') ? chainBoundToAdvisoryLock(r.acquire.advisory, r.acquire.node, [r.call, ...r.path], write.node, queries, sourceCode) : undefined;
    const bound = all.map(boundVia);
    const reaching = all.filter((_, i) => bound[i] === undefined);
    if (reaching.length === 0 && all.length > 0) {
      // Every section that reaches it hands down its lock's connection.
      Object.assign(write, { fenced: true, boundToLock: bound[0] });
      continue;
    }
    if (reaching.length === all.length && new Set(reaching.map((r) => r.acquire)).size < 2) continue;
    const at = locationOf(file, write.node);
    const label = writeLabelOf(write, sourceCode);
    write.reachedFrom = reaching.map(({ call, acquire, path }) => {
      const known = byCall.get(call);
      if (known) {
        // A further write of the same helper: reported at the same call, at its own place, unless
        // the call already names the same kind of write there.
        const further: WriteSummary = { sink: write.sink, label, at, fenced: false, conditionArgs: [], reportedThere: false, flow: [...path.map((c) => locationOf(file, c)), at] };
        const named = [known.write, ...(known.furtherUnfenced ?? [])].map(placeKey);
        if (!named.includes(placeKey(further))) (known.furtherUnfenced ??= []).push(further);
        return known;
      }
      const helper = functions.callee(call)!;
      const summary: WriteSummary = { sink: write.sink, label, at, fenced: false, conditionArgs: [], reportedThere: false, flow: [...path.map((c) => locationOf(file, c)), at] };
      const callee: FunctionSummary = { name: sourceCode.getText(call.callee), at: locationOf(file, helper), params: [], releases: [], writes: [summary], partial: false };
      const flow = [...(acquire.flow ?? [locationOf(file, acquire.node)]), locationOf(file, call), ...summary.flow];
      const site: CallWriteSite = { sink: 'call', node: call, acquire, callee, write: summary, fenced: false, flow };
      byCall.set(call, site);
      return site;
    });
  }
}

interface WriteEnv {
  receivers: ReceiverTable;
  sourceCode: SourceCode;
  isTokenValue: (node: Node) => boolean;
  isNonTokenValue: (node: Node) => boolean;
  earlier: ReadonlyArray<{ call: SqlCall }>;
  /** The key of a Redis SET NX lock held here: writing it is the lock's own business. */
  lockKeyText?: string;
  /** Whether a Redis key is one a SET NX lease of this file takes (a renewal or take-over, not a protected write). */
  isOwnLockKey?: (key: Node) => boolean;
  /** Lua scripts defined with `defineCommand`, by command name. */
  scripts: RedisScriptCommands;
  /** Summarising a module: `this.save()` in a class extending a project class counts (its callers decide). */
  inheritedRecords?: boolean;
  /** Whether a Redis `WATCH` ran earlier in the function of a node (directly or through a same-file helper). */
  watchedBefore?: (node: Node) => boolean;
  /** Whether the same transaction read a write's records again and left unless they were as expected. */
  recheckedBefore?: (write: ObjectWrite) => boolean;
  /** Whether a write shares its transaction with an insert that claims a unique key. */
  claimedUniquely?: (write: ObjectWrite) => boolean;
}

const REDIS = sinkModel('redis');

/** The write a node makes, if it is one of the sinks, judged for a fence. */
function readWriteAt(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | TSESTree.NewExpression, env: WriteEnv): WriteReading | undefined {
  const { receivers, sourceCode, isTokenValue } = env;
  const judge = { isTokenValue, isNonTokenValue: env.isNonTokenValue };
  const text = (n: Node) => sourceCode.getText(n);
  if (node.type === AST_NODE_TYPES.CallExpression) {
    const knex = readKnexWrite(node, receivers);
    // Lock tables hold the locks themselves: writes there take, renew or end a lock (as in SQL).
    if (knex && isLockTable(knex.table)) return undefined;
    if (knex) {
      const verdict = judgeKnexWrite(knex, judge);
      // A counter's step that compares nothing is applied once whenever it lands: no late write.
      if (!verdict.tokenCompared && onlyRelativeKnexWrite(knex)) return undefined;
      // A purge of rows aged out by the clock removes what every holder removes (see `aged-rows.ts`).
      if (!verdict.tokenCompared && agedKnexPurge(knex, sourceCode)) return undefined;
      return { sink: 'knex', node, write: knex, verdict, fenced: verdict.tokenCompared && verdict.tokenStored };
    }
    const script = readRedisScript(node, sourceCode, env.scripts);
    if (script) {
      const verdict = judgeRedisScript(script, judge);
      if (!verdict.tokenCompared) {
        // A script that compares an owner or claim value with what is stored (compare-and-set, a
        // release, a renewal) is the lock's own business; one that runs the catalog's Redis writes
        // and compares nothing is a plain write (unless it only adds what is absent).
        const { facts } = script;
        const writes = facts.writes.filter((command) => REDIS.writes.some((w) => w.method.toLowerCase() === command));
        if (writes.length === 0 || facts.equal.length > 0 || facts.ordered.length > 0 || conditionOnArgument(script.text) || onlyAddsIfAbsent(script.text, writes)) return undefined;
        return { sink: 'api', node, write: { node, api: 'redis', model: REDIS, script }, verdict, fenced: false };
      }
      return { sink: 'api', node, write: { node, api: 'redis', model: REDIS, script }, verdict, fenced: verdict.tokenStored };
    }
  }
  if (node.type !== AST_NODE_TYPES.TaggedTemplateExpression) {
    const write = readObjectWrite(node, receivers);
    if (write && isLockTable(objectWriteTable(write, sourceCode))) return undefined;
    if (write) {
      const verdict = judgeObjectWrite(write, judge);
      if (!verdict.tokenCompared && onlyRelativeObjectWrite(write)) return undefined;
      if (!verdict.tokenCompared && agedObjectPurge(write, sourceCode)) return undefined;
      if (!verdict.tokenCompared && env.recheckedBefore?.(write)) return undefined;
      if (!verdict.tokenCompared && env.claimedUniquely?.(write)) return undefined;
      return { sink: 'object', node, write, verdict, fenced: verdict.tokenCompared && verdict.tokenStored };
    }
    const record = node.type === AST_NODE_TYPES.CallExpression ? readRecordWrite(node, receivers) : undefined;
    // `this.save()` of a class extending a project class is a record write only for a caller holding such a record.
    if (record && (!record.record.inherited || env.inheritedRecords)) {
      const { model, method, kind } = record;
      const write: ObjectWrite = { node: node as TSESTree.CallExpression, api: model.family as ObjectWrite['api'], model, method, kind, links: [], record: record.record };
      // A version compare-and-set made by the ORM (Sequelize `version: true`) fences like `{ version }` in a filter.
      return { sink: 'object', node, write, verdict: { tokenCompared: false, tokenStored: false }, fenced: record.record.versioned };
    }
    const api = readApiWrite(node, receivers, text);
    if (api) {
      if (api.api === 'redis' && node.type === AST_NODE_TYPES.CallExpression && agedScoreTrim(node, redisCommandOf(calleeName(node) ?? ''), sourceCode)) return undefined;
      if (api.api === 'redis' && (api.keyText === env.lockKeyText || (node.type === AST_NODE_TYPES.CallExpression && !!node.arguments[0] && env.isOwnLockKey?.(node.arguments[0])))) return undefined;
      // WATCH, then MULTI ... EXEC: EXEC fails when a watched key changed, so the write compares in itself.
      const watched = api.api === 'redis' && node.type === AST_NODE_TYPES.CallExpression && receiverPath(calleeObject(node) ?? node).includes('multi()') && env.watchedBefore?.(node) === true;
      return { sink: 'api', node, write: api, fenced: watched || apiWriteFenced(api, isTokenValue, text) };
    }
    if (node.type === AST_NODE_TYPES.NewExpression) return undefined;
  }
  const call = readSqlCall(node, sourceCode, receivers);
  if (!call) return undefined;
  const verdicts = call.source.analysis.statements
    .filter(isProtectedWrite)
    .map((s) => judgeWrite(s, call, judge, sourceCode))
    .filter((v) => v.tokenCompared || (!onlyRelativeAssignments(v.statement) && !agedSqlPurge(v.statement, call, sourceCode)));
  if (verdicts.length === 0) return undefined;
  const statements = verdicts.map((v) => v.statement);
  const guarded = verdicts.every((v) => v.tokenCompared) || lockedByEarlierSelect(call.node, statements, env.earlier);
  return { sink: 'sql', node: call.node, call, verdicts, fenced: guarded && verdicts.every((v) => v.tokenStored || !v.tokenCompared) };
}

/**
 * Whether the section of a try-lock with a failure branch calls a parameter of `fn` (`if
 * (!acquired) return onBusy(); return await work();`): which parameter runs under the lock is
 * then the summary's to say, not the order of the arguments (the busy handler is often last).
 */
function callsOwnParameter(site: AcquireSite, fn: FunctionNode, calls: readonly TSESTree.CallExpression[]): boolean {
  const params = new Set(fn.params.map((p) => (p.type === AST_NODE_TYPES.AssignmentPattern ? p.left : p)).filter((p): p is TSESTree.Identifier => p.type === AST_NODE_TYPES.Identifier).map((p) => p.name));
  if (params.size === 0 || !site.gaps) return false;
  return calls.some((call) => {
    const callee = unwrap(call.callee);
    return callee.type === AST_NODE_TYPES.Identifier && params.has(callee.name) && contains(site.range, call) && enclosingFunction(call) === fn;
  });
}

/**
 * Same-file functions whose lock outlives them or covers a parameter: an acquire in them (or
 * in a function they return) with no release there, or with a callback that is not theirs;
 * and the functions that call those, up to three levels. Only called functions count.
 */
/** A function named for giving a lock back: `releaseLock`, `unlockRoom`, `freeSlot`. */
const RELEASE_HELPER_NAME = /release|unlock|^free/i;

function localLockHelpers(acquires: readonly AcquireSite[], functions: FunctionIndex, calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): Set<FunctionNode> {
  const helpers = new Set<FunctionNode>();
  for (const site of acquires) {
    if (site.handedOver) continue;
    let fn = enclosingFunction(site.node);
    // The lock of a returned wrapper (`return (...args) => withLock(..., () => method(...args))`).
    if (fn && fn.parent?.type === AST_NODE_TYPES.ReturnStatement) fn = enclosingFunction(fn) ?? fn;
    else if (fn && returnedByName(fn)) fn = enclosingFunction(fn) ?? fn;
    else if (fn && fn.type === AST_NODE_TYPES.ArrowFunctionExpression && fn.parent && isFunctionNode(fn.parent)) fn = fn.parent;
    // A callback acquire promisified by hand: `return new Promise((resolve) => lib.acquire(k, (e, l) => resolve(l)))`.
    else if (fn && fn.parent?.type === AST_NODE_TYPES.NewExpression && fn.parent.arguments[0] === fn && calleeName(fn.parent) === 'Promise') fn = enclosingFunction(fn.parent) ?? fn;
    // A decorator factory's replacement method (`descriptor.value = async function () {...}`): the factory.
    else if (fn && fn.parent?.type === AST_NODE_TYPES.AssignmentExpression && memberName(fn.parent.left) === 'value') {
      const decorator = enclosingFunction(fn.parent);
      fn = (decorator && enclosingFunction(decorator)) ?? fn;
    }
    // `setInterval(() => withLease(name, ms, job), ms)` in `every(name, ms, job)`: the function whose parameter the lock runs.
    else if (fn && site.callbackArgument && directParam(site.callbackArgument, fn, sourceCode) === undefined) {
      for (let outer = enclosingFunction(fn); outer; outer = enclosingFunction(outer)) {
        if (directParam(site.callbackArgument, outer, sourceCode) === undefined) continue;
        fn = outer;
        break;
      }
    }
    if (!fn) continue;
    const escapes = !releasedInPlace(site) && site.scope === enclosingFunction(site.node);
    const runsParameter = site.callbackArgument !== undefined || site.scope !== enclosingFunction(site.node) || fn !== enclosingFunction(site.node) || callsOwnParameter(site, fn, calls);
    if (escapes || runsParameter) helpers.add(fn);
  }
  if (helpers.size === 0) return helpers;
  // Only helpers that something here calls matter. When none of these is called, neither has
  // a caller to add below: the answer is none (most files, whose locks are taken in place).
  const called = new Set(calls.map((c) => functions.callee(c)).filter((f): f is FunctionNode => f !== undefined));
  if (![...helpers].some((fn) => called.has(fn))) return new Set();
  for (let level = 0; level < 3; level++) {
    let grew = false;
    for (const call of calls) {
      const callee = functions.callee(call);
      if (!callee || !helpers.has(callee)) continue;
      const caller = enclosingFunction(call);
      if (!caller || helpers.has(caller) || contains(callee, call)) continue;
      helpers.add(caller);
      grew = true;
    }
    if (!grew) break;
  }
  for (const fn of [...helpers]) if (!called.has(fn)) helpers.delete(fn);
  return helpers;
}

/**
 * The module graph's bounds (modules and time per lint) are spent in the order summaries are
 * asked for. In a large project every call of a file can pull in a module and its imports, so
 * the calls that matter are asked first: those that name a lock, then the calls inside the
 * critical sections they open (and the same-file functions those reach). The rest follow.
 */
function spendBudgetOnLocksFirst(input: Parameters<typeof findAcquires>[0], callees: ProjectCallees, functions: FunctionIndex, sourceCode: SourceCode): void {
  const lockNamed = input.calls.filter((c) => LOCK_HINT.test(sourceCode.getText(c.callee)));
  if (lockNamed.length === 0) return;
  for (const call of lockNamed) callees.summaryOf(call);
  // Only the sections' ranges are read here: the sites' labels and untaken branches are not built.
  const early = findAcquires({ ...input, summaryOf: (c) => (callees.isKnown(c) ? callees.summaryOf(c) : undefined), sectionsOnly: true });
  const ranges: TSESTree.Range[] = early.map((site) => site.range);
  const seen = new Set<FunctionNode>();
  for (let i = 0; i < ranges.length && i < 64; i++) {
    for (const call of input.calls) {
      if (!contains(ranges[i], call)) continue;
      callees.summaryOf(call);
      const fn = functions.callee(call);
      if (fn && !seen.has(fn)) {
        seen.add(fn);
        ranges.push(bodyOf(fn));
      }
    }
  }
}

/** A function declared inside another and returned by name (`function methodWithLock() {…} return methodWithLock`). */
function returnedByName(fn: FunctionNode): boolean {
  const name = fn.type === AST_NODE_TYPES.FunctionDeclaration ? fn.id?.name : fn.parent?.type === AST_NODE_TYPES.VariableDeclarator && fn.parent.id.type === AST_NODE_TYPES.Identifier ? fn.parent.id.name : undefined;
  const outer = enclosingFunction(fn);
  if (!name || !outer || outer.body.type !== AST_NODE_TYPES.BlockStatement) return false;
  return outer.body.body.some((st) => st.type === AST_NODE_TYPES.ReturnStatement && st.argument?.type === AST_NODE_TYPES.Identifier && st.argument.name === name);
}

/** The connection a write goes through: the root of its callee chain (`trx` in `trx('t').where(...).update(...)`). */
function writeConnection(node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression | TSESTree.NewExpression): string | undefined {
  let current: Node = node.type === AST_NODE_TYPES.TaggedTemplateExpression ? node.tag : node.callee;
  for (let i = 0; i < 32; i++) {
    const n = unwrap(current);
    if (n.type === AST_NODE_TYPES.MemberExpression) {
      const key = receiverKey(n.object);
      if (key !== undefined && n.object.type !== AST_NODE_TYPES.CallExpression) return key;
      current = n.object;
    } else if (n.type === AST_NODE_TYPES.CallExpression) current = n.callee;
    else return n.type === AST_NODE_TYPES.Identifier ? n.name : undefined;
  }
  return undefined;
}

/** Whether a summarised function returns a token at `path` of its result (`[]`: the result itself). */
function summaryReturnsToken(summary: FunctionSummary | undefined, path: readonly PathStep[]): boolean {
  if (!summary || summary.partial) return false;
  const properties = summary.returnsToken?.properties ?? [];
  const handle = summary.acquire?.style === 'handle' ? summary.acquire.tokenProperties : [];
  if (path.length === 0) return summary.returnsToken !== undefined && properties.length === 0;
  const [step] = path;
  if (path.length !== 1 || typeof step !== 'string') return false;
  if (step === HANDLE_STEP) return properties.length > 0 || handle.length > 0;
  return properties.includes(step) || handle.includes(step);
}

/** A place in this file, in the shape summaries use. */
export function locationOf(file: string, node: Node): SourceLocation {
  return { file, line: node.loc.start.line, column: node.loc.start.column, endLine: node.loc.end.line, endColumn: node.loc.end.column };
}

/** Whether an argument carries the caller's token into a summarised function: the token, or a handle holding it. */
function passesToken(arg: Node | undefined, tracer: TokenTracer): boolean {
  if (!arg || arg.type === AST_NODE_TYPES.SpreadElement) return false;
  return tracer.isToken(arg) || tracer.isHandle(arg);
}

/**
 * A call in a critical section to a project function that writes: fenced when every write
 * inside is fenced there, or compares the token the caller passes in.
 */
function callWriteSite(
  node: TSESTree.CallExpression | TSESTree.NewExpression,
  acquire: AcquireSite,
  callees: ProjectCallees,
  tracer: TokenTracer,
  project: ProjectView,
  receivers: ReceiverTable,
  unguarded: (node: TSESTree.CallExpression | TSESTree.NewExpression, acquire: AcquireSite, write: WriteSummary) => boolean,
  own: { inserted: ReadonlySet<string>; sourceCode: SourceCode; calls?: readonly TSESTree.CallExpression[]; isOwnLockKey?: (key: Node) => boolean },
): CallWriteSite | undefined {
  const callee = callees.summaryOf(node) ?? tableEntriesSummary(node, acquire, callees, own.sourceCode, project.file);
  if (!callee) return undefined;
  // Writes reported in their own module (a token passed in and not used) are not reported twice;
  // a write of the instance's own record counts on a record a model read returned; a write the
  // project also makes with no lock held is not the lock's; a write of a record this call path
  // has just inserted (picked by an argument that reads it) is the holder's own.
  const onRecord = recordReceiver(node, receivers);
  // Rows the caller's transaction claimed FOR UPDATE through an earlier call, on the same connection.
  const claimedRow = (w: WriteSummary) => !w.fenced && !!own.calls && writesClaimedRows(node, w, own.calls, (c) => callees.summaryOf(c), own.sourceCode);
  const ownRow = (w: WriteSummary) => (w.keyArgs ?? []).some((i) => readsInserted(node.arguments[i], own.inserted, own.sourceCode));
  // A key-value write of the key that names the lock held (a claim's result stored under its key) keeps the claim.
  const ownLockKey = (w: WriteSummary) => w.keyValue === true && w.keyParam !== undefined && !!node.arguments[w.keyParam] && own.isOwnLockKey?.(node.arguments[w.keyParam]) === true;
  // A write behind an optional argument this call leaves out (`if (patch) await row.save()`) is not made.
  // A constant passed as the value a Redis SET stores sets a flag, which stores nothing older when late.
  const flag = (w: WriteSummary) => w.flagArg !== undefined && isConstantFlagValue(node.arguments[w.flagArg]);
  // A record handed to a function that saves it is a new row when this call has just built it.
  const built = (w: WriteSummary) => w.recordArg !== undefined && isBuiltRecord(node.arguments[w.recordArg]);
  const writes = callee.writes.filter((w) => !w.reportedThere && (!w.ofRecord || onRecord) && !unguarded(node, acquire, w) && !ownRow(w) && !ownLockKey(w) && !claimedRow(w) && !flag(w) && !built(w) && !w.onlyWithArgs?.some((i) => omitsArgument(node, i)) && !literalsRuleOut(node, w.onlyWhenTruthy, w.onlyWhenFalsy));
  if (writes.length === 0) return undefined;
  // A read whose only writes fill a cache with what it read (`store.hget(...)` keeping a miss in Redis) reads.
  if (isCacheFillRead(callee, writes)) return undefined;
  // A fenced write is fenced here unless this call passes a clock, random or constant value as its token.
  const nonToken = (w: WriteSummary) => (w.fenced ? w.conditionArgs.map((index) => node.arguments[index]).find((arg) => arg && arg.type !== AST_NODE_TYPES.SpreadElement && tracer.isNonToken(arg)) : undefined);
  const fencedHere = (w: WriteSummary) => (w.fenced ? nonToken(w) === undefined : w.conditionArgs.some((index) => passesToken(node.arguments[index], tracer)));
  const unfenced = writes.find((w) => !fencedHere(w));
  // A summary built on partial knowledge (an import cycle, recursion) may miss writes, never invent
  // one: a write it lists unfenced is made, but "every write is fenced" is not known.
  if (callee.partial && !unfenced) return undefined;
  const write = unfenced ?? writes[0];
  const flow = [...(acquire.flow ?? [locationOf(project.file, acquire.node)]), locationOf(project.file, node), ...write.flow];
  const places = new Set([placeKey(write)]);
  const furtherUnfenced = unfenced
    ? writes.filter((w) => {
        if (w === unfenced || fencedHere(w) || places.has(placeKey(w))) return false;
        places.add(placeKey(w));
        return true;
      })
    : [];
  return { sink: 'call', node, acquire, callee, write, fenced: unfenced === undefined, flow, nonTokenArgument: unfenced && nonToken(unfenced), ...(furtherUnfenced.length > 0 ? { furtherUnfenced } : {}) };
}

/**
 * `job.run()` under a lock taken by `job.lockKey`, over a same-file table of `{ lockKey, run }`
 * rows (`modules/table-entries.ts`): each row's function runs under its row's lock, so their
 * writes together are the call's, as one summarised function's would be.
 */
function tableEntriesSummary(node: TSESTree.CallExpression | TSESTree.NewExpression, acquire: AcquireSite, callees: ProjectCallees, sourceCode: SourceCode, file: string): FunctionSummary | undefined {
  if (node.type !== AST_NODE_TYPES.CallExpression || acquire.node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const entries = tableEntryFunctions(node, acquire.node.arguments, sourceCode.ast);
  if (entries.length === 0) return undefined;
  const writes: WriteSummary[] = [];
  let partial = false;
  for (const entry of entries) {
    const forwarded = forwardedCall(entry);
    const exported = forwarded ? undefined : callees.exportOfExpression(entry, 'static', 0);
    const fn = forwarded ? callees.summaryOf(forwarded) : exported?.kind === 'function' ? exported.fn : undefined;
    // A row whose function cannot be read may write too: what the others write is still made.
    if (!fn) {
      partial = true;
      continue;
    }
    partial ||= fn.partial;
    writes.push(...fn.writes);
  }
  if (writes.length === 0) return undefined;
  return { name: sourceCode.getText(node.callee), at: locationOf(file, node), params: [], releases: [], writes, partial };
}

/**
 * Which late write a summarised write is: one per kind of write in a module, however many places
 * or paths make it. The branches of `if (ttl) redis.set(k, v, 'EX', ttl) else redis.set(k, v)`
 * are one write, and a second finding at the same call would name the same fix. Commands queued
 * on a Redis pipeline or MULTI go out together at `exec()`: one write per module.
 */
function placeKey(write: WriteSummary): string {
  if (QUEUED_COMMAND.test(write.label)) return `${write.at.file}:queued`;
  return `${write.at.file}:${write.label}`;
}

const QUEUED_COMMAND = /^`?(?:[\w$]+\.)*(?:pipeline|multi|batch)(?:\(\))?\.\w+`?$/i;

/**
 * A write of a function handed a lease that keeps the lease itself: SQL that sets only the
 * lease's holder, expiry or token columns, or a Redis write to the lock key (`lock:${key}`,
 * `lease.key`). Renewing a lease is not a late data write.
 */
function isLeaseUpkeep(reading: WriteReading, lease: ReceivedLease): boolean {
  if (reading.sink === 'sql') {
    return reading.verdicts.every((v) => v.statement.assignments.length > 0 && v.statement.assignments.every((a) => isLeaseUpkeepColumn(a.column.split('.').pop() ?? a.column)));
  }
  if (reading.sink !== 'api' || reading.write.api !== 'redis') return false;
  const key = reading.write.keyText;
  return key === undefined || LOCK_KEY_NAME.test(key) || new RegExp(`(?<![\\w$])${lease.param.name}(?![\\w$])`).test(key);
}

/**
 * `SELECT ... FOR UPDATE` on the same table earlier in the same function: the row stays
 * locked until the transaction ends, so the check and the write are one step.
 */
function lockedByEarlierSelect(node: Node, statements: WriteVerdict['statement'][], earlier: ReadonlyArray<{ call: SqlCall }>): boolean {
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
