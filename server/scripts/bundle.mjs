// Bundles the language server into one ESM file plus the SQL parser's WebAssembly:
//   server/dist/bundle/server.mjs
//   server/dist/bundle/libpg-query.wasm
// ESM because the plugin awaits the WASM at the top level. The banner gives the CommonJS
// parts of the bundle (vscode-languageserver, eslint, libpg-query's loader) the `require`,
// `__filename` and `__dirname` they expect; libpg-query looks for its .wasm in `__dirname`,
// which is the bundle's folder.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
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
    ].join('\n'),
  },
});

const require = createRequire(path.join(serverDir, 'package.json'));
const wasm = path.join(path.dirname(require.resolve('libpg-query')), 'libpg-query.wasm');
await copyFile(wasm, path.join(outdir, 'libpg-query.wasm'));

const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`bundled ${path.relative(process.cwd(), path.join(outdir, 'server.mjs'))} (${(bytes / 1024 / 1024).toFixed(1)} MB with map) + libpg-query.wasm`);
