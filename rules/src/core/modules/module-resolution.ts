/**
 * Where an import leads, by TypeScript's own module resolution with the nearest tsconfig
 * (`paths`, `baseUrl`, `moduleResolution`, package `exports`), so the answer is the one the
 * user's compiler gives. Only files of the project count: a package under `node_modules` is a
 * library (its knowledge lives in `models/`), while a workspace package reached through a
 * `node_modules` symlink is project code, known by its real path.
 *
 * TypeScript is loaded on the first resolution, so a lint that never follows an import
 * never loads it.
 */
import { existsSync, realpathSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, extname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import type * as TS from 'typescript';
import { clearWorkspaces, resolveWorkspaceImport } from './workspace-packages.js';

type TypeScript = typeof TS;

let typescript: TypeScript | null | undefined;

/** TypeScript, or null when it cannot be loaded (then imports stay unresolved: no project analysis). */
export function loadTypescript(): TypeScript | null {
  if (typescript !== undefined) return typescript;
  try {
    // A literal `require` lets a bundler include TypeScript (lazily); plain ES modules have none.
    typescript = (typeof require === 'function' ? require('typescript') : createRequire(import.meta.url)('typescript')) as TypeScript;
  } catch {
    typescript = null;
  }
  return typescript;
}

/** Extensions of files whose bodies we can read; declaration files have none. */
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?)$/i;
const DECLARATION_FILE = /\.d\.[cm]?ts$/i;

interface ProjectConfig {
  options: TS.CompilerOptions;
  cache: TS.ModuleResolutionCache;
}

/** Parsed tsconfigs by path; `null` for a directory without one. */
const configs = new Map<string, ProjectConfig>();
/** Nearest tsconfig per directory. */
const configOfDirectory = new Map<string, string | null>();
/** (importing file's directory, specifier) -> resolved project file, or null. */
const resolutions = new Map<string, string | null>();

const DEFAULT_KEY = '<no tsconfig>';

/** What the file system said, per path, until `clearResolutions` (as the resolutions themselves are kept). */
const fileExists = new Map<string, boolean>();
const directoryExists = new Map<string, boolean>();
const realPaths = new Map<string, string>();
const hostRealPaths = new Map<string, string>();
let host: TS.ModuleResolutionHost | undefined;

function remember<T>(known: Map<string, T>, path: string, ask: () => T): T {
  let answer = known.get(path);
  if (answer === undefined) {
    answer = ask();
    known.set(path, answer);
  }
  return answer;
}

/**
 * `ts.sys` asking the disk each question once: resolving the imports of a folder's files walks
 * the same `node_modules` folders and tries the same extensions for every specifier, and
 * TypeScript's resolution cache keeps results per specifier, not the stats made to find them.
 */
function resolutionHost(ts: TypeScript): TS.ModuleResolutionHost {
  host ??= {
    fileExists: (file) => remember(fileExists, file, () => ts.sys.fileExists(file)),
    directoryExists: (dir) => remember(directoryExists, dir, () => ts.sys.directoryExists(dir)),
    realpath: ts.sys.realpath && ((path) => remember(hostRealPaths, path, () => ts.sys.realpath!(path))),
    readFile: (file) => ts.sys.readFile(file),
    getCurrentDirectory: () => ts.sys.getCurrentDirectory(),
    getDirectories: (dir) => ts.sys.getDirectories(dir),
    useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
  };
  return host;
}

/** The real path of a file (workspace packages come through symlinks), or the path itself when it does not exist. */
function realPathOf(path: string): string {
  return remember(realPaths, path, () => {
    try {
      return existsSync(path) ? realpathSync.native(path) : path;
    } catch {
      return path;
    }
  });
}

function defaultOptions(ts: TypeScript): TS.CompilerOptions {
  // Without a tsconfig, resolve as a bundler would: package exports, extensionless relative paths.
  return { allowJs: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, resolveJsonModule: false };
}

