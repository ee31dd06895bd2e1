/**
 * A project's own SQL wrappers, tagged templates, write sinks, token sources and locks,
 * declared in `settings.fencelint` in the shape of the built-in catalog entries, and linted
 * through ESLint's own class with a real flat config. Each case is checked both ways: without
 * the entry nothing is known, with it the write is found, and the suggestion is what the entry
 * says the library takes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import tsParser from '@typescript-eslint/parser';
import { ESLint, Linter } from 'eslint';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import plugin from '../src/index.js';
import { catalogFor, checkSettings, onSettingsProblems, validateSettings } from '../src/core/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const RULE = 'fencelint/require-fence-condition';

async function lint(code: string, fencelint: unknown) {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tsParser as never } },
      { ...plugin.configs.recommended, settings: fencelint === undefined ? {} : { fencelint } },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(repo, 'rules/tests/own-models-case.ts') });
  return result.messages;
}

const findings = (messages: Linter.LintMessage[]) => messages.filter((m) => m.ruleId === RULE);

/** The source after the first suggestion of the first finding. */
function suggested(code: string, message: Linter.LintMessage | undefined): string | undefined {
  const fix = message?.suggestions?.[0]?.fix;
  return fix && code.slice(0, fix.range[0]) + fix.text + code.slice(fix.range[1]);
}

/** A redlock section with a token from the project's own counter service (declared below). */
const underLock = (body: string, imports = '') => `import Redlock from 'redlock';
import Redis from 'ioredis';
${imports}
const redlock = new Redlock([new Redis()]);
export async function save(accountId: string, balance: number) {
  const lock = await redlock.acquire(['account:' + accountId], 5000);
  try {
    const token = await leases.next('account:' + accountId);
${body}
  } finally {
    await lock.release();
  }
}
`;

const leasesSource = { id: 'acme-leases', calls: ['leases.next'] };

describe('a project\'s own SQL wrapper and tag', () => {
  const wrapper = { id: 'acme-db', family: 'sql', sqlMethods: ['perform'], sqlTags: ['q'], receivers: ['db'] };
  const viaMethod = underLock("    await db.perform('UPDATE accounts SET balance = $1 WHERE id = $2', [balance, accountId]);");
  const viaTag = underLock('    await q`UPDATE accounts SET balance = ${balance} WHERE id = ${accountId}`;');

  it('reads the SQL of db.perform(sql, params) once the wrapper is declared, and fences it with the declared token source', async () => {
    expect(findings(await lint(viaMethod, undefined))).toEqual([]);
    const found = findings(await lint(viaMethod, { sinks: [wrapper], tokenSources: [leasesSource] }));
    expect(found).toHaveLength(1);
    expect(found[0].line).toBe(9);
    const fixed = suggested(viaMethod, found[0]);
    expect(fixed).toContain("db.perform('UPDATE accounts SET balance = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3', [balance, accountId, token])");
    expect(findings(await lint(fixed!, { sinks: [wrapper], tokenSources: [leasesSource] }))).toEqual([]);
  });

  it('reads a declared tag q`...` and inserts ${token}', async () => {
    expect(findings(await lint(viaTag, undefined))).toEqual([]);
    const found = findings(await lint(viaTag, { sinks: [wrapper], tokenSources: [leasesSource] }));
    expect(found).toHaveLength(1);
    const fixed = suggested(viaTag, found[0])!;
    expect(fixed).toContain('fence_token < ${token}');
    expect(findings(await lint(fixed, { sinks: [wrapper], tokenSources: [leasesSource] }))).toEqual([]);
  });

  it('a read through the wrapper is no write', async () => {
    const read = underLock("    await db.perform('SELECT balance FROM accounts WHERE id = $1', [accountId]);");
    expect(findings(await lint(read, { sinks: [wrapper], tokenSources: [leasesSource] }))).toEqual([]);
  });
});

