/**
 * The module graph: the project files a lint reaches through imports, each parsed once and
 * summarised as data, cached by path and content hash (with the summaries it used, so a
 * changed helper invalidates the modules that built on it). This cache is the only state
 * the analysis keeps across files; rules keep none.
 *
 * Work is lazy and bounded: a module is read only when a file that passed the lock-word gate
 * calls into it, and each lint uses at most `MAX_MODULES` summaries of at most `MAX_LINT_BYTES`
 * together (built now or cached), `MAX_DEPTH` imports deep, from files of at most
 * `MAX_FILE_BYTES`. What falls outside is unknown, and the analysis then reads the call as it
 * would without the graph.
 *
 * Every bound counts work, never time, and counts a cached summary as what building it would
 * have cost: a file's findings are the same whether it is linted alone, after others (a warm
 * cache), in a worker thread or in the editor.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import type { ImportBinding } from './imports.js';
import { clearResolutions, resolveImport } from './module-resolution.js';
import { exportedClassBases, exportShapes, type ExportShape, type ImportedName } from './export-shapes.js';
import { packageRootOf, readContainerBindings, type ContainerBindings } from './container-bindings.js';
import { parseProjectFile, parseTopLevelTree } from './project-source.js';
import { mergeImplementations, type ExportSummary, type FunctionSummary, type ModuleSummary } from './summaries.js';

export const MAX_DEPTH = 6;
export const MAX_MODULES = 128;
export const MAX_FILE_BYTES = 512 * 1024;
/**
 * Source text summarised for one lint, cached summaries counted with what they were built on: the
 * guard against pathological trees (many modules near `MAX_FILE_BYTES`). A time budget would make
 * findings depend on the machine's load, and CI, the editor and `--concurrency` must agree.
 */
export const MAX_LINT_BYTES = 8 * 1024 * 1024;
/** Project base classes and re-exports followed to the library class a model extends. */
const MAX_BASE_HOPS = 6;
/** How many registries of imported names deep `isPlainCode` follows (a registry of registries). */
const MAX_REGISTRY_DEPTH = 2;
/** Trees of top-level parses kept for a full parse of the same module (`keepTree`). */
const MAX_KEPT_TREES = 128;
const MAX_KEPT_BYTES = 4 * 1024 * 1024;
/** Parsed modules (tree and scopes) kept across the lints of one run: at most this much source text. */
const MAX_PARSED_BYTES = 6 * 1024 * 1024;
/** Re-export hops followed for one name (`export * from` chains, barrels of barrels). */
export const MAX_REEXPORT_HOPS = 64;

/** What a summariser hands back while a module is being summarised: exports on demand, then the whole. */
export interface ModuleBuilder {
  /** One export, computed on demand (callers in an import cycle ask before the module is done); undefined while it cannot be. */
  exportSummary(name: string): ExportSummary | undefined;
  /** Modules whose exports this one exports as its own (`export * from`), resolved. */
  readonly starExports: readonly string[];
  /** Every export, once; the AST may be dropped afterwards. */
  finish(): ModuleSummary;
}

/** Builds the summary of one parsed module; `view` resolves and follows that module's own imports. */
export type Summarizer = (sourceCode: SourceCode, file: string, hash: string, view: ProjectView) => ModuleBuilder;

/** One lint of one file: the budget it may spend on summaries. */
interface LintBudget {
  id: number;
  /**
   * Modules this lint has used, built now or taken from the cache with everything they were
   * built on: the module bound counts these, so a warm cache gives the same answer as a cold one.
   */
  reached: Set<string>;
  /** The source bytes of `reached`. */
  bytes: number;
  /** Entries this lint built that hold only within it (on partial knowledge, or still being built). */
  local: Map<string, Entry>;
}

interface Entry {
  stamp: string;
  hash: string;
  summary?: ModuleSummary;
  builder?: ModuleBuilder;
  /** Modules whose summaries this one used, with the hash each had. */
  dependencies: Map<string, string>;
  /** Its source size, counted against `MAX_LINT_BYTES`. */
  bytes: number;
  /**
   * How many imports deep its build followed (0: it used no other module). A complete summary
   * is reused only where a build would reach as deep within `MAX_DEPTH`; deeper down, a build
   * would stop short, and so must the reuse.
   */
  height: number;
  /** Built where a bound left something unknown. */
  partial: boolean;
  /**
   * Modules it saw still being built (an import cycle entered elsewhere), itself left out: built
   * from another entry into the cycle, its summary would differ.
   */
  cycleOn: Set<string>;
  /**
   * Neither partial nor on a cycle entered elsewhere: the same wherever a build starts, so
   * cached across lints. Other entries hold only within the lint that built them.
   */
  complete: boolean;
  /** Entries its build left with the lint (cycle members it entered): a lint that reuses it gets them too. */
  companions: Map<string, Entry>;
  /** The lint (budget id) that last found this entry valid: one file's lint checks each entry once. */
  checkedIn?: number;
}

let nextBudgetId = 1;

