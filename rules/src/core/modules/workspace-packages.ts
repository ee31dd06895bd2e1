/**
 * Workspace packages of a monorepo that is not installed (a fresh clone, a CI lint job before
 * `npm ci`): a bare import such as `@acme/store` names a folder of the same repository, declared
 * by `pnpm-workspace.yaml` or the root package.json's `workspaces`. TypeScript resolves it as if
 * the package were linked into the root's `node_modules` (the host below maps that one folder
 * onto the package's real folder), so `exports`, conditions and `types` apply as the compiler
 * would apply them. A package whose entry points at build output that does not exist yet
 * (`main: dist/index.js`) is read from its sources, through its tsconfig's `outDir`/`rootDir`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type * as TS from 'typescript';

/** How far up from a file a workspace root is looked for. */
const MAX_ROOT_HOPS = 8;
/** Workspace folders read per root: enough for large monorepos, bounded for odd globs. */
const MAX_PACKAGES = 2000;

interface Workspace {
  root: string;
  /** Package name -> its folder. */
  packages: Map<string, string>;
}

/** Workspace root per directory (null: none above it). */
const rootOfDirectory = new Map<string, Workspace | null>();
const workspaces = new Map<string, Workspace>();

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The package globs a root declares, or undefined when the folder is no workspace root. */
function workspaceGlobs(directory: string): string[] | undefined {
  const pnpm = join(directory, 'pnpm-workspace.yaml');
  if (existsSync(pnpm)) {
    try {
      // Only the `packages:` list is needed: `- 'apps/*'` lines until the next top-level key.
      const out: string[] = [];
      let inPackages = false;
      for (const line of readFileSync(pnpm, 'utf8').split(/\r?\n/)) {
        if (/^packages\s*:/.test(line)) inPackages = true;
        else if (/^\S/.test(line)) inPackages = false;
        else if (inPackages) {
          const match = /^\s*-\s*['"]?([^'"#]+?)['"]?\s*(?:#.*)?$/.exec(line);
          if (match) out.push(match[1].trim());
        }
      }
      return out;
    } catch {
      return [];
    }
  }
  const manifest = readJson(join(directory, 'package.json'));
  const declared = manifest?.workspaces;
  if (Array.isArray(declared)) return declared.filter((g): g is string => typeof g === 'string');
  const nested = declared && typeof declared === 'object' ? (declared as { packages?: unknown }).packages : undefined;
  if (Array.isArray(nested)) return nested.filter((g): g is string => typeof g === 'string');
  return undefined;
}

function subdirectories(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'node_modules' && !d.name.startsWith('.'))
      .map((d) => join(directory, d.name));
  } catch {
    return [];
  }
}

/** Folders a glob names: `apps/*`, `packages/**` (two levels), or one folder. */
function expandGlob(root: string, glob: string): string[] {
  const parts = glob.replace(/\/+$/, '').split('/');
  let current = [root];
  for (const part of parts) {
    if (part === '*') current = current.flatMap(subdirectories);
    else if (part === '**') current = current.flatMap((d) => [d, ...subdirectories(d), ...subdirectories(d).flatMap(subdirectories)]);
    else if (/[*?[]/.test(part)) return [];
    else current = current.map((d) => join(d, part));
  }
  return current;
}

function loadWorkspace(root: string, globs: string[]): Workspace {
  const packages = new Map<string, string>();
  const excluded = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  for (const glob of globs) {
    if (glob.startsWith('!')) continue;
    for (const folder of expandGlob(root, glob)) {
      if (packages.size >= MAX_PACKAGES) break;
      const rel = relative(root, folder).split(sep).join('/');
      if (excluded.some((e) => !e.includes('*') && rel === e.replace(/\/+$/, ''))) continue;
      const name = readJson(join(folder, 'package.json'))?.name;
      if (typeof name === 'string' && !packages.has(name)) packages.set(name, folder);
    }
  }
  return { root, packages };
}

function workspaceOf(directory: string): Workspace | undefined {
  const visited: string[] = [];
  let current = directory;
  let found: Workspace | null = null;
  for (let hops = 0; hops <= MAX_ROOT_HOPS; hops++) {
    const known = rootOfDirectory.get(current);
    if (known !== undefined) {
      found = known;
      break;
    }
    visited.push(current);
    const globs = workspaceGlobs(current);
    if (globs) {
      found = workspaces.get(current) ?? loadWorkspace(current, globs);
      workspaces.set(current, found);
      break;
    }
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const d of visited) rootOfDirectory.set(d, found);
  return found ?? undefined;
}

/** `@scope/name/sub/path` -> [`@scope/name`, `sub/path`]. */
function splitSpecifier(specifier: string): [string, string] | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return undefined;
  const parts = specifier.split('/');
  const count = specifier.startsWith('@') ? 2 : 1;
  if (parts.length < count || parts.slice(0, count).some((p) => p.length === 0)) return undefined;
  return [parts.slice(0, count).join('/'), parts.slice(count).join('/')];
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];