function nearestConfig(ts: TypeScript, directory: string): string | null {
  const known = configOfDirectory.get(directory);
  if (known !== undefined) return known;
  let found: string | null = null;
  try {
    const exists = resolutionHost(ts).fileExists;
    found = ts.findConfigFile(directory, exists, 'tsconfig.json') ?? ts.findConfigFile(directory, exists, 'jsconfig.json') ?? null;
  } catch {
    found = null;
  }
  configOfDirectory.set(directory, found);
  return found;
}

function projectConfig(ts: TypeScript, directory: string): ProjectConfig {
  const path = nearestConfig(ts, directory) ?? DEFAULT_KEY;
  const cached = configs.get(path);
  if (cached) return cached;
  let options = defaultOptions(ts);
  if (path !== DEFAULT_KEY) {
    try {
      const read = ts.readConfigFile(path, ts.sys.readFile);
      if (read.config) {
        // Only the options matter here: a host that lists no directory spares the walk over the project's files.
        const host = { ...ts.sys, readDirectory: () => [] };
        const parsed = ts.parseJsonConfigFileContent(read.config, host, dirname(path), undefined, path);
        // A broken or odd tsconfig still resolves what it can; JS files are always followed.
        options = { ...parsed.options, allowJs: true, noEmit: true };
      }
    } catch {
      // An unreadable tsconfig resolves like none.
    }
  }
  const cache = ts.createModuleResolutionCache(dirname(path === DEFAULT_KEY ? directory : path), (f) => f, options);
  const config = { options, cache };
  configs.set(path, config);
  return config;
}

function isProjectFile(file: string): boolean {
  return SOURCE_FILE.test(file) && !DECLARATION_FILE.test(file) && !/[\\/]node_modules[\\/]/.test(file);
}

/**
 * The project file an import specifier names, seen from `fromFile`; undefined for packages,
 * declaration files, unresolvable specifiers, or when TypeScript is not available.
 */
export function resolveImport(fromFile: string, specifier: string): string | undefined {
  if (!isAbsolute(fromFile) || specifier.length === 0 || specifier.length > 1024 || specifier.startsWith('node:')) return undefined;
  const directory = dirname(fromFile);
  const key = `${directory}\u0000${specifier}`;
  const known = resolutions.get(key);
  if (known !== undefined) return known ?? undefined;
  let resolved: string | null = null;
  const ts = loadTypescript();
  if (ts) {
    try {
      const { options, cache } = projectConfig(ts, directory);
      if (isInstalledLibrary(ts, directory, specifier, options)) {
        resolutions.set(key, null);
        return undefined;
      }
      const result = ts.resolveModuleName(specifier, fromFile, options, resolutionHost(ts), cache);
      const file = result.resolvedModule?.resolvedFileName ?? resolveLocalPackage(ts, fromFile, specifier, options, cache);
      if (file) {
        // Workspace packages come through node_modules symlinks; their real path is project code.
        const real = realPathOf(file);
        const source = implementationOf(real);
        if (isProjectFile(source)) resolved = source;
      } else {
        // A workspace package of a monorepo that is not installed: found by its declared name.
        const inWorkspace = resolveWorkspaceImport(ts, fromFile, specifier, options);
        const source = inWorkspace && implementationOf(inWorkspace);
        if (source && isProjectFile(source)) resolved = source;
      }
    } catch {
      resolved = null;
    }
  }
  resolutions.set(key, resolved);
  return resolved ?? undefined;
}

/** How many folders up `node_modules` is looked for a package. */
const MAX_NODE_MODULES_HOPS = 32;

/**
 * A bare specifier that can only name a library: a Node built-in (`fs`, `crypto`), or a package
 * installed in a `node_modules` folder as a real folder there (npm, yarn, or pnpm's store), not
 * a symlink out of it (a workspace package, a `file:` dependency). Answered without TypeScript's
 * resolution, which would read the package's manifests to land in `node_modules` all the same.
 * A tsconfig with `paths` or `baseUrl` can map any specifier into the project: then TypeScript decides.
 */