export class ModuleGraph {
  private readonly entries = new Map<string, Entry>();
  private readonly overlays = new Map<string, string>();
  /** Per linted file: the modules its last analysis reached (used, or built on by one it used). */
  private readonly used = new Map<string, Set<string>>();
  /** Per module: what its exports are by declaration (`exportShapes`), with the stamp they were read at. */
  private readonly shapes = new Map<string, { stamp: string; shapes: Map<string, ExportShape>; bases: Map<string, ImportedName> }>();

  /** A view for linting `file` (an absolute path), with a fresh budget. */
  viewFor(file: string, settingsKey: string, summarizer: Summarizer): ProjectView {
    const budget: LintBudget = { id: nextBudgetId++, reached: new Set<string>(), bytes: 0, local: new Map() };
    const view = new ProjectView(this, file, settingsKey, summarizer, budget, 0);
    this.used.set(file, budget.reached);
    this.stamps.clear();
    return view;
  }

  /**
   * The project files whose summaries the last analysis of `file` used, directly or through
   * the modules it reached: a change to any of them can change that file's findings. The file
   * itself is listed when an import cycle led back to it: its own edits then change what its
   * imports say.
   */
  dependenciesOf(file: string): string[] {
    return [...(this.used.get(file) ?? [])].sort();
  }

  /**
   * Whether export `name` of `file` is plainly project code by its declaration (a function, a
   * class, an instance of one of the module's classes), read without summarising the module.
   */
  isPlainCode(file: string, name: string, depth = 0): boolean {
    const shape = this.shapeOf(file, name);
    if (shape === 'code') return true;
    // A registry of imported names (`export default { Order, User }`): code when each of them is,
    // by its own module's declaration. A package import or a name not found there says nothing.
    if (shape === undefined || shape === 'other' || depth >= MAX_REGISTRY_DEPTH) return false;
    return shape.codeIf.every((entry) => {
      const target = resolveImport(file, entry.source);
      return target !== undefined && target !== file && this.isPlainCode(target, entry.name, depth + 1);
    });
  }

  /** What a top-level parse of `file` says of its exports (no summary). */
  private topLevelOf(file: string): { shapes: Map<string, ExportShape>; bases: Map<string, ImportedName> } | undefined {
    const stamp = this.stampOf(file);
    if (!stamp || stamp.size > MAX_FILE_BYTES) return undefined;
    let known = this.shapes.get(file);
    if (!known || known.stamp !== stamp.stamp) {
      const text = this.read(file);
      const parsed = text === undefined || text.includes('\u0000') ? undefined : parseTopLevelTree(file, text);
      const program = parsed?.program;
      known = { stamp: stamp.stamp, shapes: program ? exportShapes(program) : new Map(), bases: program ? exportedClassBases(program) : new Map() };
      this.shapes.set(file, known);
      if (parsed?.reusable && text !== undefined) this.keepTree(file, text, parsed.program);
    }
    return known;
  }

  /**
   * oxc trees of top-level parses, by file, kept for the module's full parse: most modules are
   * looked at for their export shapes first and summarised later in the same run. The tree is
   * the one that parse would build, taken only for the same text and once; at most
   * `MAX_KEPT_TREES` trees of `MAX_KEPT_BYTES` of text together are held, the oldest dropped first.
   */
  private readonly trees = new Map<string, { text: string; program: TSESTree.Program }>();
  private treeBytes = 0;

  private keepTree(file: string, text: string, program: TSESTree.Program): void {
    this.takeTree(file, undefined);
    if (text.length > MAX_KEPT_BYTES) return;
    this.trees.set(file, { text, program });
    this.treeBytes += text.length;
    while (this.trees.size > MAX_KEPT_TREES || this.treeBytes > MAX_KEPT_BYTES) this.takeTree(this.trees.keys().next().value!, undefined);
  }

  /** The kept tree of `file` when it was parsed from `text` (undefined: none, or another text); forgotten either way. */
  private takeTree(file: string, text: string | undefined): TSESTree.Program | undefined {
    const kept = this.trees.get(file);
    if (!kept) return undefined;
    this.trees.delete(file);
    this.treeBytes -= kept.text.length;
    return kept.text === text ? kept.program : undefined;
  }

  /**
   * Modules parsed for a summary, by file, for the same text: a summary built on partial
   * knowledge (past the depth or module bounds, or inside an import cycle) is built again by the
   * next lint that reaches the module, and in a large tangled project that is most of them. The
   * parse does not depend on the bounds, so it is kept: at most `MAX_PARSED_BYTES` of text, the
   * least recently used dropped first.
   */
  private readonly parsed = new Map<string, { hash: string; bytes: number; sourceCode: SourceCode }>();
  private parsedBytes = 0;