function sourceFileAt(base: string): string | undefined {
  const stem = base.replace(/\.(?:d\.)?[cm]?[jt]sx?$/, '');
  for (const candidate of [...SOURCE_EXTENSIONS.map((e) => stem + e), ...SOURCE_EXTENSIONS.map((e) => join(stem, `index${e}`))]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The sources behind an entry that points at build output not built yet, through the package's tsconfig. */
function unbuiltEntry(ts: typeof TS, folder: string, subpath: string): string | undefined {
  const manifest = readJson(join(folder, 'package.json')) ?? {};
  const entry = subpath || [manifest.types, manifest.typings, manifest.main, manifest.module].find((v): v is string => typeof v === 'string') || 'index.js';
  let outDir: string | undefined;
  let rootDir: string | undefined;
  for (const name of ['tsconfig.build.json', 'tsconfig.lib.json', 'tsconfig.json']) {
    const path = join(folder, name);
    if (!existsSync(path)) continue;
    try {
      const read = ts.readConfigFile(path, ts.sys.readFile);
      const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, folder, undefined, path);
      outDir = parsed.options.outDir;
      rootDir = parsed.options.rootDir;
      if (outDir) break;
    } catch {
      // an odd tsconfig gives no mapping
    }
  }
  const target = resolve(folder, entry);
  if (outDir && rootDir && (target === outDir || target.startsWith(outDir + sep))) {
    const found = sourceFileAt(join(rootDir, relative(outDir, target)));
    if (found) return found;
  }
  return sourceFileAt(resolve(folder, 'src', subpath || 'index')) ?? (subpath ? sourceFileAt(target) : undefined);
}

/**
 * The file a bare specifier names when it is a package of the importing file's workspace that
 * no `node_modules` links in; undefined otherwise.
 */
export function resolveWorkspaceImport(ts: typeof TS, fromFile: string, specifier: string, options: TS.CompilerOptions): string | undefined {
  const split = splitSpecifier(specifier);
  if (!split) return undefined;
  const [name, subpath] = split;
  const workspace = workspaceOf(dirname(fromFile));
  const folder = workspace?.packages.get(name);
  if (!workspace || !folder) return undefined;
  const modules = join(workspace.root, 'node_modules');
  const linked = join(modules, name);
  const toReal = (p: string) => (p === linked || p.startsWith(linked + sep) ? folder + p.slice(linked.length) : p);
  const isLinkParent = (d: string) => d === modules || (name.startsWith('@') && d === join(modules, name.split('/')[0]));
  const host: TS.ModuleResolutionHost = {
    fileExists: (f) => ts.sys.fileExists(toReal(f)),
    readFile: (f) => ts.sys.readFile(toReal(f)),
    directoryExists: (d) => isLinkParent(d) || (ts.sys.directoryExists?.(toReal(d)) ?? true),
    realpath: (p) => toReal(p),
    getCurrentDirectory: () => ts.sys.getCurrentDirectory(),
  };
  let declaration: string | undefined;
  try {
    const file = ts.resolveModuleName(specifier, fromFile, options, host).resolvedModule?.resolvedFileName;
    const real = file && toReal(file);
    if (real && real.startsWith(folder + sep)) {
      if (!/\.d\.[cm]?ts$/.test(real)) return real;
      declaration = real;
    }
  } catch {
    // resolved below, from the sources
  }
  // A JavaScript package with a hand-written declaration beside its entry (`index.d.ts` next to
  // `index.js`); a declaration in build output stands for compiled code, whose sources come next.
  const beside = declaration !== undefined && !/[\\/](?:dist|build|out)[\\/]/.test(declaration) ? sourceFileAt(declaration) : undefined;
  return beside ?? unbuiltEntry(ts, folder, subpath);
}

/** Forgets the workspaces read (package.json or pnpm-workspace.yaml changed). */
export function clearWorkspaces(): void {
  rootOfDirectory.clear();
  workspaces.clear();
}