function isInstalledLibrary(ts: TypeScript, directory: string, specifier: string, options: TS.CompilerOptions): boolean {
  if (specifier.startsWith('.') || isAbsolute(specifier) || options.paths || options.baseUrl) return false;
  if (isBuiltin(specifier)) return true;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (!name || name.startsWith('@') !== specifier.startsWith('@') || (specifier.startsWith('@') && parts.length < 2)) return false;
  const exists = resolutionHost(ts).directoryExists!;
  let current = directory;
  for (let hop = 0; hop < MAX_NODE_MODULES_HOPS; hop++) {
    const folder = join(current, 'node_modules', name);
    if (exists(folder)) return /[\\/]node_modules[\\/]/.test(realPathOf(folder));
    const parent = dirname(current);
    if (parent === current) return false;
    current = parent;
  }
  return false;
}

/** Dependency specs that point at a folder of the project: npm's `file:`, yarn's and pnpm's `link:`. */
const LOCAL_SPEC = /^(?:file|link):(.+)$/;
/** How many folders up a `package.json` is looked for. */
const MAX_PACKAGE_HOPS = 12;

/** package.json dependencies by path; null for none or unreadable. */
const packageDependencies = new Map<string, Record<string, string> | null>();

function dependenciesAt(ts: TypeScript, packageJson: string): Record<string, string> | null {
  const known = packageDependencies.get(packageJson);
  if (known !== undefined) return known;
  let deps: Record<string, string> | null = null;
  try {
    const text = ts.sys.fileExists(packageJson) ? ts.sys.readFile(packageJson) : undefined;
    const json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    if (json && typeof json === 'object') {
      deps = {};
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        const value = json[field];
        if (value && typeof value === 'object') for (const [name, spec] of Object.entries(value)) if (typeof spec === 'string') deps[name] = spec;
      }
    }
  } catch {
    deps = null;
  }
  packageDependencies.set(packageJson, deps);
  return deps;
}

/**
 * A package the project depends on by path (`"common": "file:../common"`) when it is not
 * installed: the package manager would link that folder into node_modules, so the import
 * leads into it, as it does once the project is installed.
 */
function resolveLocalPackage(ts: TypeScript, fromFile: string, specifier: string, options: TS.CompilerOptions, cache: TS.ModuleResolutionCache): string | undefined {
  if (specifier.startsWith('.') || isAbsolute(specifier)) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const subpath = specifier.slice(name.length);
  let directory = dirname(fromFile);
  for (let hop = 0; hop < MAX_PACKAGE_HOPS; hop++) {
    const spec = dependenciesAt(ts, join(directory, 'package.json'))?.[name];
    const local = spec !== undefined ? LOCAL_SPEC.exec(spec) : null;
    if (local) {
      const target = resolvePath(directory, local[1]) + subpath;
      return ts.resolveModuleName(target, fromFile, options, resolutionHost(ts), cache).resolvedModule?.resolvedFileName;
    }
    if (spec !== undefined) return undefined;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
  return undefined;
}

/**
 * A JavaScript module that ships a hand-written declaration beside it (`index.d.ts` next to
 * `index.js`): TypeScript resolves to the declaration, but the code that runs is the JavaScript.
 */
function implementationOf(file: string): string {
  // Declarations in build output stand for compiled code: the sources are found another way.
  if (!DECLARATION_FILE.test(file) || /[\\/](?:dist|build|out)[\\/]/.test(file)) return file;
  const base = file.replace(/\.d\.([cm]?)ts$/, '');
  for (const extension of ['.js', '.mjs', '.cjs']) {
    if (existsSync(base + extension)) return base + extension;
  }
  return file;
}

/** Whether a file name is one we parse as a module (by extension). */
export function isModuleFileName(file: string): boolean {
  return SOURCE_FILE.test(extname(file)) && !DECLARATION_FILE.test(file);
}

/** Forgets every resolution and tsconfig: after a tsconfig or package.json changes, or files move. */
export function clearResolutions(): void {
  configs.clear();
  configOfDirectory.clear();
  resolutions.clear();
  packageDependencies.clear();
  fileExists.clear();
  directoryExists.clear();
  realPaths.clear();
  hostRealPaths.clear();
  clearWorkspaces();
}