  private parseOnce(file: string, text: string, hash: string): SourceCode | undefined {
    const kept = this.parsed.get(file);
    if (kept) {
      this.parsed.delete(file);
      this.parsedBytes -= kept.bytes;
      if (kept.hash === hash) {
        this.parsed.set(file, kept);
        this.parsedBytes += kept.bytes;
        return kept.sourceCode;
      }
    }
    const sourceCode = parseProjectFile(file, text, this.takeTree(file, text));
    if (!sourceCode || text.length > MAX_PARSED_BYTES) return sourceCode;
    this.parsed.set(file, { hash, bytes: text.length, sourceCode });
    this.parsedBytes += text.length;
    while (this.parsedBytes > MAX_PARSED_BYTES) {
      const [oldest, entry] = this.parsed.entries().next().value!;
      this.parsed.delete(oldest);
      this.parsedBytes -= entry.bytes;
    }
    return sourceCode;
  }

  /** The shape of export `name` of `file`, read off a top-level parse (no summary). */
  private shapeOf(file: string, name: string): ExportShape | undefined {
    return this.topLevelOf(file)?.shapes.get(name);
  }

  /**
   * The library class an exported class extends, through project base classes and barrels that
   * export an imported name again (`Order` from '../models' is './Order', which extends
   * `ModelWithPublicId`, which extends sequelize's `Model`): `{ source: 'sequelize', name: 'Model' }`.
   * Read off top-level parses only.
   */
  libraryBaseOf(file: string, name: string, depth = 0): ImportedName | undefined {
    if (depth > MAX_BASE_HOPS) return undefined;
    const via = this.reexportOf(file, name);
    if (via) return this.libraryBaseOf(via.file, via.name, depth + 1);
    const base = this.topLevelOf(file)?.bases.get(name);
    if (!base) return undefined;
    if (!base.source.startsWith('.') && !path.isAbsolute(base.source)) return base;
    const target = resolveImport(file, base.source);
    return target && target !== file ? this.libraryBaseOf(target, base.name, depth + 1) : undefined;
  }

  /**
   * `import Order from './Order'; export { Order }`: the module and name an export passes on
   * unchanged, read off a top-level parse; undefined for anything the module declares itself.
   */
  reexportOf(file: string, name: string): { file: string; name: string } | undefined {
    const shape = this.shapeOf(file, name);
    const via = shape && typeof shape === 'object' ? shape.reexport : undefined;
    const target = via && resolveImport(file, via.source);
    return target && target !== file ? { file: target, name: via.name } : undefined;
  }

  /** Container bindings by package root, read once (`containerBindingsFor`). */
  private readonly bindings = new Map<string, ContainerBindings>();

  /** The `provide: X, useClass: Y` bindings of the package `file` belongs to. */
  containerBindingsFor(file: string): ContainerBindings | undefined {
    const root = packageRootOf(file);
    if (!root) return undefined;
    let known = this.bindings.get(root);
    if (!known) {
      known = readContainerBindings(root, (f) => this.read(f));
      this.bindings.set(root, known);
    }
    return known;
  }

  /** Whether module `file` is one a container binding could sit beside (it names an injectable class). */
  mayBeInjected(file: string): boolean {
    return /\b[Ii]njectable\b/.test(this.textOf(file) ?? '');
  }

  /** Forgets what is known about `file` (changed, created or deleted on disk). */
  invalidate(file: string): void {
    // A binding added, changed or removed changes what summaries built on the bindings say.
    if ([...this.bindings.values()].some((b) => b.files.has(file)) || this.read(file)?.includes('useClass')) {
      this.bindings.clear();
      this.entries.clear();
    }
    this.shapes.delete(file);
    this.stamps.delete(file);
    this.takeTree(file, undefined);
    for (const key of [...this.entries.keys()]) if (key.endsWith(`\u0000${file}`)) this.entries.delete(key);
    // A new or removed file can change where other imports resolve.
    clearResolutions();
  }

  /** The text of an open, unsaved document: used instead of the file on disk until cleared with undefined. */
  setFileText(file: string, text: string | undefined): void {
    this.stamps.delete(file);
    if (text === undefined) this.overlays.delete(file);
    else this.overlays.set(file, text);
  }

  /** Forgets everything (tests, settings changes). */
  clear(): void {
    this.entries.clear();
    this.bindings.clear();
    this.shapes.clear();
    this.trees.clear();
    this.treeBytes = 0;
    this.parsed.clear();
    this.parsedBytes = 0;
    this.stamps.clear();
    this.texts.clear();
    this.used.clear();
    clearResolutions();
  }

  /**
   * Stamps read since the lint of one file began (`viewFor`): that lint asks about the same
   * modules for every imported call, and a module is stat'ed once per lint, as a summary is
   * checked once (`checkedIn`). Null: not a readable file.
   */
  private readonly stamps = new Map<string, { stamp: string; size: number } | null>();

  /** Content stamp of a file (`readStamp`), read once per lint of a file. */
  private stampOf(file: string): { stamp: string; size: number } | undefined {
    let known = this.stamps.get(file);
    if (known === undefined) {
      known = this.readStamp(file) ?? null;
      this.stamps.set(file, known);
    }
    return known ?? undefined;
  }

