// Which parser the server lints with, over a real LSP connection: the plugin's fast parser for
// the bundled configuration (a file it cannot take goes to @typescript-eslint/parser with one
// log line; text broken mid-edit gets an empty report and the next good text its findings
// again), and the workspace config's own parser when the user opts into the workspace config.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { BUGGY_SAVE, RULE_ID } from './buggy-code.js';
import { fileUri, TestClient, type ClientOptions } from './lsp-client.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoNodeModules = path.resolve(here, '..', '..', 'node_modules');

const clients: TestClient[] = [];
const folders: string[] = [];
async function start(options: ClientOptions): Promise<TestClient> {
  const client = await TestClient.start(options);
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const findings = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.code === RULE_ID);
const fallbackLines = (client: TestClient) => client.logs.filter((l) => l.includes('parsed with @typescript-eslint/parser instead'));

describe('the bundled configuration parses with the fast parser', () => {
  it('reports the same findings, and a file the fast path cannot take falls back with one log line', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const plain = fileUri('parser-choice/plain.ts');
    await client.open(plain, BUGGY_SAVE);
    expect(findings(await client.diagnostics(plain))).toHaveLength(1);
    expect(fallbackLines(client)).toEqual([]);

    // oxc rejects a redeclared `let` (TypeScript leaves it to the type checker): the fallback parses it.
    const redeclared = fileUri('parser-choice/redeclared.ts');
    const text = `${BUGGY_SAVE}let counter = 1;\nlet counter = 2;\n`;
    await client.open(redeclared, text);
    expect(findings(await client.diagnostics(redeclared))).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      await client.replace(redeclared, `${text}// edit ${i}\n`);
      expect(findings(await client.diagnostics(redeclared))).toHaveLength(1);
    }
    const lines = fallbackLines(client);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('redeclared.ts');
    expect(lines[0]).toMatch(/already been declared/);
  });

  it('text broken mid-edit gets an empty report, and the fixed text its findings again (push: one report per version)', async () => {
    const client = await start({ transport: 'stdio', pull: false });
    const uri = fileUri('parser-choice/editing.ts');
    await client.open(uri, BUGGY_SAVE);
    const first = await client.waitFor(() => client.pushedFor(uri, 1), 'the first report');
    expect(findings(first.diagnostics)).toHaveLength(1);

    const broken = BUGGY_SAVE.replace("WHERE resource_key = $2', [value, key]);", "WHERE resource_key = $2', [value, key);");
    const brokenVersion = await client.replace(uri, broken);
    const brokenReport = await client.waitFor(() => client.pushedFor(uri, brokenVersion), 'the report of the broken text');
    expect(brokenReport.diagnostics).toEqual([]);

    const fixedVersion = await client.replace(uri, BUGGY_SAVE);
    const fixedReport = await client.waitFor(() => client.pushedFor(uri, fixedVersion), 'the report of the fixed text');
    expect(findings(fixedReport.diagnostics)).toHaveLength(1);
    // Every report of a version says the same: nothing stale, nothing doubled.
    for (const report of client.pushedReports(uri)) {
      const sameVersion = client.pushedReports(uri).filter((r) => r.version === report.version);
      for (const other of sameVersion) expect(other.diagnostics).toEqual(report.diagnostics);
      expect(new Set(report.diagnostics.map((d) => JSON.stringify(d.range))).size).toBe(report.diagnostics.length);
    }
    // Both parsers reject the broken text: that is no news, and no log line.
    expect(fallbackLines(client)).toEqual([]);
  });
});

/**
 * A workspace whose eslint.config.js sets its own parser: @typescript-eslint/parser over the
 * text with `UPDATE` read as `SELECT` (same length, so every range still fits). Linted with it,
 * the buggy save has no write, so no finding: the finding tells which parser ran.
 */
function workspaceWithItsOwnParser(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'fencelint-ls-parser-'));
  folders.push(folder);
  mkdirSync(path.join(folder, 'src'));
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'ws', private: true, type: 'module' }));
  writeFileSync(
    path.join(folder, 'reading-parser.js'),
    [
      "import * as tsParser from '@typescript-eslint/parser';",
      "export const meta = { name: 'reading-parser' };",
      "export function parseForESLint(code, options) { return tsParser.parseForESLint(code.replaceAll('UPDATE', 'SELECT'), options); }",
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(folder, 'eslint.config.js'),
    [
      "import * as readingParser from './reading-parser.js';",
      "export default [{ files: ['**/*.ts'], languageOptions: { parser: readingParser } }];",
      '',
    ].join('\n'),
  );
  symlinkSync(repoNodeModules, path.join(folder, 'node_modules'), 'dir');
  writeFileSync(path.join(folder, 'src', 'save.ts'), BUGGY_SAVE);
  return folder;
}

describe("the workspace's own parser", () => {
  it('is used when the workspace config is opted into (and trusted), and not otherwise', async () => {
    const folder = workspaceWithItsOwnParser();
    const uri = pathToFileURL(path.join(folder, 'src', 'save.ts')).href;

    const bundled = await start({ transport: 'stdio', pull: true, settings: {}, initializationOptions: { trusted: true } });
    await bundled.open(uri, BUGGY_SAVE);
    expect(findings(await bundled.diagnostics(uri))).toHaveLength(1);

    const workspace = await start({ transport: 'stdio', pull: true, settings: { useWorkspaceConfig: true }, initializationOptions: { trusted: true } });
    await workspace.open(uri, BUGGY_SAVE);
    expect(findings(await workspace.diagnostics(uri))).toEqual([]);
  });
});
