import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol/node';
import { BUGGY_SAVE, BUGGY_SAVE_WITH_TOKEN, RULE_ID } from './buggy-code.js';
import { applyTextEdits, fileUri, TestClient, type ClientOptions } from './lsp-client.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoNodeModules = path.resolve(here, '..', '..', 'node_modules');
const THROWING_PLUGIN = path.join(here, 'fixtures', 'throwing-plugin.mjs');

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

/** A workspace whose own eslint.config.js turns fencelint's rule off. */
function workspaceTurningTheRuleOff(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'fencelint-ls-ws-'));
  folders.push(folder);
  mkdirSync(path.join(folder, 'src'));
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'ws', private: true, type: 'module' }));
  writeFileSync(
    path.join(folder, 'eslint.config.js'),
    [
      "import fencelint from 'eslint-plugin-fencelint';",
      'export default [',
      '  fencelint.configs.recommended,',
      `  { files: ['**/*.ts'], rules: { '${RULE_ID}': 'off' } },`,
      '];',
      '',
    ].join('\n'),
  );
  symlinkSync(repoNodeModules, path.join(folder, 'node_modules'), 'dir');
  writeFileSync(path.join(folder, 'src', 'save.ts'), BUGGY_SAVE);
  return folder;
}

describe('settings that change what is linted', () => {
  it('with run: onSave, keeps the report of the last save until the next save', async () => {
    const client = await start({ transport: 'stdio', pull: true, settings: { run: 'onSave' } });
    const uri = fileUri('on-save/save.ts');
    await client.open(uri, BUGGY_SAVE);
    expect(findings(await client.diagnostics(uri))).toHaveLength(1);

    const disabled = BUGGY_SAVE.replace("    await pool.query('UPDATE", `    // eslint-disable-next-line ${RULE_ID}\n    await pool.query('UPDATE`);
    await client.replace(uri, disabled);
    expect(findings(await client.diagnostics(uri))).toHaveLength(1);

    await client.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
    expect(findings(await client.diagnostics(uri))).toEqual([]);
  });

  it("reads fencelint's options from the workspace's eslint.config.js only when the workspace is trusted", async () => {
    const folder = workspaceTurningTheRuleOff();
    const uri = pathToFileURL(path.join(folder, 'src', 'save.ts')).href;

    const untrusted = await start({ transport: 'stdio', pull: true, settings: { useWorkspaceConfig: true }, initializationOptions: { trusted: false } });
    await untrusted.open(uri, BUGGY_SAVE);
    expect(findings(await untrusted.diagnostics(uri))).toHaveLength(1);
    expect(untrusted.logs.some((l) => l.includes('not trusted'))).toBe(true);

    const trusted = await start({ transport: 'stdio', pull: true, settings: { useWorkspaceConfig: true }, initializationOptions: { trusted: true } });
    await trusted.open(uri, BUGGY_SAVE);
    expect(findings(await trusted.diagnostics(uri))).toEqual([]);

    // Editor settings win over the workspace's config.
    await trusted.changeSettings({ useWorkspaceConfig: true, rules: { 'require-fence-condition': 'warn' } });
    expect(findings(await trusted.diagnostics(uri))).toHaveLength(1);
  });

  it("honours the workspace config's ignores and files: a file eslint does not lint gets no diagnostics", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'fencelint-ls-ignores-'));
    folders.push(folder);
    writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'ws', private: true, type: 'module' }));
    writeFileSync(
      path.join(folder, 'eslint.config.js'),
      [
        "import fencelint from 'eslint-plugin-fencelint';",
        'export default [',
        "  { ignores: ['src/generated/**'] },",
        "  { ...fencelint.configs.recommended, files: ['src/**/*.ts'] },",
        '];',
        '',
      ].join('\n'),
    );
    symlinkSync(repoNodeModules, path.join(folder, 'node_modules'), 'dir');
    const client = await start({ transport: 'stdio', pull: true, settings: { useWorkspaceConfig: true }, initializationOptions: { trusted: true } });
    const reported: Record<string, number> = {};
    for (const file of ['src/save.ts', 'src/generated/save.ts', 'scripts/save.ts']) {
      mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      writeFileSync(path.join(folder, file), BUGGY_SAVE);
      const uri = pathToFileURL(path.join(folder, file)).href;
      await client.open(uri, BUGGY_SAVE);
      reported[file] = findings(await client.diagnostics(uri)).length;
    }
    expect(reported).toEqual({ 'src/save.ts': 1, 'src/generated/save.ts': 0, 'scripts/save.ts': 0 });
    expect(client.logs.filter((l) => l.includes("the workspace's ESLint config ignores it"))).toHaveLength(2);
  });

  it('passes fencelint.tokenColumn to the rules: the quick fix compares and stores that column', async () => {
    const client = await start({ transport: 'stdio', pull: true, settings: { tokenColumn: 'lease_generation' } });
    const uri = fileUri('token-column/save.ts');
    await client.open(uri, BUGGY_SAVE_WITH_TOKEN);
    const diagnostics = findings(await client.diagnostics(uri));
    expect(diagnostics).toHaveLength(1);
    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostics[0].range,
      context: { diagnostics },
    });
    const fixed = applyTextEdits(BUGGY_SAVE_WITH_TOKEN, actions.find((a) => a.isPreferred)!.edit!.changes![uri]);
    expect(fixed).toContain('lease_generation < $3');
    expect(fixed).not.toContain('fence_token');
  });

  it('adds the lock models of fencelint.models: a lease from an unknown library becomes a lock', async () => {
    const code = [
      "import { Pool } from 'pg';",
      "import { LeaseClient } from '@acme/lease';",
      'const pool = new Pool();',
      'const leases = new LeaseClient();',
      'export async function save(key: string, value: string) {',
      '  const lease = await leases.take(key);',
      "  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);",
      '  await lease.release();',
      '}',
      '',
    ].join('\n');
    const client = await start({ transport: 'stdio', pull: true });
    const uri = fileUri('models/save.ts');
    await client.open(uri, code);
    expect(findings(await client.diagnostics(uri))).toEqual([]);

    await client.changeSettings({ models: { locks: [{ id: 'acme-lease', packages: ['@acme/lease'], authorityExports: ['LeaseClient'], acquire: ['take'] }] } });
    const diagnostics = findings(await client.diagnostics(uri));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].range.start.line).toBe(6);
  });

  it('adds the sinks and token sources of fencelint.models: a project\'s own API client is reported and its quick fix adds the declared header', async () => {
    const code = [
      "import Redlock from 'redlock';",
      "import Redis from 'ioredis';",
      "import { api } from './api';",
      "import { leases } from './leases';",
      'const redlock = new Redlock([new Redis()]);',
      'export async function save(id: string, balance: number) {',
      "  const lock = await redlock.acquire(['account:' + id], 5000);",
      "  const token = await leases.next('account:' + id);",
      '  await api.put(`/accounts/${id}`, { balance });',
      '  await lock.release();',
      '}',
      '',
    ].join('\n');
    const models = {
      sinks: [
        {
          id: 'acme-api',
          family: 'object',
          receivers: ['api'],
          writes: [{ method: 'put', kind: 'replace', values: { arg: 1 }, filter: { arg: 2, property: ['headers'] } }],
          fence: { compare: "'If-Match': String({token})", store: '' },
        },
      ],
      tokenSources: [{ id: 'acme-leases', calls: ['leases.next'] }],
    };
    const client = await start({ transport: 'stdio', pull: true, settings: { models } });
    const uri = fileUri('own-sinks/save.ts');
    await client.open(uri, code);
    const diagnostics = findings(await client.diagnostics(uri));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].range.start.line).toBe(8);
    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostics[0].range,
      context: { diagnostics },
    });
    const fix = actions.find((a) => a.isPreferred) ?? actions.find((a) => a.edit?.changes?.[uri]);
    const fixed = applyTextEdits(code, fix!.edit!.changes![uri]);
    expect(fixed).toContain("await api.put(`/accounts/${id}`, { balance }, { headers: { 'If-Match': String(token) } });");
    await client.replace(uri, fixed);
    expect(findings(await client.diagnostics(uri))).toEqual([]);

    // A wrong entry is said once in the editor's log and not used; the lint still runs.
    await client.changeSettings({ models: { sinks: [{ ...models.sinks[0], writes: [{ method: 'put', kind: 'overwrite' }] }], tokenSources: models.tokenSources } });
    await client.replace(uri, code);
    await client.diagnostics(uri);
    expect(client.logs.filter((l) => l.includes('the entry `sinks[0]` (`acme-api`) is not used'))).toHaveLength(1);
  });

  it('checks fencelint.models against the settings schema: one message for a misspelt key, and the valid lock still counts', async () => {
    const client = await start({
      transport: 'stdio',
      pull: true,
      settings: { models: { tokenColum: 'epoch', locks: [{ id: 'acme-lease', packages: ['@acme/lease'], authorityExports: ['LeaseClient'], acquire: ['take'], relase: ['free'] }] } },
    });
    const code = [
      "import { Pool } from 'pg';",
      "import { LeaseClient } from '@acme/lease';",
      'const pool = new Pool();',
      'const leases = new LeaseClient();',
      'export async function save(key: string, value: string) {',
      '  const lease = await leases.take(key);',
      "  await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);",
      '  await lease.release();',
      '}',
      '',
    ].join('\n');
    for (const name of ['a', 'b']) {
      const uri = fileUri(`bad-models/${name}.ts`);
      await client.open(uri, code);
      expect(findings(await client.diagnostics(uri))).toHaveLength(1);
    }
    const said = client.logs.filter((l) => l.includes('settings.fencelint'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('`tokenColum` is not a setting (did you mean `tokenColumn`?)');
    expect(said[0]).toContain('`locks[0].relase` is not a setting (did you mean `release`?)');
  });

  it('drops a misspelt rule name in fencelint.rules with one warning; the other entries and every diagnostic stay', async () => {
    const client = await start({ transport: 'stdio', pull: true, settings: { rules: { 'require-fence-conditon': 'off', 'fencelint/no-clock-tokn': 'warn' } } });
    for (const name of ['a', 'b']) {
      const uri = fileUri(`misspelt-rule/${name}.ts`);
      await client.open(uri, BUGGY_SAVE);
      expect(findings(await client.diagnostics(uri))).toHaveLength(1);
    }
    const said = client.logs.filter((l) => l.includes('has no rule'));
    expect(said).toEqual([
      'fencelint: fencelint.rules: fencelint has no rule `require-fence-conditon` (did you mean `require-fence-condition`?); that entry is ignored',
      'fencelint: fencelint.rules: fencelint has no rule `no-clock-tokn` (did you mean `no-clock-token`?); that entry is ignored',
    ]);
  });

  it('ignores a setting of the wrong type with one log line and keeps linting', async () => {
    const client = await start({ transport: 'stdio', pull: true, settings: { run: 'sometimes', rules: { 'require-fence-condition': 'loud' } } });
    const uri = fileUri('bad-settings/save.ts');
    await client.open(uri, BUGGY_SAVE);
    expect(findings(await client.diagnostics(uri))).toHaveLength(1);
    expect(client.logs.filter((l) => l.includes('fencelint.run'))).toHaveLength(1);
    expect(client.logs.filter((l) => l.includes('fencelint.rules.require-fence-condition'))).toHaveLength(1);
  });
});

describe('fencelint/status', () => {
  it('reports linting then idle with the lint time, and error when a rule throws', async () => {
    const client = await start({ transport: 'stdio', pull: true, env: { FENCELINT_LS_EXTRA_PLUGINS: THROWING_PLUGIN } });
    const statuses: { state: string; uri: string; durationMs?: number; message?: string }[] = [];
    client.connection.onNotification('fencelint/status', (params: (typeof statuses)[number]) => {
      statuses.push(params);
    });

    const healthy = fileUri('status/healthy.ts');
    await client.open(healthy, BUGGY_SAVE);
    await client.diagnostics(healthy);
    const forHealthy = statuses.filter((s) => s.uri === healthy);
    expect(forHealthy.map((s) => s.state)).toEqual(['linting', 'idle']);
    expect(typeof forHealthy[1].durationMs).toBe('number');

    const broken = fileUri('status/broken.ts');
    await client.open(broken, `${BUGGY_SAVE}// THROW_IN_RULE\n`);
    await client.diagnostics(broken);
    const forBroken = statuses.filter((s) => s.uri === broken);
    expect(forBroken.map((s) => s.state)).toEqual(['linting', 'error']);
    expect(forBroken[1].message).toContain('on-marker failed on purpose');
  });
});