  /** Content stamp of a file: cheap (mtime and size) on disk, the hash for an overlay. */
  private readStamp(file: string): { stamp: string; size: number } | undefined {
    const overlay = this.overlays.get(file);
    if (overlay !== undefined) return { stamp: `overlay:${hashText(overlay)}`, size: overlay.length };
    try {
      const stat = statSync(file);
      if (!stat.isFile()) return undefined;
      return { stamp: `${stat.mtimeMs}:${stat.size}`, size: stat.size };
    } catch {
      return undefined;
    }
  }

  /** Texts by stamp, for `mayExport`: a barrel's members are read once per change, not summarised. */
  private readonly texts = new Map<string, { stamp: string; text: string | undefined }>();

  /**
   * Whether module `file` can export `name` at all: its text spells the name or re-exports a
   * whole module. `export *` barrels list many modules; those that cannot hold the name are
   * passed over without being summarised (which would spend the lint's module budget).
   */
  mayExport(file: string, name: string): boolean {
    const text = this.textOf(file);
    return text === null || text.includes(name) || /\bexport\s*\*/.test(text);
  }

  /**
   * Whether module `file` can export `name` as its own: its text declares or lists the name in
   * an export, or re-exports a whole module. Stricter than `mayExport`, which a name merely used
   * in the module passes: in a barrel of a large package nearly every member uses `logger` or
   * `env`, and summarising each of them spent the lint's module bound before the import asked for.
   */
  mayExportAsOwn(file: string, name: string): boolean {
    const text = this.textOf(file);
    return text === null || textMayExport(text, name);
  }

  /** Whether module `file`'s own text matches `pattern`: a cheap look, cached by stamp, before summarising it. */
  textMatches(file: string, pattern: RegExp): boolean {
    const text = this.textOf(file);
    return text !== null && pattern.test(text);
  }

  /** The text of `file` for a cheap look (null: unknown, too large or unreadable). */
  private textOf(file: string): string | null {
    const stamp = this.stampOf(file);
    if (!stamp || stamp.size > MAX_FILE_BYTES) return null;
    let known = this.texts.get(file);
    if (known?.stamp !== stamp.stamp) {
      known = { stamp: stamp.stamp, text: this.read(file) };
      this.texts.set(file, known);
    }
    return known.text ?? null;
  }

  private read(file: string): string | undefined {
    const overlay = this.overlays.get(file);
    if (overlay !== undefined) return overlay;
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  }

  /** Whether a cached summary still describes the file and every summary it was built on. */
  private isValid(key: string, entry: Entry, budget: LintBudget, seen: Set<string>, companions = entry.companions): boolean {
    if (entry.checkedIn === budget.id) return true;
    if (seen.has(key)) return true;
    seen.add(key);
    const file = key.slice(key.indexOf('\u0000') + 1);
    const stamp = this.stampOf(file);
    if (!stamp) return false;
    if (stamp.stamp !== entry.stamp) {
      const text = this.read(file);
      if (text === undefined || hashText(text) !== entry.hash) return false;
      entry.stamp = stamp.stamp;
    }
    const prefix = key.slice(0, key.indexOf('\u0000') + 1);
    for (const [dependency, hash] of entry.dependencies) {
      const depKey = prefix + dependency;
      const companion = companions.get(depKey);
      const dep = companion ?? this.entries.get(depKey);
      if (!dep || dep.hash !== hash || !this.isValid(depKey, dep, budget, seen, companion ? companions : dep.companions)) return false;
    }
    return true;
  }