describe('a project\'s own write sink', () => {
  const httpApi = {
    id: 'acme-api',
    family: 'object',
    receivers: ['api'],
    writes: [{ method: 'put', kind: 'replace', filter: { arg: 2, property: ['headers'] }, values: { arg: 1 } }],
    fence: { compare: "'If-Match': String({token})", store: '' },
  };
  const repository = {
    id: 'acme-accounts',
    family: 'object',
    receivers: ['accounts', 'this.accounts'],
    writes: [
      { method: 'save', kind: 'update', filter: { arg: 0 }, values: { arg: 1 } },
      { method: 'remove', kind: 'delete', filter: { arg: 0 } },
    ],
    fence: { compare: '{column}: { lt: {token} }', store: '{column}: {token}' },
  };

  it('api.put(url, body): reported without the precondition header; the suggestion adds the headers argument the entry names', async () => {
    const code = underLock('    await api.put(`/accounts/${accountId}`, { balance });');
    const found = findings(await lint(code, { sinks: [httpApi], tokenSources: [leasesSource] }));
    expect(found).toHaveLength(1);
    const fixed = suggested(code, found[0])!;
    expect(fixed).toContain("await api.put(`/accounts/${accountId}`, { balance }, { headers: { 'If-Match': String(token) } });");
    expect(findings(await lint(fixed, { sinks: [httpApi], tokenSources: [leasesSource] }))).toEqual([]);
  });

  it('api.put with an options object but no header: the header goes into it', async () => {
    const code = underLock('    await api.put(`/accounts/${accountId}`, { balance }, { timeout: 500 });');
    const found = findings(await lint(code, { sinks: [httpApi], tokenSources: [leasesSource] }));
    expect(found).toHaveLength(1);
    expect(suggested(code, found[0])).toContain("{ timeout: 500, headers: { 'If-Match': String(token) } }");
  });

  it('a repository method: the condition goes into the key object and the token is stored with the values', async () => {
    const code = underLock('    await accounts.save({ id: accountId }, { balance });');
    const found = findings(await lint(code, { sinks: [repository], tokenSources: [leasesSource] }));
    expect(found).toHaveLength(1);
    const fixed = suggested(code, found[0])!;
    expect(fixed).toContain('await accounts.save({ id: accountId, fenceToken: { lt: token } }, { balance, fenceToken: token });');
    expect(findings(await lint(fixed, { sinks: [repository], tokenSources: [leasesSource] }))).toEqual([]);
  });

  it('a write whose condition object is a variable cannot be judged and is not reported; other methods are no writes', async () => {
    const settings = { sinks: [repository], tokenSources: [leasesSource] };
    expect(findings(await lint(underLock('    const where = { id: accountId };\n    await accounts.save(where, { balance });'), settings))).toEqual([]);
    expect(findings(await lint(underLock('    await accounts.find({ id: accountId });'), settings))).toEqual([]);
    // A delete compares, and stores nothing.
    const removal = underLock('    await accounts.remove({ id: accountId });');
    const found = findings(await lint(removal, settings));
    expect(found).toHaveLength(1);
    expect(suggested(removal, found[0])).toContain('accounts.remove({ id: accountId, fenceToken: { lt: token } })');
  });
});

describe('a project\'s own token source', () => {
  const code = underLock("    await pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [balance, accountId]);", "import { Pool } from 'pg';\nconst pool = new Pool();");

  it('leases.next() is a token once declared: the suggestion uses it; without the entry none is offered', async () => {
    const without = findings(await lint(code, {}));
    expect(without).toHaveLength(1);
    expect(without[0].suggestions ?? []).toEqual([]);
    const found = findings(await lint(code, { tokenSources: [leasesSource] }));
    expect(found).toHaveLength(1);
    expect(suggested(code, found[0])).toContain('[balance, accountId, token]');
  });

  it('with packages, only a call on the imported object counts; tokenProperties name where the token is', async () => {
    const imported = code.replace("const lock = await redlock.acquire", "const lock = await redlock.acquire").replace("    const token = await leases.next('account:' + accountId);", "    const { seq: token } = await leases.next('account:' + accountId);");
    const withImport = imported.replace("import Redlock from 'redlock';", "import Redlock from 'redlock';\nimport { leases } from '@acme/fence';");
    const source = { id: 'acme-fence', calls: ['leases.next'], packages: ['@acme/fence'], tokenProperties: ['seq'] };
    expect(findings(await lint(withImport, { tokenSources: [source] }))[0].suggestions?.length).toBe(1);
    // The same call on something else is not that source.
    expect(findings(await lint(imported, { tokenSources: [source] }))[0].suggestions ?? []).toEqual([]);
  });
});

