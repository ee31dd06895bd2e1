/**
 * The `fencelint` command, run as a user runs it (a child process on the built bin) in
 * projects made for the test: `check` in each format, SARIF checked against the official
 * SARIF 2.1.0 schema, with code flows across files; `fix --suggestions` with and without
 * `--dry-run`; wrong settings, bad files and wrong arguments.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import draft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const bin = path.join(repo, 'rules/dist/cli/bin.js');
const pluginUrl = new URL('../../dist/index.js', import.meta.url).href;

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fencelint-cli-'));
  folders.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function run(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 2) : 0, stdout, stderr });
    });
  });
}

/** A write under a lease whose authority hands out a token: the rule can suggest the fence. */
const WITH_TOKEN = `import { Pool } from 'pg';
import { LeaseAuthority } from './lease-authority';
const pool = new Pool();
const authority = new LeaseAuthority(pool);
export async function save(key: string, value: string) {
  const lease = await authority.acquire(key);
  const token = lease.fenceToken;
  try {
    const result = await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
    if (result.rowCount === 0) throw new Error('stale');
  } finally { await authority.release(lease); }
}
`;

const REDLOCK = `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally { await lock.release(); }
}
`;

function sarifValidator() {
  const ajv = new draft04.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(path.join(here, 'sarif-schema-2.1.0.json'), 'utf8')));
}

