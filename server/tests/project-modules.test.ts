import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { RULE_ID } from './buggy-code.js';
import { TestClient, type ClientOptions } from './lsp-client.js';

// A lock helper in its own module and a service that writes under it.
const HELPER_WITH_LOCK = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';

const redis = new Redis();

/** Holds \`lease:<name>\` for this worker; null when it is taken. */
export async function takeLease(name: string): Promise<string | null> {
  const holder = randomUUID();
  const ok = await redis.set(\`lease:\${name}\`, holder, 'PX', 10_000, 'NX');
  return ok === 'OK' ? holder : null;
}

export async function dropLease(name: string, holder: string): Promise<void> {
  await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, \`lease:\${name}\`, holder);
}
`;

// The same exports, but the "lease" is only a local id now: nothing is locked, nothing to fence.
const HELPER_WITHOUT_LOCK = `import { randomUUID } from 'node:crypto';

export async function takeLease(name: string): Promise<string | null> {
  return name ? randomUUID() : null;
}

export async function dropLease(name: string, holder: string): Promise<void> {
  void name;
  void holder;
}
`;

const SERVICE = `import { Pool } from 'pg';
import { dropLease, takeLease } from '../util/lease';

const pool = new Pool();

export async function renameShelf(shelfId: string, title: string): Promise<boolean> {
  const holder = await takeLease(\`shelf:\${shelfId}\`);
  if (!holder) return false;
  try {
    await pool.query('UPDATE shelves SET title = $1 WHERE id = $2', [title, shelfId]);
    return true;
  } finally {
    await dropLease(\`shelf:\${shelfId}\`, holder);
  }
}
`;

const clients: TestClient[] = [];
let root: string;
let helperFile: string;
let serviceFile: string;

async function start(options: Omit<ClientOptions, 'transport'>): Promise<TestClient> {
  const client = await TestClient.start({ transport: 'stdio', ...options });
  clients.push(client);
  return client;
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'fencelint-lsp-project-'));
  mkdirSync(path.join(root, 'src', 'util'), { recursive: true });
  mkdirSync(path.join(root, 'src', 'shelves'), { recursive: true });
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node10', strict: true } }));
  helperFile = path.join(root, 'src', 'util', 'lease.ts');
  serviceFile = path.join(root, 'src', 'shelves', 'rename.ts');
  writeFileSync(helperFile, HELPER_WITH_LOCK);
  writeFileSync(serviceFile, SERVICE);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  rmSync(root, { recursive: true, force: true });
});

const uriOf = (file: string) => pathToFileURL(file).href;
const findings = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.code === RULE_ID);
/** The line (0-based) of the service's write. */
const WRITE_LINE = SERVICE.split('\n').findIndex((l) => l.includes('UPDATE shelves'));