describe('a project\'s own lock', () => {
  const gate = { id: 'acme-gate', receivers: ['gate'], acquire: ['enter'], authorityRelease: ['leave'], tokenProperties: ['ticket'] };
  const code = `import { Pool } from 'pg';
import { gate } from './gate';
const pool = new Pool();
export async function save(accountId: string, balance: number) {
  const pass = await gate.enter('account:' + accountId);
  await pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [balance, accountId]);
  await gate.leave(pass);
  await pool.query('UPDATE accounts SET seen = now() WHERE id = $1', [accountId]);
}
`;

  it('gate.enter(key) ... gate.leave(pass): the write between is under the lock, the one after is not', async () => {
    expect(findings(await lint(code, {}))).toEqual([]);
    const found = findings(await lint(code, { locks: [gate] }));
    expect(found.map((m) => m.line)).toEqual([6]);
    expect(suggested(code, found[0])).toContain('[balance, accountId, pass.ticket]');
  });

  it('an acquire function of a package: the handle it resolves to (a tuple element here) ends the section when called', async () => {
    const entry = { id: 'acme-mutex', packages: ['@acme/mutex'], acquireFunctions: [{ name: 'hold', handleIndex: 1 }], tokenProperties: ['seq'] };
    const held = `import { Pool } from 'pg';
import { hold } from '@acme/mutex';
const pool = new Pool();
export async function save(accountId: string, balance: number) {
  const [ok, done] = await hold('account:' + accountId);
  if (!ok) return;
  await pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [balance, accountId]);
  await done();
  await pool.query('UPDATE accounts SET seen = now() WHERE id = $1', [accountId]);
}
`;
    expect(findings(await lint(held, {}))).toEqual([]);
    const found = findings(await lint(held, { locks: [entry] }));
    expect(found.map((m) => m.line)).toEqual([7]);
    expect(suggested(held, found[0])).toContain('[balance, accountId, done.seq]');
  });

  it('a method decorator of a package: the decorated method is the critical section', async () => {
    const entry = { id: 'acme-locked', packages: ['@acme/locked'], methodDecorators: ['Locked'] };
    const decorated = `import { Pool } from 'pg';
import { Locked } from '@acme/locked';
const pool = new Pool();
export class Accounts {
  @Locked('accounts')
  async save(accountId: string, balance: number) {
    await pool.query('UPDATE accounts SET balance = $1 WHERE id = $2', [balance, accountId]);
  }
  async touch(accountId: string) {
    await pool.query('UPDATE accounts SET seen = now() WHERE id = $1', [accountId]);
  }
}
`;
    expect(findings(await lint(decorated, {}))).toEqual([]);
    expect(findings(await lint(decorated, { locks: [entry] })).map((m) => m.line)).toEqual([7]);
  });
});

describe('wrong entries', () => {
  const seen: string[] = [];
  afterEach(() => {
    seen.length = 0;
    onSettingsProblems(undefined);
  });

  it('a wrong value drops the whole entry, with the entry named; an unknown key alone is named and ignored', () => {
    const check = checkSettings({
      sinks: [
        { id: 'nosql', family: 'graph' },
        { id: 'half', family: 'object', receivers: ['api'], writes: [{ method: 'put', kind: 'overwrite', filter: { arg: '2' } }] },
        { id: 'ok', family: 'sql', sqlMethods: ['perform'], recievers: ['db'] },
      ],
      tokenSources: [{ id: 'none', calls: [] }],
    });
    expect([...check.dropped.sinks]).toEqual([0, 1]);
    expect([...check.dropped.tokenSources]).toEqual([0]);
    expect(check.problems).toEqual([
      '`sinks[0].family` must be one of `sql`, `object`, not `graph`',
      '`sinks[1].writes[0].kind` must be one of `update`, `delete`, `upsert`, `replace`, not `overwrite`',
      '`sinks[1].writes[0].filter.arg` must be an integer, not a string',
      '`sinks[2].recievers` is not a setting (did you mean `receivers`?)',
      '`tokenSources[0].calls` must not be empty',
      'the entry `sinks[0]` (`nosql`) is not used',
      'the entry `sinks[1]` (`half`) is not used',
      'the entry `tokenSources[0]` (`none`) is not used',
    ]);
    expect(validateSettings({ sinks: [{ family: 'sql' }] })).toEqual(['`sinks[0]` needs `id`', 'the entry `sinks[0]` is not used']);
  });

  it('in a lint run: one warning, the bad entry is not used, the good one still is, nothing crashes', async () => {
    onSettingsProblems((message) => seen.push(message));
    const code = underLock("    await db.perform('UPDATE accounts SET balance = $1 WHERE id = $2', [balance, accountId]);");
    const settings = {
      sinks: [
        { id: 'broken', family: 'sql', sqlMethods: 'perform' },
        { id: 'acme-db', family: 'sql', sqlMethods: ['perform'] },
      ],
      tokenSources: [leasesSource],
    };
    const first = await lint(code, settings);
    await lint(code, structuredClone(settings));
    expect(findings(first)).toHaveLength(1);
    expect(first.filter((m) => m.fatal)).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('`sinks[0].sqlMethods` must be an array of strings, not a string');
    expect(seen[0]).toContain('the entry `sinks[0]` (`broken`) is not used');

    // Only the broken entry: nothing is read through it, and the run still says why.
    const onlyBroken = await lint(code, { sinks: [settings.sinks[0]], tokenSources: [leasesSource] });
    expect(findings(onlyBroken)).toEqual([]);
    expect(onlyBroken.filter((m) => m.fatal)).toEqual([]);
  });
});

