import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic, Hover } from 'vscode-languageserver-protocol/node';
import { BUGGY_SAVE, RULE_ID } from './buggy-code.js';
import { fileUri, TestClient, type ClientOptions } from './lsp-client.js';

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

/** A service module of `copies` unfenced saves, each beside ordinary validation code: over 256 KB. */
const COPIES = 360;
function largeService(): string {
  const parts = [`import Redlock from 'redlock';\nimport { Pool } from 'pg';\nconst pool = new Pool();\nconst redlock = new Redlock([]);\n`];
  for (let i = 0; i < COPIES; i++) {
    parts.push(`
export function checkInput${i}(input: { key: string; value: string }): string[] {
  const problems: string[] = [];
  if (input.key.length === 0) problems.push('key ${i} is empty');
  if (input.key.length > 128) problems.push('key ${i} is longer than 128 characters');
  if (input.value.length > 10_000) problems.push('value ${i} is longer than 10,000 characters');
  if (/\\s/.test(input.key)) problems.push('key ${i} contains white space');
  return problems;
}

export async function save${i}(key: string, value: string) {
  const lock = await redlock.acquire([\`lock:${i}:\${key}\`], 5000);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally { await lock.release(); }
}
`);
  }
  return parts.join('');
}
const LARGE = largeService();
const FIRST_WRITE_LINE = LARGE.split('\n').findIndex((l) => l.includes('UPDATE resource_state'));

function codeActions(client: TestClient, uri: string, diagnostics: Diagnostic[]): Promise<CodeAction[]> {
  return client.connection.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: diagnostics[0].range, context: { diagnostics } });
}

describe('large documents are linted on a worker thread', () => {
  it('is larger than the worker threshold', () => {
    expect(Buffer.byteLength(LARGE)).toBeGreaterThan(256 * 1024);
  });

  it('while a large document lints, hover, code actions and another document answer first; then its findings and quick fixes arrive', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const large = fileUri('large/service.ts');
    const small = fileUri('large/small.ts');
    await client.open(large, LARGE);
    await client.open(small, BUGGY_SAVE);
    const order: string[] = [];
    const largePull = client.diagnostics(large).then((d) => {
      order.push('large diagnostics');
      return d;
    });
    const hover: Hover | null = await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: large }, position: { line: FIRST_WRITE_LINE, character: 10 } });
    order.push('large hover');
    const smallDiagnostics = await client.diagnostics(small);
    order.push('small diagnostics');
    const smallActions = await codeActions(client, small, findings(smallDiagnostics));
    order.push('small code actions');
    const largeDiagnostics = await largePull;

    // A lint on the main thread would have held every one of these answers until it ended.
    expect(order).toEqual(['large hover', 'small diagnostics', 'small code actions', 'large diagnostics']);
    expect(hover).toBeNull();
    expect(findings(smallDiagnostics)).toHaveLength(1);
    expect(smallActions.some((a) => a.kind === 'quickfix')).toBe(true);

    // The worker's findings are the ones a lint of each save alone gives, at every copy.
    const found = findings(largeDiagnostics);
    expect(found).toHaveLength(COPIES);
    expect(found[0].range.start.line).toBe(FIRST_WRITE_LINE);
    const withoutLines = (message: Diagnostic['message']) => String(message).replace(/line \d+/g, 'line N');
    expect(withoutLines(found[0].message)).toBe(withoutLines(findings(smallDiagnostics)[0].message));
    expect(found[0].relatedInformation?.length).toBeGreaterThan(0);

    // Once linted, the large document answers hover and code actions from that result.
    const actions = await codeActions(client, large, [found[5]]);
    expect(actions.filter((a) => a.kind === 'quickfix').map((a) => a.title)).toEqual(
      (await codeActions(client, small, findings(smallDiagnostics))).filter((a) => a.kind === 'quickfix').map((a) => a.title),
    );
    const acquireLine = LARGE.split('\n').findIndex((l) => l.includes('redlock.acquire'));
    const acquireHover: Hover | null = await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: large }, position: { line: acquireLine, character: LARGE.split('\n')[acquireLine].indexOf('acquire') } });
    expect(JSON.stringify(acquireHover?.contents ?? null)).toContain('lease');
    // Fixing a large document would take several lints: no fix-all is offered for it.
    const fixAll: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: large }, range: found[0].range, context: { diagnostics: [], only: ['source.fixAll.fencelint'] },
    });
    expect(fixAll).toEqual([]);
  });

  it('by push: one report for the large document, with every finding', async () => {
    const client = await start({ transport: 'stdio', pull: false });
    const large = fileUri('large/pushed.ts');
    await client.open(large, LARGE);
    const report = await client.diagnostics(large);
    expect(findings(report)).toHaveLength(COPIES);
    // An edit to the large document is linted on the worker again.
    const version = await client.replace(large, LARGE.replace(`export async function save0(`, `export async function saveFirst(`));
    const next = await client.waitFor(() => client.pushedFor(large, version), 'the report for the edit');
    expect(findings(next.diagnostics)).toHaveLength(COPIES);
    expect(client.pushedReports(large).map((r) => r.version)).toEqual([1, version]);
  });

  it('says once, in the editor, that a document over 2 MB is not linted', async () => {
    const client = await start({ transport: 'stdio', pull: true });
    const huge = fileUri('large/huge.ts');
    await client.open(huge, BUGGY_SAVE + `// ${'x'.repeat(80)}\n`.repeat(30_000));
    expect(await client.diagnostics(huge)).toEqual([]);
    await client.replace(huge, BUGGY_SAVE + `// ${'y'.repeat(80)}\n`.repeat(30_000));
    expect(await client.diagnostics(huge)).toEqual([]);
    const notices = client.shownMessages.filter((m) => m.message.includes('huge.ts'));
    expect(notices).toEqual([{ type: 3, message: 'fencelint: huge.ts is not linted (larger than 2 MB).' }]);
  });
});
