import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic, Hover } from 'vscode-languageserver-protocol/node';
import { BUGGY_SAVE, BUGGY_SAVE_WITH_TOKEN, RULE_ID } from './buggy-code.js';
import { applyTextEdits, fileUri, SERVER_BUNDLE, TestClient, type ClientOptions } from './lsp-client.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const THROWING_PLUGIN = path.join(here, 'fixtures', 'throwing-plugin.mjs');

const clients: TestClient[] = [];
async function start(options: ClientOptions): Promise<TestClient> {
  const client = await TestClient.start(options);
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

const findings = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.code === RULE_ID);

async function codeActions(client: TestClient, uri: string, diagnostics: Diagnostic[], only?: string[], at?: Diagnostic['range']): Promise<CodeAction[]> {
  const range = at ?? diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return client.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range,
    context: { diagnostics, ...(only ? { only } : {}) },
  });
}

function expectFencelintDiagnostic(diagnostic: Diagnostic, line = 7): void {
  expect(diagnostic.source).toBe('fencelint');
  expect(diagnostic.code).toBe(RULE_ID);
  expect(diagnostic.codeDescription?.href).toMatch(/^https:\/\/.+\/require-fence-condition\.md$/);
  // The write is reported, not the acquire: the line that holds pool.query.
  expect(diagnostic.range.start.line).toBe(line);
  expect(String(diagnostic.message).length).toBeGreaterThan(10);
}