describe('a helper module changed in the editor refreshes the files that import it', () => {
  it('by pull: an unsaved edit, a save, and closing the edit unsaved each send a refresh, and the next pull shows the new findings', async () => {
    const client = await start({ pull: true });
    const service = uriOf(serviceFile);
    const helper = uriOf(helperFile);
    await client.open(service, SERVICE);
    const first = findings(await client.diagnostics(service));
    expect(first.map((d) => d.range.start.line)).toEqual([WRITE_LINE]);
    // The acquire lives in the other module, and the message names it.
    expect(first[0].message).toContain('lease.ts:');

    // Edited, not saved: the service is linted against the editor's text of the helper.
    await client.open(helper, HELPER_WITH_LOCK);
    await client.diagnostics(helper);
    let refreshes = client.refreshes;
    await client.replace(helper, HELPER_WITHOUT_LOCK);
    await client.waitFor(() => (client.refreshes > refreshes ? true : undefined), 'a diagnostic refresh after the helper edit');
    expect(findings(await client.diagnostics(service))).toEqual([]);

    // Closed without saving: the disk still takes the lease, so the finding is back.
    refreshes = client.refreshes;
    await client.close(helper);
    await client.waitFor(() => (client.refreshes > refreshes ? true : undefined), 'a diagnostic refresh after closing the helper');
    expect(findings(await client.diagnostics(service)).map((d) => d.range.start.line)).toEqual([WRITE_LINE]);

    // Opened, edited and saved: the save refreshes at once.
    await client.open(helper, HELPER_WITH_LOCK);
    await client.replace(helper, HELPER_WITHOUT_LOCK);
    writeFileSync(helperFile, HELPER_WITHOUT_LOCK);
    refreshes = client.refreshes;
    await client.save(helper);
    await client.waitFor(() => (client.refreshes > refreshes ? true : undefined), 'a diagnostic refresh after the save');
    expect(findings(await client.diagnostics(service))).toEqual([]);
    // The server watches modules and the files that steer resolution.
    const watchers = client.registrations.find((r) => r.method === 'workspace/didChangeWatchedFiles');
    expect(JSON.stringify(watchers?.registerOptions)).toContain('tsconfig');
  });

  it('a large dependent, linted on the worker thread, follows the unsaved edit of its helper too', async () => {
    const client = await start({ pull: true });
    // Past the size at which the server lints on its worker thread.
    const largeService = SERVICE + `/*\n${' * notes on shelf renames\n'.repeat(12_000)} */\n`;
    expect(Buffer.byteLength(largeService)).toBeGreaterThan(256 * 1024);
    const service = uriOf(serviceFile);
    const helper = uriOf(helperFile);
    await client.open(service, largeService);
    const first = findings(await client.diagnostics(service));
    expect(first.map((d) => d.range.start.line)).toEqual([WRITE_LINE]);
    expect(first[0].message).toContain('lease.ts:');

    await client.open(helper, HELPER_WITH_LOCK);
    await client.diagnostics(helper);
    const refreshes = client.refreshes;
    await client.replace(helper, HELPER_WITHOUT_LOCK);
    await client.waitFor(() => (client.refreshes > refreshes ? true : undefined), 'a diagnostic refresh after the helper edit');
    expect(findings(await client.diagnostics(service))).toEqual([]);
  });

  it('by push: a change on disk to a module no editor holds republishes the dependent file', async () => {
    const client = await start({ pull: false });
    const service = uriOf(serviceFile);
    await client.open(service, SERVICE);
    expect(findings(await client.diagnostics(service))).toHaveLength(1);
    const last = () => findings(client.pushedReports(service).at(-1)?.diagnostics ?? []);

    writeFileSync(helperFile, HELPER_WITHOUT_LOCK);
    await client.filesChanged([{ uri: uriOf(helperFile), type: 2 }]);
    await client.waitFor(() => (last().length === 0 ? true : undefined), 'a push for the service without the finding');

    // And back: the finding returns with the lock.
    writeFileSync(helperFile, HELPER_WITH_LOCK);
    await client.filesChanged([{ uri: uriOf(helperFile), type: 2 }]);
    await client.waitFor(() => (last().length === 1 ? true : undefined), 'a push for the service with the finding again');
    expect(last().map((d) => d.range.start.line)).toEqual([WRITE_LINE]);
  });

  it('by push, with run: onSave: edits to the helper wait for its save, then the dependent is republished', async () => {
    const client = await start({ pull: false, settings: { run: 'onSave' } });
    const service = uriOf(serviceFile);
    const helper = uriOf(helperFile);
    await client.open(service, SERVICE);
    expect(findings(await client.diagnostics(service))).toHaveLength(1);
    await client.open(helper, HELPER_WITH_LOCK);
    await client.diagnostics(helper);
    const pushed = client.pushedReports(service).length;

    await client.replace(helper, HELPER_WITHOUT_LOCK);
    // Past the typing pause: an onSave document is not relinted for an unsaved edit.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(client.pushedReports(service)).toHaveLength(pushed);

    writeFileSync(helperFile, HELPER_WITHOUT_LOCK);
    await client.save(helper);
    await client.waitFor(() => (findings(client.pushedReports(service).at(-1)!.diagnostics).length === 0 ? true : undefined), 'a push without the finding after the save');
  });

  it('leaves files that do not import the module alone, and a module that does not change sends nothing', async () => {
    const client = await start({ pull: false });
    const service = uriOf(serviceFile);
    const helper = uriOf(helperFile);
    const otherFile = path.join(root, 'src', 'shelves', 'other.ts');
    const OTHER = SERVICE.replace("'../util/lease'", "'./local-lease'").replace('renameShelf', 'moveShelf');
    writeFileSync(path.join(root, 'src', 'shelves', 'local-lease.ts'), HELPER_WITH_LOCK);
    writeFileSync(otherFile, OTHER);
    const other = uriOf(otherFile);
    await client.open(service, SERVICE);
    await client.open(other, OTHER);
    expect(findings(await client.diagnostics(service))).toHaveLength(1);
    expect(findings(await client.diagnostics(other))).toHaveLength(1);
    await client.open(helper, HELPER_WITH_LOCK);
    await client.diagnostics(helper);
    const servicePushes = client.pushedReports(service).length;
    const otherPushes = client.pushedReports(other).length;

    // Typed and typed back to the same text: nothing to refresh.
    await client.replace(helper, HELPER_WITH_LOCK.replace('10_000', '10_001'));
    await client.replace(helper, HELPER_WITH_LOCK);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(client.pushedReports(service)).toHaveLength(servicePushes);

    await client.replace(helper, HELPER_WITHOUT_LOCK);
    await client.waitFor(() => (findings(client.pushedReports(service).at(-1)!.diagnostics).length === 0 ? true : undefined), 'a push without the finding for the dependent');
    expect(client.pushedReports(other)).toHaveLength(otherPushes);
  });
});