  /**
   * The entry for a module: one this lint built (or is building: an import cycle), a cached
   * complete summary where building it now would give the same, or one built now within the
   * bounds. A summary built on partial knowledge stays with the lint that built it; the cache
   * keeps complete summaries only, so what was linted before never changes a file's answer.
   */
  entry(file: string, settingsKey: string, summarizer: Summarizer, budget: LintBudget, depth: number): Entry | undefined {
    const key = `${settingsKey}\u0000${file}`;
    const own = budget.local.get(key);
    if (own) return own;
    const cached = this.entries.get(key);
    if (cached && this.isValid(key, cached, budget, new Set())) {
      // The same lint asks about the same modules many times (every imported call): stat them once.
      cached.checkedIn = budget.id;
      if (budget.reached.has(file)) return cached;
      // Deeper down, or with less of the budget left, a build would stop short: build it so.
      if (depth + cached.height <= MAX_DEPTH && this.admit(file, settingsKey, budget)) return cached;
    }
    if (depth > MAX_DEPTH || budget.reached.size >= MAX_MODULES || budget.bytes >= MAX_LINT_BYTES) return undefined;
    budget.reached.add(file);
    const stamp = this.stampOf(file);
    const base = { stamp: stamp?.stamp ?? '', dependencies: new Map<string, string>(), bytes: 0, height: 0, partial: false, cycleOn: new Set<string>(), complete: true, companions: new Map<string, Entry>() };
    const skipped = (reason: NonNullable<ModuleSummary['skipped']>, hash = ''): Entry => {
      const entry = { ...base, hash, summary: { file, hash, exports: new Map(), starExports: [], skipped: reason } };
      this.entries.set(key, entry);
      return entry;
    };
    if (!stamp) return skipped('unreadable');
    if (stamp.size > MAX_FILE_BYTES) return skipped('too-large');
    const text = this.read(file);
    if (text === undefined) return skipped('unreadable');
    const hash = hashText(text);
    // Binary or minified content is not a module we can say anything useful about.
    if (text.includes('\u0000')) return skipped('unparseable', hash);
    if (!worthReading(text)) return skipped('self-contained', hash);
    const sourceCode = this.parseOnce(file, text, hash);
    if (!sourceCode) return skipped('unparseable', hash);
    budget.bytes += text.length;
    // The export shapes read off this parse: `isPlainCode` need not parse the module again.
    if (this.shapes.get(file)?.stamp !== stamp.stamp) {
      this.shapes.set(file, { stamp: stamp.stamp, shapes: exportShapes(sourceCode.ast as TSESTree.Program), bases: exportedClassBases(sourceCode.ast as TSESTree.Program) });
    }
    const view = new ProjectView(this, file, settingsKey, summarizer, budget, depth);
    const entry: Entry = { ...base, hash, bytes: text.length, complete: false };
    budget.local.set(key, entry);
    const localBefore = new Set(budget.local.keys());
    try {
      entry.builder = summarizer(sourceCode, file, hash, view);
      entry.summary = entry.builder.finish();
    } catch {
      // A summariser failure on odd code must not fail the lint: the module is unknown.
      entry.summary = { file, hash, exports: new Map(), starExports: [], skipped: 'unparseable' };
    } finally {
      entry.builder = undefined;
    }
    entry.partial = view.partial;
    entry.cycleOn = view.cycleOn;
    entry.cycleOn.delete(file);
    entry.complete = !entry.partial && entry.cycleOn.size === 0;
    for (const dependency of view.used) {
      const dep = budget.local.get(`${settingsKey}\u0000${dependency}`) ?? this.entries.get(`${settingsKey}\u0000${dependency}`);
      if (!dep) continue;
      entry.dependencies.set(dependency, dep.hash);
      entry.height = Math.max(entry.height, dep.height + 1);
    }
    if (entry.complete) {
      budget.local.delete(key);
      for (const [other, companion] of budget.local) if (!localBefore.has(other)) entry.companions.set(other, companion);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Counts a cached module and the modules it was built on against the lint's bounds; false when they do not fit. */
  private admit(file: string, settingsKey: string, budget: LintBudget): boolean {
    const closure = new Set<string>();
    let bytes = 0;
    const queue = [file];
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (closure.has(next)) continue;
      // Built on a module this lint holds otherwise (being built: a cycle; or partial): a build now would use that.
      if (budget.local.has(`${settingsKey}\u0000${next}`)) return false;
      if (budget.reached.has(next)) continue;
      closure.add(next);
      const entry = this.entries.get(`${settingsKey}\u0000${next}`);
      if (!entry) continue;
      bytes += entry.bytes;
      queue.push(...entry.dependencies.keys());
    }
    if (budget.reached.size + closure.size > MAX_MODULES || budget.bytes + bytes > MAX_LINT_BYTES) return false;
    for (const reached of closure) budget.reached.add(reached);
    budget.bytes += bytes;
    const root = this.entries.get(`${settingsKey}\u0000${file}`);
    for (const [key, companion] of root?.companions ?? []) budget.local.set(key, companion);
    return true;
  }
}

/**
 * A module that imports nothing (no library client, no other module) and has no word of a lock,
 * a token, a clock or a write cannot hand its callers a lock, a client, a write or a token: it
 * is not parsed (most of a project's pure helpers). Broad on purpose; a false "worth it" only costs time.
 */
const IMPORTS = /\bimport\b|\brequire\s*\(|\bfrom\s*['"`]/;
const LOCK_TOKEN_CLOCK_OR_WRITE = /lock|lease|mutex|semaphore|advisory|fenc|token|revision|epoch|generation|version|counter|incr|\bnx\b|\bdate\b|\bnow\b|random|uuid|hrtime|performance|crypto|update|insert|delete|upsert|merge|query|execute|save|write|redis|sql|knex|prisma|etcd/i;

/** How deep `export *` chains are searched for the classes that implement an interface. */
const MAX_IMPLEMENTATION_HOPS = 3;
/** Modules beside an interface's module read for a class that matches it by shape. */
const MAX_SIBLING_CANDIDATES = 4;
const SOURCE_MODULE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;
const NOT_SOURCE = /\.d\.[cm]?ts$|\.(?:spec|test)\.[^.]+$/;

/** Modules in the folder of `file` whose name holds its name (`mongo-products.repository.ts` beside `products.repository.ts`). */
function namesakeSiblings(file: string): string[] {
  const dir = path.dirname(file);
  const own = path.basename(file).replace(SOURCE_MODULE, '').toLowerCase();
  if (own.length < 4 || own === 'index' || own === 'types') return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => SOURCE_MODULE.test(n) && !NOT_SOURCE.test(n) && n.replace(SOURCE_MODULE, '').toLowerCase() !== own && n.toLowerCase().includes(own))
    .sort()
    .slice(0, MAX_SIBLING_CANDIDATES)
    .map((n) => path.join(dir, n));
}

/** An exported interface or type: a contract whose implementations, elsewhere, may lock or write. */
const EXPORTED_TYPE = /\bexport\s+(?:declare\s+)?(?:interface|type)\s/;

function worthReading(text: string): boolean {
  return IMPORTS.test(text) || LOCK_TOKEN_CLOCK_OR_WRITE.test(text) || EXPORTED_TYPE.test(text);
}

function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/**
 * What one analysed file (the linted file, or a module being summarised) sees of the project:
 * where its imports lead and what the exports there do. Records the modules it used.
 */
export class ProjectView {
  /** Modules whose summaries this file's analysis used. */
  readonly used = new Set<string>();
  /** Set when something was unknown because of a bound: the result is not cached across lints. */
  partial = false;
  /** Modules seen while still being built (import cycles), or through summaries that saw them. */
  readonly cycleOn = new Set<string>();
  /** Set when a lookup reached a module still being summarised (an import cycle): that export is unknown. */
  pending = false;

  constructor(
    private readonly graph: ModuleGraph,
    readonly file: string,
    private readonly settingsKey: string,
    private readonly summarizer: Summarizer,
    private readonly budget: LintBudget,
    private readonly depth: number,
  ) {}

  /** Where this file's specifiers lead, for the life of the view (resolution is cached by directory anyway). */
  private readonly resolved = new Map<string, string | null>();

  /** The project file an import specifier of this file names. */
  resolve(specifier: string): string | undefined {
    let file = this.resolved.get(specifier);
    if (file === undefined) {
      file = resolveImport(this.file, specifier) ?? null;
      this.resolved.set(specifier, file);
    }
    return file ?? undefined;
  }

  /**
   * Answers of `exportOfBinding` by specifier and name. The modules under construction stay the
   * same for the whole life of a view (its own importers), so an answer does not change within
   * it; one that hit an import cycle (`pending`) is not kept.
   */
  private readonly bindingAnswers = new Map<string, ExportSummary | null>();

  /** Whether the project module `file` spells `pattern` in its own text (see `ModuleGraph.textMatches`). */
  moduleTextMatches(file: string, pattern: RegExp): boolean {
    return this.graph.textMatches(file, pattern);
  }

  /** What an imported binding is, following re-exports; undefined for libraries and the unknown. */
  exportOfBinding(binding: ImportBinding): ExportSummary | undefined {
    const key = `${binding.source}\u0000${binding.exported}`;
    const known = this.bindingAnswers.get(key);
    if (known !== undefined) return known ?? undefined;
    const pendingBefore = this.pending;
    this.pending = false;
    const found = this.lookupBinding(binding);
    if (!this.pending) this.bindingAnswers.set(key, found ?? null);
    this.pending ||= pendingBefore;
    return found;
  }

  private lookupBinding(binding: ImportBinding): ExportSummary | undefined {
    const file = this.resolve(binding.source);
    if (!file) return undefined;
    // CommonJS `module.exports = fn` is what `require` (and a namespace import) gives.
    if (binding.exported === '*') return this.exportOf(file, 'module.exports') ?? this.namespaceOf(file);
    return this.exportOf(file, binding.exported === 'default' ? 'default' : binding.exported);
  }

  /**
   * What an imported binding is when it may be a receiver (a client or lock authority the
   * module creates): an export that is plainly project code is none, and its module is not
   * summarised for the question.
   */
  receiverExportOf(binding: ImportBinding): ExportSummary | undefined {
    if (this.isPlainCodeBinding(binding)) return undefined;
    return this.exportOfBinding(binding);
  }

  /** The library class an imported class extends (`libraryBaseOf`), for a value typed as that class. */
  libraryBaseOfBinding(binding: ImportBinding): ImportedName | undefined {
    const file = this.resolve(binding.source);
    return file && binding.exported !== '*' ? this.graph.libraryBaseOf(file, binding.exported) : undefined;
  }

  /** Whether an imported binding is plainly project code by its declaration (`receiverExportOf` reads no summary for it). */
  isPlainCodeBinding(binding: ImportBinding): boolean {
    const file = this.resolve(binding.source);
    return file !== undefined && binding.exported !== '*' && this.isPlainCode(file, binding.exported);
  }

  /**
   * `isPlainCode` answers for this view's lint. The receiver table asks for every use of an
   * imported name; a module's stamp is checked once per lint, as its summary's is (`checkedIn`).
   */
  private readonly plainCode = new Map<string, boolean>();

  private isPlainCode(file: string, name: string): boolean {
    const key = `${file}\u0000${name}`;
    let plain = this.plainCode.get(key);
    if (plain === undefined) {
      plain = this.graph.isPlainCode(file, name);
      this.plainCode.set(key, plain);
    }
    return plain;
  }

  /**
   * An instance of what a binding names: a class's methods, or for an interface the classes
   * that implement it among the modules its import leads to (a package entry that exports the
   * interface and its implementations, `export * from './store'`).
   */
  instanceOfBinding(binding: ImportBinding): ExportSummary | undefined {
    const found = this.exportOfBinding(binding);
    if (found?.kind === 'class') {
      const file = this.resolve(binding.source);
      return (file ? this.containerBoundLease(file, found) : undefined) ?? { kind: 'object', members: found.methods, ...(found.fieldInstances ? { values: found.fieldInstances } : {}) };
    }
    if (found?.kind !== 'object' || !found.interfaceName) return found;
    // An interface that no class here implements is read as written (a bundle of typed properties).
    const file = this.resolve(binding.source);
    return (file ? this.implementationOf(file, found.interfaceName, found.methodNames) : undefined) ?? found;
  }

  /**
   * Classes exported by module `file` (or the modules it star-exports) that implement interface `name`;
   * when none names it, the classes beside it that declare every method of the interface (`methods`).
   */
  implementationOf(file: string, name: string, methods?: readonly string[]): ExportSummary | undefined {
    const classes: ExportSummary[] = [];
    const seen = new Set<string>();
    const visit = (current: string, hops: number) => {
      if (seen.has(current) || hops > MAX_IMPLEMENTATION_HOPS) return;
      seen.add(current);
      const module = this.moduleSummary(current);
      if (!module) return;
      for (const exported of module.exports.values()) {
        if (exported.kind === 'class' && exported.implements?.includes(name)) classes.push(exported);
      }
      for (const star of module.starExports) if (this.graph.mayExport(star, name)) visit(star, hops + 1);
    };
    visit(file, 0);
    if (classes.length === 0 && methods && methods.length > 0) classes.push(...this.structuralImplementations(file, methods));
    if (classes.length === 0) classes.push(...this.containerBoundImplementations(file, name));
    return mergeImplementations(classes);
  }

  /**
   * An interface that no class names in `implements` is often bound to its class elsewhere, by a
   * container (NestJS `{ provide: 'ProductsRepository', useClass: MongoProductsRepository }`), and
   * the class sits beside it, named after it (`products.repository.ts`, `mongo-products.repository.ts`).
   * TypeScript's typing is structural: such an exported class that declares every method of the
   * interface is read as its implementation. Only modules of the same folder whose name holds the
   * interface module's name are looked at, at most `MAX_SIBLING_CANDIDATES`. The folder is listed
   * when the summary is built: a module added beside it later is seen once a module it was read
   * through changes (or `clear()`), as edits of the modules read are seen at once.
   */
  private structuralImplementations(file: string, methods: readonly string[]): ExportSummary[] {
    const found: ExportSummary[] = [];
    for (const sibling of namesakeSiblings(file)) {
      const module = this.moduleSummary(sibling);
      for (const exported of module?.exports.values() ?? []) {
        if (exported.kind === 'class' && methods.every((m) => exported.methods.has(m))) found.push(exported);
      }
    }
    return found;
  }

  /**
   * A contract whose implementation lives in another layer (`domain/accounts/IAccountRepository.ts`
   * and `infra/persistence/accounts/AccountRepository.ts`), joined only by a container binding
   * (`{ provide: 'AccountRepository', useClass: AccountRepository }`) and an `@Inject(...)` token: the
   * classes the package's container binds that say `implements` the interface.
   */
  private containerBoundImplementations(file: string, name: string): ExportSummary[] {
    const found: ExportSummary[] = [];
    const bound = [...(this.graph.containerBindingsFor(file)?.byProvided.values() ?? [])].flat();
    const seen = new Set<string>();
    for (const { file: boundFile, name: exported } of bound) {
      const key = `${boundFile}\u0000${exported}`;
      if (seen.has(key) || boundFile === file) continue;
      seen.add(key);
      // Summarise only a class whose text says it implements the contract.
      if (!this.graph.textMatches(boundFile, new RegExp(`\\bimplements\\b[^{]*\\b${name.replaceAll("$", "\\$")}\\b`))) continue;
      const other = this.exportOf(boundFile, exported);
      if (other?.kind === 'class' && other.implements?.includes(name)) found.push(other);
      if (found.length >= MAX_SIBLING_CANDIDATES) break;
    }
    return found;
  }

  /**
   * A class a container replaces with another (`{ provide: Locker, useClass: RedisLocker }` in a
   * plugin's module): an instance is that class when it takes a lock the named one does not (an
   * in-process fallback and a Redis lease behind one name: the lease decides, per method). Read
   * only for injectable classes (`@Injectable()` in their module), from the package's bindings.
   */
  private containerBoundLease(file: string, named: Extract<ExportSummary, { kind: 'class' }>): ExportSummary | undefined {
    if (!this.graph.mayBeInjected(file)) return undefined;
    const bound = this.graph.containerBindingsFor(file)?.byProvided.get(named.name) ?? [];
    const leases: ExportSummary[] = [];
    for (const { file: boundFile, name } of bound.slice(0, MAX_SIBLING_CANDIDATES)) {
      const other = this.exportOf(boundFile, name);
      if (other?.kind === 'class' && other !== named && [...other.methods.values()].some((m) => m.acquire && !named.methods.get(m.name.split('.').pop() ?? '')?.acquire)) leases.push(other);
    }
    return leases.length > 0 ? mergeImplementations([named, ...leases]) : undefined;
  }

  /** `import * as ns from './x'`: the module's exports as members of one object. */
  private namespaceOf(file: string): ExportSummary | undefined {
    const module = this.moduleSummary(file);
    if (!module) return undefined;
    const members = new Map<string, FunctionSummary>();
    for (const name of module.exports.keys()) {
      const found = this.exportOf(file, name);
      if (found?.kind === 'function') members.set(name, found.fn);
    }
    return { kind: 'object', members };
  }

  /** The summary of module `file` (cached or built now), or undefined beyond the bounds. */
  moduleSummary(file: string): ModuleSummary | undefined {
    const entry = this.graph.entry(file, this.settingsKey, this.summarizer, this.budget, this.depth + 1);
    if (!entry) {
      this.partial = true;
      return undefined;
    }
    this.note(file, entry);
    return entry.summary;
  }

  /** Records that this analysis used `entry`, and on what knowledge that entry was built. */
  private note(file: string, entry: Entry): void {
    this.used.add(file);
    if (entry.builder) this.cycleOn.add(file);
    if (entry.partial) this.partial = true;
    for (const other of entry.cycleOn) this.cycleOn.add(other);
  }

  /** Export `name` of module `file`, through `export { x } from` and `export * from` chains. */
  exportOf(file: string, name: string, hops = 0): ExportSummary | undefined {
    if (hops > MAX_REEXPORT_HOPS) {
      this.partial = true;
      return undefined;
    }
    // The linted file asking for a name a barrel imports and exports again (`models.Order` of a
    // registry module): the name's own module answers. Summarising the barrel would summarise
    // everything its top-level code calls (the registry's associations), spending the lint's
    // bounds before the locks. Summaries (which are cached with their dependencies) still go
    // through the barrel, so a change there invalidates them.
    if (this.depth === 0) {
      const via = this.graph.reexportOf(file, name);
      if (via) return this.exportOf(via.file, via.name, hops + 1);
    }
    const entry = this.graph.entry(file, this.settingsKey, this.summarizer, this.budget, this.depth + 1);
    if (!entry) {
      this.partial = true;
      return undefined;
    }
    this.note(file, entry);
    // While the module is being built (an import cycle), ask its builder for this one export.
    const found = entry.builder ? entry.builder.exportSummary(name) : entry.summary?.exports.get(name);
    if (entry.builder && found === undefined) this.pending = true;
    if (found?.kind === 'reexport') return this.exportOf(found.file, found.name, hops + 1);
    if (found) return found;
    if (name === 'default') return undefined;
    for (const star of (entry.builder ? entry.builder.starExports : entry.summary?.starExports) ?? []) {
      if (star === file || !this.graph.mayExportAsOwn(star, name)) continue;
      const inner = this.exportOf(star, name, hops + 1);
      if (inner) return inner;
    }
    return undefined;
  }
}

/**
 * Whether module text can export `name`: a declaration after `export` (`export const name`,
 * `export async function name`, `export class name`), a name in an export list (`export { a as
 * name }`, `export * as name from`), a whole-module re-export, or CommonJS exports and
 * destructured exports, which are not read this closely (they may hold any name).
 */
export function textMayExport(text: string, name: string): boolean {
  if (/\bexport\s*\*\s*from\b|\bmodule\.exports\b|\bexports\s*[.[]|\bexport\s*=|\bexport\s+(?:declare\s+)?(?:const|let|var)\s*[{[]/.test(text)) return true;
  // A name that is no identifier (a namespace import asks for `*`, a string export name) is not
  // read this closely either: it must never become regular-expression syntax.
  if (!/^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u.test(name)) return true;
  const id = name.replace(/[$]/g, '\\$');
  const declared = new RegExp(`\\bexport\\s+(?:declare\\s+)?(?:default\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:const|let|var|function\\s*\\*?|class|enum|namespace|type|interface)\\s*${id}(?![\\w$])`);
  if (declared.test(text)) return true;
  const listed = new RegExp(`\\bexport\\s*(?:type\\s*)?\\{[^}]*(?<![\\w$])${id}(?![\\w$])[^}]*\\}|\\bexport\\s*\\*\\s*as\\s+${id}(?![\\w$])`);
  return listed.test(text);
}

/** The process-wide graph: one per process, shared by every lint (CLI, worker thread or language server). */
export const projectGraph = new ModuleGraph();