describe('fencelint language server over stdio', () => {
  it('reports the unfenced write by pull, and the preferred quick fix makes the finding disappear', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    expect(client.capabilities).toMatchObject({ diagnosticProvider: { interFileDependencies: true } });
    const uri = fileUri('pull/save.ts');
    await client.open(uri, BUGGY_SAVE_WITH_TOKEN);

    const before = findings(await client.diagnostics(uri));
    expect(before).toHaveLength(1);
    expectFencelintDiagnostic(before[0], 8);

    const actions = await codeActions(client, uri, before);
    expect(actions.every((a) => a.kind === 'quickfix')).toBe(true);
    const preferred = actions.filter((a) => a.isPreferred);
    expect(preferred).toHaveLength(1);
    expect(actions.map((a) => a.title)).toContain(`Disable ${RULE_ID} for this line`);
    expect(actions.map((a) => a.title)).toContain(`Show documentation for ${RULE_ID}`);

    const fixed = applyTextEdits(BUGGY_SAVE_WITH_TOKEN, preferred[0].edit!.changes![uri]);
    expect(fixed).toContain('fence_token');
    await client.replace(uri, fixed);
    expect(findings(await client.diagnostics(uri))).toEqual([]);
  });

  it('reports the article\'s redlock write, which has no token in scope, with disable and docs actions', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const uri = fileUri('pull/redlock.ts');
    await client.open(uri, BUGGY_SAVE);
    const before = findings(await client.diagnostics(uri));
    expect(before).toHaveLength(1);
    expectFencelintDiagnostic(before[0]);
    const titles = (await codeActions(client, uri, before)).map((a) => a.title);
    expect(titles).toContain(`Disable ${RULE_ID} for this line`);
    expect(titles).toContain(`Show documentation for ${RULE_ID}`);
  });

  it('points at the acquire from the diagnostic, and the hover on the acquire lists where its lease reaches', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const uri = fileUri('related/save.ts');
    await client.open(uri, BUGGY_SAVE);
    const [finding] = findings(await client.diagnostics(uri));
    // Line 6 (0-based 5) holds `await redlock.acquire(...)`.
    expect(finding.relatedInformation?.map((r) => [r.location.uri, r.location.range.start.line])).toEqual([[uri, 5]]);
    expect(finding.relatedInformation?.[0].message).toContain('redlock');

    const acquireColumn = BUGGY_SAVE.split('\n')[5].indexOf('acquire');
    const hover: Hover | null = await client.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 5, character: acquireColumn } });
    const text = (hover?.contents as { value: string }).value;
    expect(text).toContain('redlock');
    expect(text).toContain('line 8');
    expect(text).toContain('not fenced');
  });

  it('points a read-then-update finding at its separate check as well as at the acquire', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const uri = fileUri('related/check-then-write.ts');
    const code = `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function save(id: string, snippet: string) {
  const lock = await redlock.acquire([\`snippet:\${id}\`], 5000);
  try {
    if (lock.expiration <= Date.now()) throw new Error('lock expired');
    await pool.query('UPDATE documents SET search_snippet = $2 WHERE id = $1', [id, snippet]);
  } finally { await lock.release(); }
}
`;
    await client.open(uri, code);
    const diagnostics = await client.diagnostics(uri);
    const checkThenWrite = diagnostics.find((d) => d.code === 'fencelint/no-check-then-write');
    expect(checkThenWrite?.range.start.line).toBe(8);
    expect(checkThenWrite?.relatedInformation?.map((r) => [r.location.range.start.line, r.message])).toEqual([
      // The message is one line; the related information says where a token can come from.
      [5, expect.stringMatching(/^lease acquired here \(redlock\); no fence token in scope: redlock's lock value is random .*durable counter/)],
      [7, 'checked here, in a separate step before the write'],
    ]);
  });

  it('the hover names the same token in scope that the quick fix uses', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const uri = fileUri('related/token-param.ts');
    const code = BUGGY_SAVE.replace('save(key: string, value: string)', 'save(key: string, value: string, fenceToken: number)');
    await client.open(uri, code);
    const [finding] = findings(await client.diagnostics(uri));
    const preferred = (await codeActions(client, uri, [finding])).filter((a) => a.isPreferred);
    expect(preferred[0].title).toContain('`fenceToken`');
    const acquireColumn = code.split('\n')[5].indexOf('acquire');
    const hover: Hover | null = await client.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 5, character: acquireColumn } });
    expect((hover?.contents as { value: string }).value).toContain('Fence token in scope: `fenceToken`');
  });

  it('pushes diagnostics to a client that does not pull, and disabling the rule for the line removes them', async () => {
    const client = await start({ transport: 'stdio', pull: false });
    expect((client.capabilities as { diagnosticProvider?: unknown }).diagnosticProvider).toBeUndefined();
    const uri = fileUri('push/save.ts');
    await client.open(uri, BUGGY_SAVE);

    const before = findings(await client.diagnostics(uri));
    expect(before).toHaveLength(1);
    expectFencelintDiagnostic(before[0]);

    // A client that sends no diagnostics in the context (some editors) gets the actions of the range.
    const disable = (await codeActions(client, uri, [], undefined, before[0].range)).find((a) => a.title === `Disable ${RULE_ID} for this line`);
    expect((await codeActions(client, uri, before)).map((a) => a.title)).toContain(`Disable ${RULE_ID} for this line`);
    const disabled = applyTextEdits(BUGGY_SAVE, disable!.edit!.changes![uri]);
    expect(disabled.split('\n')[7]).toBe(`    // eslint-disable-next-line ${RULE_ID}`);
    await client.replace(uri, disabled);
    expect(findings(await client.diagnostics(uri))).toEqual([]);
  });

  it('publishes once per version: an open is one report, not two', async () => {
    const client = await start({ transport: 'stdio', pull: false });
    const uri = fileUri('once/save.ts');
    await client.open(uri, BUGGY_SAVE);
    expect(findings(await client.diagnostics(uri))).toHaveLength(1);
    // Reports come in order: once the next document's report is in, a repeat of the first would be too.
    const next = fileUri('once/other.ts');
    await client.open(next, BUGGY_SAVE);
    await client.diagnostics(next);
    await client.replace(next, `${BUGGY_SAVE}\n`);
    await client.diagnostics(next);
    expect(client.pushedReports(uri).map((r) => r.version)).toEqual([1]);
    expect(client.pushedReports(next).map((r) => r.version)).toEqual([1, 2]);
  });

  it('lints the newest version after a burst of edits and never publishes an older one after a newer one', async () => {
    const client = await start({ transport: 'stdio', pull: false });
    const uri = fileUri('burst/save.ts');
    await client.open(uri, BUGGY_SAVE);
    await client.diagnostics(uri);
    let last = 1;
    for (let i = 0; i < 30; i++) last = await client.replace(uri, `${BUGGY_SAVE}\n// edit ${i}\n`);
    const final = await client.waitFor(() => client.pushedFor(uri, last), 'the report for the last edit');
    expect(final.version).toBe(last);
    expect(findings(final.diagnostics)).toHaveLength(1);
    const versions = client.pushedReports(uri).map((r) => r.version ?? 0);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });

  it('publishes a burst of 1,000 typed edits once, for the final version', async () => {
    const client = await start({ transport: 'stdio', pull: false });
    const uri = fileUri('burst/typed.ts');
    await client.open(uri, BUGGY_SAVE);
    await client.diagnostics(uri);
    const end = BUGGY_SAVE.split('\n').length - 1;
    // Typed one character at a time on a new last line, flushed as one burst.
    const last = client.burst(uri, Array.from({ length: 1000 }, (_, i) => [{ range: { start: { line: end, character: i }, end: { line: end, character: i } }, text: 'x' }]));
    const final = await client.waitFor(() => client.pushedFor(uri, last), 'the report for the last edit');
    expect(findings(final.diagnostics)).toHaveLength(1);
    // One report for the open, one for the burst's final version: no version in between.
    expect(client.pushedReports(uri).map((r) => r.version)).toEqual([1, last]);
  });

  it('applies a settings change: a rule turned off, then fencelint disabled', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const uri = fileUri('settings/save.ts');
    await client.open(uri, BUGGY_SAVE);
    expect(findings(await client.diagnostics(uri))).toHaveLength(1);

    await client.changeSettings({ rules: { 'require-fence-condition': 'off' } });
    await client.waitFor(() => (client.refreshes > 0 ? true : undefined), 'a diagnostic refresh');
    expect(findings(await client.diagnostics(uri))).toEqual([]);

    await client.changeSettings({ rules: { 'require-fence-condition': 'warn' } });
    const warned = findings(await client.diagnostics(uri));
    expect(warned).toHaveLength(1);
    expect(warned[0].severity).toBe(2);

    await client.changeSettings({ enable: false });
    expect(await client.diagnostics(uri)).toEqual([]);
  });

  it('contains a throwing rule: an empty report, one log line, and the server keeps serving', async () => {
    const client = await start({ transport: 'stdio', pull: true, env: { FENCELINT_LS_EXTRA_PLUGINS: THROWING_PLUGIN } });
    const broken = fileUri('throwing/broken.ts');
    await client.open(broken, `${BUGGY_SAVE}// THROW_IN_RULE\n`);
    expect(await client.diagnostics(broken)).toEqual([]);
    await client.replace(broken, `${BUGGY_SAVE}// THROW_IN_RULE again\n`);
    expect(await client.diagnostics(broken)).toEqual([]);
    expect(client.logs.filter((l) => l.includes('on-marker failed on purpose'))).toHaveLength(1);

    const healthy = fileUri('throwing/healthy.ts');
    await client.open(healthy, BUGGY_SAVE);
    expect(findings(await client.diagnostics(healthy))).toHaveLength(1);
    const hover: Hover | null = await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: healthy }, position: { line: 0, character: 0 } });
    expect(hover).toBeNull();
  });

  it('skips huge and binary documents with a log line, and reports nothing for a syntax error', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const huge = fileUri('skip/huge.ts');
    await client.open(huge, BUGGY_SAVE + `// ${'x'.repeat(80)}\n`.repeat(30_000));
    expect(await client.diagnostics(huge)).toEqual([]);
    await client.waitFor(() => client.logs.find((l) => l.includes('skipped') && l.includes('huge.ts')), 'the skip log line');

    const binary = fileUri('skip/binary.js');
    await client.open(binary, `\u0000\u0001\u0002ELF${BUGGY_SAVE}`, 'javascript');
    expect(await client.diagnostics(binary)).toEqual([]);

    const broken = fileUri('skip/syntax.ts');
    await client.open(broken, BUGGY_SAVE.replace('try {', 'try {{ ('));
    expect(await client.diagnostics(broken)).toEqual([]);
  });

  it('offers source.fixAll.fencelint without semantic suggestions, and opens the docs through the client', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const uri = fileUri('fixall/save.ts');
    await client.open(uri, BUGGY_SAVE_WITH_TOKEN);
    const diagnostics = findings(await client.diagnostics(uri));
    expect(diagnostics).toHaveLength(1);

    const [fixAll] = await codeActions(client, uri, [], ['source.fixAll']);
    expect(fixAll.kind).toBe('source.fixAll.fencelint');
    // Suggestions may change behaviour: by default fix-all leaves them to the user.
    expect(applyTextEdits(BUGGY_SAVE_WITH_TOKEN, fixAll.edit!.changes![uri])).toBe(BUGGY_SAVE_WITH_TOKEN);

    await client.changeSettings({ fixAll: { includeSuggestions: true } });
    const [withSuggestions] = await codeActions(client, uri, [], ['source.fixAll.fencelint']);
    const preferred = (await codeActions(client, uri, diagnostics)).find((a) => a.isPreferred)!;
    const suggested = applyTextEdits(BUGGY_SAVE_WITH_TOKEN, preferred.edit!.changes![uri]);
    expect(suggested).not.toBe(BUGGY_SAVE_WITH_TOKEN);
    // Fix-all applies the preferred suggestion, then the ones the fixed text leads to (the stale-result check).
    const fixedAll = applyTextEdits(BUGGY_SAVE_WITH_TOKEN, withSuggestions.edit!.changes![uri]);
    const fencedStatement = suggested.split('\n').find((l) => l.includes('fence_token <'))!.trim().replace(/^await /, '');
    expect(fixedAll).toContain(fencedStatement);
    expect(fixedAll).toMatch(/rowCount === 0/);

    const docs = (await codeActions(client, uri, diagnostics)).find((a) => a.title === `Show documentation for ${RULE_ID}`)!;
    await client.connection.sendRequest('workspace/executeCommand', docs.command);
    expect(client.shownDocuments).toEqual([diagnostics[0].codeDescription!.href]);
  });
});

describe('fencelint language server over node IPC', () => {
  it('initializes and pushes the finding', async () => {
    const client = await start({ transport: 'node-ipc', pull: false });
    const uri = fileUri('ipc/save.ts');
    await client.open(uri, BUGGY_SAVE);
    const diagnostics = findings(await client.diagnostics(uri));
    expect(diagnostics).toHaveLength(1);
    expectFencelintDiagnostic(diagnostics[0]);
  });
});

describe('the bundle on its own', () => {
  it('runs from a folder with no node_modules, over a socket', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'fencelint-ls-'));
    try {
      for (const file of ['server.mjs', 'libpg-query.wasm']) copyFileSync(path.join(path.dirname(SERVER_BUNDLE), file), path.join(folder, file));
      const client = await start({ transport: 'socket', pull: true, serverPath: path.join(folder, 'server.mjs'), cwd: folder });
      const uri = fileUri('standalone/save.ts');
      await client.open(uri, BUGGY_SAVE);
      const diagnostics = findings(await client.diagnostics(uri));
      expect(diagnostics).toHaveLength(1);
      expectFencelintDiagnostic(diagnostics[0]);
      await client.stop();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