describe('a file whose imports lead back to it', () => {
  // ledger.ts writes in `post`; audit.ts imports `post` back and calls it from `recordAudit`;
  // ledger.ts runs `recordAudit` under its lease. An edit of `post` alone changes what
  // `recordAudit` does, so the unchanged `settle` is judged again, as a fresh lint would.
  const LEDGER = (writes: boolean) => `import { Pool } from 'pg';
import { dropLease, takeLease } from '../util/lease';
import { recordAudit } from './audit';

const pool = new Pool();

export async function post(id: string): Promise<void> {
  ${writes ? "await pool.query('UPDATE ledger SET posted = true WHERE id = $1', [id]);" : "await pool.query('SELECT posted FROM ledger WHERE id = $1', [id]);"}
}

export async function settle(id: string): Promise<void> {
  const holder = await takeLease(\`ledger:\${id}\`);
  if (!holder) return;
  try {
    await recordAudit(id);
  } finally {
    await dropLease(\`ledger:\${id}\`, holder);
  }
}
`;
  const AUDIT = `import { post } from './ledger';

export async function recordAudit(id: string): Promise<void> {
  await post(id);
}
`;

  it('an edit of the file itself is seen through the module that imports it back', async () => {
    const ledgerFile = path.join(root, 'src', 'shelves', 'ledger.ts');
    writeFileSync(ledgerFile, LEDGER(true));
    writeFileSync(path.join(root, 'src', 'shelves', 'audit.ts'), AUDIT);
    const callLine = LEDGER(true).split('\n').findIndex((l) => l.includes('await recordAudit'));
    const client = await start({ pull: true });
    const ledger = uriOf(ledgerFile);
    await client.open(ledger, LEDGER(true));
    expect(findings(await client.diagnostics(ledger)).map((d) => d.range.start.line)).toEqual([callLine]);
    // A second lint, so the server has learnt what the file's last lint reached.
    await client.replace(ledger, LEDGER(true) + '\n');
    expect(findings(await client.diagnostics(ledger)).map((d) => d.range.start.line)).toEqual([callLine]);

    await client.replace(ledger, LEDGER(false));
    expect(findings(await client.diagnostics(ledger))).toEqual([]);
    await client.replace(ledger, LEDGER(true));
    expect(findings(await client.diagnostics(ledger)).map((d) => d.range.start.line)).toEqual([callLine]);
  });
});
