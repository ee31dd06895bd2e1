// Builds what the .vsix ships in dist/: the client bundle (CommonJS, as VS Code loads
// extensions) and a copy of the language server's standalone bundle, which must keep
// libpg-query.wasm beside server.mjs (see server/README.md).
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const serverBundle = resolve(root, '../server/dist/bundle');
const SERVER_FILES = ['server.mjs', 'libpg-query.wasm'];

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

await build({
  entryPoints: [join(root, 'src/extension.ts')],
  outfile: join(dist, 'client.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
});

const missing = SERVER_FILES.filter((file) => !existsSync(join(serverBundle, file)));
if (missing.length > 0) {
  console.error(
    `extension build: ${missing.join(', ')} missing in ${serverBundle}.\n` +
      'Build the server bundle first: npm run build -w rules && npm run build -w server',
  );
  process.exit(1);
}
for (const file of readdirSync(serverBundle)) {
  // Source maps help debugging from the repository; .vscodeignore keeps them out of the .vsix.
  // parser.<platform>.node: the fast parser's native oxc binding for the build's platform (optional).
  if (SERVER_FILES.includes(file) || file.endsWith('.map') || /^parser\..+\.node$/.test(file)) cpSync(join(serverBundle, file), join(dist, file));
}
// The docs pages, so "Show documentation" opens the page of this very version, offline too.
const docs = resolve(root, '../rules/docs');
cpSync(join(docs, 'rules'), join(dist, 'docs/rules'), { recursive: true });
cpSync(join(docs, 'settings.md'), join(dist, 'docs/settings.md'));
console.log(`extension build: dist/client.js and the server bundle (${SERVER_FILES.join(', ')}) are in ${dist}`);