describe('one catalog per configuration', () => {
  it('equal settings give the same catalog, by content; different ones do not; none is the built-in one', () => {
    const a = { sinks: [{ id: 'acme-db', family: 'sql', sqlMethods: ['perform'] }] };
    const one = catalogFor({ fencelint: a });
    expect(catalogFor({ fencelint: structuredClone(a) })).toBe(one);
    expect(catalogFor({ fencelint: JSON.parse(JSON.stringify(a)) }).key).toBe(one.key);
    expect(catalogFor({ fencelint: { sinks: [{ id: 'acme-db', family: 'sql', sqlMethods: ['run2'] }] } })).not.toBe(one);
    expect(catalogFor({}).key).toBe('');
    expect(catalogFor({ fencelint: { tokenColumn: 'epoch' } })).toBe(catalogFor(undefined));
    expect(one.sqlMethodNames.has('perform')).toBe(true);
    expect(catalogFor(undefined).sqlMethodNames.has('perform')).toBe(false);
    // The user's entry comes first; the built-in ones all stay.
    expect(one.sinks[0].id).toBe('acme-db');
    expect(one.sinks.length).toBe(catalogFor(undefined).sinks.length + 1);
  });
});

describe('through the eslint command with --concurrency', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fencelint-own-models-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every worker reads the declared sink and token source: each file is reported the same', async () => {
    const pluginUrl = new URL('../dist/index.js', import.meta.url).href;
    const settings = {
      sinks: [{ id: 'acme-db', family: 'sql', sqlMethods: ['perform'], receivers: ['db'] }],
      tokenSources: [leasesSource],
    };
    writeFileSync(
      path.join(dir, 'eslint.config.mjs'),
      `import fencelint from ${JSON.stringify(pluginUrl)};
export default [{ ...fencelint.configs.recommended, settings: { fencelint: ${JSON.stringify(settings)} } }];
`,
    );
    const code = underLock("    await db.perform('UPDATE accounts SET balance = $1 WHERE id = $2', [balance, accountId]);").replace(/: (string|number)/g, '');
    const names = ['a.js', 'b.js', 'c.js', 'd.js'];
    for (const name of names) writeFileSync(path.join(dir, name), code);
    const eslintBin = path.join(repo, 'node_modules/eslint/bin/eslint.js');
    const run = await promisify(execFile)(process.execPath, [eslintBin, '--concurrency', '2', '--format', 'json', '.'], { cwd: dir }).catch((error: { stdout: string }) => error);
    const results = (JSON.parse(run.stdout) as Array<{ filePath: string; messages: Linter.LintMessage[] }>).filter((r) => names.includes(path.basename(r.filePath)));
    expect(results.map((r) => path.basename(r.filePath)).sort()).toEqual(names);
    for (const result of results) {
      const found = findings(result.messages);
      expect(found.map((m) => m.line), result.filePath).toEqual([9]);
      expect(found[0].suggestions?.[0]?.fix.text).toContain('token');
    }
  });
});

describe('the own-client-models fixture, with the repository eslint.config.js', () => {
  const project = path.join(repo, 'fixtures/projects/own-client-models');

  it('the declared sinks are found in buggy/, and their suggestions fence them; the fenced writes then need their refusal checked', async () => {
    const eslint = new ESLint({ cwd: repo });
    const results = await eslint.lintFiles([path.join(project, 'buggy/src')]);
    const reported = results.flatMap((r) => findings(r.messages).map((m) => `${path.relative(project, r.filePath)}:${m.line}`));
    // Line 11 calls the store's function, whose write through `db.perform` is in account-store.ts.
    expect(reported.sort()).toEqual(['buggy/src/accounts/sync-balance.ts:11', 'buggy/src/accounts/sync-balance.ts:12', 'buggy/src/ledger/close-period.ts:15']);
    const call = findings(results.find((r) => r.filePath.endsWith('sync-balance.ts'))!.messages).find((m) => m.line === 11)!;
    expect(call.message).toContain('account-store.ts:5');
    for (const result of results.filter((r) => findings(r.messages).some((m) => m.suggestions?.length))) {
      let text = result.source!;
      // Apply the suggestions from the last to the first, so earlier ranges stay valid.
      for (const message of [...findings(result.messages)].reverse()) text = suggested(text, message) ?? text;
      const [after] = await eslint.lintText(text, { filePath: result.filePath });
      // What is left is the call, whose fix belongs in the store's module.
      expect(findings(after.messages).map((m) => m.line), result.filePath).toEqual(result.filePath.endsWith('sync-balance.ts') ? [11] : []);
      // The write can now be refused; the entry's `result` says what tells it, and nothing reads it yet.
      expect(after.messages.map((m) => m.ruleId)).toContain('fencelint/require-stale-check');
    }
    const fixed = await eslint.lintFiles([path.join(project, 'fixed/src')]);
    expect(fixed.flatMap((r) => r.messages)).toEqual([]);
  });
});