describe('fencelint check', () => {
  it('uses the bundled recommended config when the project has none, and exits 1 on a finding', async () => {
    const dir = project({ 'src/save.ts': REDLOCK, 'src/clean.ts': 'export const x = 1;\n' });
    const { code, stdout, stderr } = await run(dir, 'check');
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(stdout).toContain('src/save.ts');
    expect(stdout).toMatch(/8:11 +error +This UPDATE under `redlock.acquire` \(line 6\) compares no fence token.*fencelint\/require-fence-condition/);
    expect(stdout).toContain('1 problem (1 error, 0 warnings)');
  });

  it('uses the project config: its ignores and rule settings hold, and other plugins\' rules do not run', async () => {
    const dir = project({
      'eslint.config.mjs': `import fencelint from ${JSON.stringify(pluginUrl)};
export default [
  { ignores: ['generated/**'] },
  { files: ['**/*.js'], rules: { 'no-unused-vars': 'error' } },
  fencelint.configs.recommended,
  { files: ['legacy/**'], rules: { 'fencelint/require-fence-condition': 'off' } },
];
`,
      'src/save.js': REDLOCK.replace(/: string/g, ''),
      'legacy/save.js': REDLOCK.replace(/: string/g, ''),
      'generated/save.js': REDLOCK.replace(/: string/g, ''),
      'src/unused.js': 'const unused = 1;\n',
    });
    const { code, stdout } = await run(dir, 'check', '--format', 'json');
    expect(code).toBe(1);
    const results = JSON.parse(stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string }> }>;
    const reported = results.filter((r) => r.messages.length > 0).map((r) => [path.relative(dir, r.filePath), r.messages.map((m) => m.ruleId)]);
    expect(reported).toEqual([['src/save.js', ['fencelint/require-fence-condition']]]);
    expect(results.map((r) => path.relative(dir, r.filePath))).not.toContain('generated/save.js');
  });

  it('says so when the project config turns on no fencelint rule', async () => {
    const dir = project({ 'eslint.config.mjs': 'export default [{ rules: { semi: "error" } }];\n', 'save.js': REDLOCK.replace(/: string/g, '') });
    const { code, stderr } = await run(dir, 'check');
    expect(code).toBe(0);
    expect(stderr).toContain('eslint.config.mjs turns on no fencelint rule for save.js and the other files: add fencelint.configs.recommended to it');
  });

  it('writes SARIF 2.1.0 that the official schema accepts, with rule help and a code flow across files', async () => {
    const source = path.join(repo, 'fixtures/projects/lock-helpers-utils/buggy');
    const dir = project({});
    cpSync(source, dir, { recursive: true });
    writeFileSync(path.join(dir, 'broken.ts'), 'export function broken( {\n');
    const { code, stderr } = await run(dir, 'check', '-f', 'sarif', '-o', 'fencelint.sarif');
    expect(stderr).toBe('');
    expect(code).toBe(1);
    const log = JSON.parse(readFileSync(path.join(dir, 'fencelint.sarif'), 'utf8'));
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The schema is the real thing: a level SARIF does not know, or a flow with no location, fails it.
    expect(validate({ ...log, runs: [{ ...log.runs[0], results: [{ ...log.runs[0].results[0], level: 'fatal' }] }] })).toBe(false);
    expect(validate({ ...log, runs: [{ ...log.runs[0], results: [{ ...log.runs[0].results[0], codeFlows: [{ threadFlows: [{ locations: [] }] }] }] }] })).toBe(false);

    const [sarifRun] = log.runs;
    const rule = sarifRun.tool.driver.rules.find((r: { id: string }) => r.id === 'fencelint/require-fence-condition');
    expect(rule.fullDescription.text).toMatch(/late write/);
    expect(rule.help.markdown).toContain('```sql');
    expect(rule.helpUri).toMatch(/^https:\/\/.+require-fence-condition/);
    expect(rule.properties['security-severity']).toBe('7.5');
    expect(rule.properties.tags).toContain('security');

    const invoices = sarifRun.results.find((r: { locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }) =>
      r.locations[0].physicalLocation.artifactLocation.uri === 'src/services/invoices.ts');
    expect(invoices.ruleId).toBe('fencelint/require-fence-condition');
    const steps = invoices.codeFlows[0].threadFlows[0].locations.map((l: { location: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } }; message: { text: string } } }) =>
      `${l.location.physicalLocation.artifactLocation.uri}:${l.location.physicalLocation.region.startLine} ${l.location.message.text}`);
    expect(steps[0]).toMatch(/^src\/services\/invoices\.ts:\d+ /);
    expect(steps.some((s: string) => s.startsWith('src/utils/lock.ts:') && s.includes('lock taken'))).toBe(true);
    expect(steps.at(-1)).toBe(`src/services/invoices.ts:${invoices.locations[0].physicalLocation.region.startLine} the write`);
    expect(invoices.relatedLocations[0].physicalLocation.artifactLocation.uri).toBe('src/services/invoices.ts');
    expect(invoices.relatedLocations[0].message.text).toMatch(/^the lock: /);

    // A file that does not parse is a notification, not a finding and not a crash.
    const notes = sarifRun.invocations[0].toolExecutionNotifications;
    expect(notes).toHaveLength(1);
    expect(notes[0].locations[0].physicalLocation.artifactLocation.uri).toBe('broken.ts');
    expect(sarifRun.results.every((r: { ruleId: string }) => r.ruleId.startsWith('fencelint/'))).toBe(true);
  });

  it('a read-then-update finding points at the separate check', async () => {
    const dir = project({
      'src/renew.ts': `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);
export async function save(key: string, value: string) {
  const lock = await redlock.acquire([key], 5000);
  if (lock.expiration > Date.now()) {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  }
  await lock.release();
}
`,
    });
    const { stdout } = await run(dir, 'check', '-f', 'sarif', '--rule', 'no-check-then-write');
    const log = JSON.parse(stdout);
    expect(sarifValidator()(log)).toBe(true);
    const [result] = log.runs[0].results;
    expect(result.ruleId).toBe('fencelint/no-check-then-write');
    expect(result.relatedLocations.map((r: { message: { text: string }; physicalLocation: { region: { startLine: number } } }) => [r.message.text, r.physicalLocation.region.startLine]))
      .toContainEqual(['the separate check', 7]);
  });

  it('names wrong settings once, in the report and in SARIF', async () => {
    const dir = project({
      'eslint.config.mjs': `import fencelint from ${JSON.stringify(pluginUrl)};
export default [{ ...fencelint.configs.recommended, settings: { fencelint: { tokenColum: 'epoch' } } }];
`,
      'a.js': REDLOCK.replace(/: string/g, ''),
      'b.js': REDLOCK.replace(/: string/g, ''),
    });
    const stylish = await run(dir, 'check');
    expect(stylish.stderr.match(/`tokenColum`/g)).toHaveLength(1);
    expect(stylish.stderr).toContain('`tokenColum` is not a setting (did you mean `tokenColumn`?)');
    const sarif = await run(dir, 'check', '-f', 'sarif');
    const notes = JSON.parse(sarif.stdout).runs[0].invocations[0].toolConfigurationNotifications;
    expect(notes).toEqual([{ level: 'warning', message: { text: 'settings.fencelint: `tokenColum` is not a setting (did you mean `tokenColumn`?)' } }]);
  });

  it('wrong arguments exit 2 with a message, never a stack', async () => {
    const dir = project({ 'a.ts': REDLOCK });
    for (const [args, text] of [
      [['check', '--format', 'xml'], 'unknown format xml'],
      [['check', '--rule', 'require-fence-conditon'], 'unknown rule fencelint/require-fence-conditon'],
      [['check', 'missing/'], "No files matching 'missing/' were found"],
      [['lint'], 'unknown command lint'],
      [['fix'], 'pass --suggestions'],
      [['check', '--bogus'], "Unknown option '--bogus'"],
    ] as const) {
      const { code, stderr } = await run(dir, ...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).toContain(text);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('fencelint fix --suggestions', () => {
  it('--dry-run shows the diff and writes nothing; without it the file is fenced and the finding gone', async () => {
    // './lease-authority' is not there to read: the authority is judged by its shape and name.
    const dir = project({ 'src/save.ts': WITH_TOKEN });
    const dry = await run(dir, 'fix', '--suggestions', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('--- a/src/save.ts');
    expect(dry.stdout).toMatch(/^-.*UPDATE resource_state SET value = \$1 WHERE resource_key = \$2', \[value, key\]\);$/m);
    expect(dry.stdout).toMatch(/^\+.*fence_token = \$3.*fence_token < \$3', \[value, key, (token|lease\.fenceToken)\]\);$/m);
    expect(dry.stderr).toContain('would apply 1 suggestion in 1 file');
    expect(readFileSync(path.join(dir, 'src/save.ts'), 'utf8')).toBe(WITH_TOKEN);

    const applied = await run(dir, 'fix', '--suggestions', '--rule', 'require-fence-condition');
    expect(applied.stderr).toContain('applied 1 suggestion in 1 file');
    expect(readFileSync(path.join(dir, 'src/save.ts'), 'utf8')).toContain('fence_token < $3');
    const after = await run(dir, 'check');
    expect(after.stdout).toBe('');
    expect(after.code).toBe(0);
  });

  it('a finding without a token in scope has no suggestion and is said so', async () => {
    const dir = project({ 'save.ts': REDLOCK });
    const { code, stdout, stderr } = await run(dir, 'fix', '--suggestions');
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain('applied 0 suggestions in 0 files');
    expect(stderr).toContain('1 finding has no suggestion');
    expect(readFileSync(path.join(dir, 'save.ts'), 'utf8')).toBe(REDLOCK);
  });
});
