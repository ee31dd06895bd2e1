// Bundles the language server into one ESM file plus the SQL parser's WebAssembly:
//   server/dist/bundle/server.mjs
//   server/dist/bundle/libpg-query.wasm
// ESM because the plugin awaits the WASM at the top level. The banner gives the CommonJS
// parts of the bundle (vscode-languageserver, eslint, libpg-query's loader) the `require`,
// `__filename` and `__dirname` they expect; libpg-query looks for its .wasm in `__dirname`,
// which is the bundle's folder.
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const serverDir = path.resolve(here, '..');
const outdir = path.join(serverDir, 'dist', 'bundle');
const alias = process.env.FENCELINT_BUNDLE_PLUGIN ? { 'eslint-plugin-fencelint': process.env.FENCELINT_BUNDLE_PLUGIN } : undefined;

await mkdir(outdir, { recursive: true });
const result = await build({
  entryPoints: [path.join(serverDir, 'src', 'bin.ts')],
  outfile: path.join(outdir, 'server.mjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // CommonJS first: libpg-query's CommonJS entry finds its .wasm through __dirname.
  mainFields: ['main', 'module'],
  // No keepNames: it wraps every function definition, and the TypeScript parser defines many per parse.
  minify: true,
  sourcemap: false,
  legalComments: 'linked',
  alias,
  // ESLint loads jiti only for TypeScript config files; a workspace that needs it has it installed.
  external: ['jiti', 'jiti/package.json'],
  metafile: true,
  logLevel: 'warning',
  banner: {
    js: [
      "import { createRequire as __flCreateRequire } from 'node:module';",
      "import { fileURLToPath as __flFileURLToPath } from 'node:url';",
      "import { dirname as __flDirname } from 'node:path';",
      'const require = __flCreateRequire(import.meta.url);',
      'const __filename = __flFileURLToPath(import.meta.url);',
      'const __dirname = __flDirname(__filename);',
      // See copyValuesIntoEsmImports below.
      'const __flCopyValues = (to, from, except) => { if (from && typeof from === "object" || typeof from === "function") for (const key of Object.getOwnPropertyNames(from)) if (!Object.prototype.hasOwnProperty.call(to, key) && key !== except) { const desc = Object.getOwnPropertyDescriptor(from, key); Object.defineProperty(to, key, { value: from[key], writable: true, configurable: true, enumerable: !desc || desc.enumerable }); } return to; };',
    ].join('\n'),
  },
});

/**
 * esbuild's `__toESM` (an ES module importing a CommonJS one: the plugin importing
 * @typescript-eslint/utils, eslint, ...) copies the CommonJS exports as getters, so every
 * `AST_NODE_TYPES.X` a rule reads on every node is a getter call: about 15% more CPU per
 * lint than the same code unbundled. CommonJS exports are final once `require` returns, so
 * `__toESM` here copies values instead. `__toCommonJS` keeps its getters (ESM live bindings).
 */
async function copyValuesIntoEsmImports(file) {
  const code = await readFile(file, 'utf8');
  const toEsm = /(var [\w$]+=\(([\w$]+),[\w$]+,([\w$]+)\)=>\(\3=\2!=null\?[\w$]+\([\w$]+\(\2\)\):\{\},)([\w$]+)\(/g;
  const matches = [...code.matchAll(toEsm)];
  if (matches.length !== 1) throw new Error(`bundle: expected one __toESM helper, found ${matches.length}; esbuild's output changed`);
  await writeFile(file, code.replace(toEsm, '$1__flCopyValues('));
}
await copyValuesIntoEsmImports(path.join(outdir, 'server.mjs'));

const require = createRequire(path.join(serverDir, 'package.json'));
const wasm = path.join(path.dirname(require.resolve('libpg-query')), 'libpg-query.wasm');
await copyFile(wasm, path.join(outdir, 'libpg-query.wasm'));

// The fast parser's native oxc binding for this platform: oxc's loader tries `./parser.<platform>.node`
// beside the module that loads it (the bundle) first. On a platform without it, the server parses with
// @typescript-eslint/parser and logs that once.
const oxcManifest = createRequire(path.join(serverDir, '..', 'rules', 'package.json')).resolve('oxc-parser/package.json');
const oxcRequire = createRequire(oxcManifest);
const bindings = [];
for (const name of Object.keys(JSON.parse(await readFile(oxcManifest, 'utf8')).optionalDependencies ?? {})) {
  let dir;
  try {
    dir = path.dirname(oxcRequire.resolve(`${name}/package.json`));
  } catch {
    continue; // not installed: npm installs only the binding of the machine it runs on
  }
  for (const file of await readdir(dir)) {
    if (!/^parser\..+\.node$/.test(file)) continue;
    // A new file, never rewritten in place: a running server has the old one mapped into memory.
    await rm(path.join(outdir, file), { force: true });
    await copyFile(path.join(dir, file), path.join(outdir, file));
    bindings.push(file);
  }
}

const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`bundled ${path.relative(process.cwd(), path.join(outdir, 'server.mjs'))} (${(bytes / 1024 / 1024).toFixed(1)} MB with map) + libpg-query.wasm${bindings.map((b) => ` + ${b}`).join('')}`);
