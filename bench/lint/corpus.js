// The code the lint benchmark runs over: sources shipped inside npm packages this
// repository already installs (versions pinned by package-lock.json), written by others,
// plus our own fixtures. TypeScript comes from packages that ship their `src/`.
// Paths are relative to the repository root; a missing folder is reported and skipped.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import tsParser from '@typescript-eslint/parser';
import tseslint from 'typescript-eslint';

/** @typedef {{ name: string, dir: string, sourceType: 'module' | 'commonjs', exclude?: string[], group?: 'services' }} CorpusEntry */

/** @type {CorpusEntry[]} */
export const corpus = [
  // TypeScript sources
  { name: '@azure/msal-common', dir: 'node_modules/@azure/msal-common/src', sourceType: 'module' },
  { name: '@azure/msal-node', dir: 'node_modules/@azure/msal-node/src', sourceType: 'module' },
  { name: 'pg-protocol', dir: 'node_modules/pg-protocol/src', sourceType: 'module' },
  { name: 'cheerio', dir: 'node_modules/cheerio/src', sourceType: 'module' },
  { name: 'htmlparser2', dir: 'node_modules/htmlparser2/src', sourceType: 'module' },
  // JavaScript sources (CommonJS)
  { name: 'eslint', dir: 'node_modules/eslint/lib', sourceType: 'commonjs', exclude: ['rules/'] },
  { name: 'undici', dir: 'node_modules/undici/lib', sourceType: 'commonjs' },
  { name: 'pg', dir: 'node_modules/pg/lib', sourceType: 'commonjs' },
  { name: 'pg-pool', dir: 'node_modules/pg-pool', sourceType: 'commonjs', exclude: ['node_modules/'] },
  { name: 'vscode-jsonrpc', dir: 'node_modules/vscode-jsonrpc/lib', sourceType: 'commonjs' },
  { name: 'vscode-languageserver', dir: 'node_modules/vscode-languageserver/lib', sourceType: 'commonjs' },
  // Ours: the realistic lock-and-write services the rules exist for. Every one of them takes a
  // lock, so they are timed as a corpus of their own (`services`), not inside the library figure.
  { name: 'fixtures', dir: 'fixtures/services', sourceType: 'module', group: 'services' },
];

/** Extensions linted; declaration files and minified bundles are left out. */
const SOURCE_FILE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED_FILE = /\.d\.[cm]?ts$|\.min\.js$/;
const EXTENSIONS = '{ts,tsx,mts,cts,js,mjs,cjs}';

/** The least code written elsewhere that the benchmark accepts. */
export const MIN_LINES = 50_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function listSources(dir, exclude = []) {
  const found = [];
  const walk = (current) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      const rel = relative(dir, path).split(sep).join('/');
      if (exclude.some((prefix) => rel.startsWith(prefix))) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && SOURCE_FILE.test(entry.name) && !SKIPPED_FILE.test(entry.name)) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

function countLines(text) {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function packageVersion(dir) {
  for (let current = join(root, dir); current.startsWith(root); current = dirname(current)) {
    const manifest = join(current, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).version ?? '';
  }
  return '';
}

/**
 * The corpus as found on disk: per entry its files, lines and TypeScript lines.
 * The returned array carries `missing`: names of entries whose folder is not installed.
 */
export function collectCorpus() {
  const entries = [];
  const missing = [];
  for (const entry of corpus) {
    const dir = join(root, entry.dir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      missing.push(entry.name);
      continue;
    }
    const files = listSources(dir, entry.exclude);
    let lines = 0;
    let bytes = 0;
    let tsLines = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const n = countLines(text);
      lines += n;
      bytes += Buffer.byteLength(text);
      if (/\.[cm]?tsx?$/.test(file)) tsLines += n;
    }
    entries.push({ ...entry, version: packageVersion(entry.dir), files, lines, tsLines, bytes });
  }
  return Object.assign(entries, { missing });
}

/** The same parser settings for both configs; only the rules differ. */
export function baseConfig(entries) {
  // ESLint skips node_modules by default; the corpus lives there.
  const unignore = { ignores: ['!**/node_modules/'] };
  return [unignore, ...entries.map((entry) => ({
    files: [`${entry.dir}/**/*.${EXTENSIONS}`],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: entry.sourceType },
    // Inline `eslint-disable` comments name the packages' own rules; both configs skip them.
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
  }))];
}

/** The same configs with another parser (the opt-in fast parser) in place of @typescript-eslint/parser. */
export function withParser(configs, parser) {
  return configs.map((config) => (config.languageOptions?.parser ? { ...config, languageOptions: { ...config.languageOptions, parser } } : config));
}

/** The baseline plus fencelint's recommended rules on every corpus file. */
export function withFencelint(base, plugin) {
  return [...base, { ...plugin.configs.recommended, files: [`**/*.${EXTENSIONS}`] }];
}

/**
 * typescript-eslint's `recommended` in front of the corpus configs: its rules on every file,
 * with the corpus's own parser settings (the same parser, each entry's sourceType) kept.
 */
export function withTsRecommended(base) {
  return [...tseslint.configs.recommended, ...base];
}

/** The parser settings for the generated project corpus (one TypeScript application). */
export function projectBaseConfig(relativeDir) {
  return [{
    files: [`${relativeDir}/**/*.${EXTENSIONS}`],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
  }];
}
