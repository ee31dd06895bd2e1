import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import fencelint from 'eslint-plugin-fencelint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeRoles, ROLE_CHOICES, roleQuestions, type RoleQuestion } from '../src/runtime-check/ask-roles';
import { checkerArgs } from '../src/runtime-check/checker-args';
import { confirmWithRuntimeCheck } from '../src/runtime-check/confirm-flow';
import { checkerMissingMessage, locateChecker } from '../src/runtime-check/locate-checker';
import { parseCheckReport } from '../src/runtime-check/parse-report';
import { renderReportHtml, renderReportText, sanitizeSvg } from '../src/runtime-check/render-report';
import { CHECK_TIMEOUT_MS, CHECKER_DEADLINE_SECONDS, runChecker } from '../src/runtime-check/run-checker';

// The real checker, built by `npm run build -w rules -w checker`, installed into a temp workspace
// the way npm would (a package folder with its manifest and bin), its dist linked to the build.
const checkerRoot = join(__dirname, '../../checker');

const redlockUnfenced = `import Redlock from 'redlock';
import { Pool } from 'pg';
const pool = new Pool();
const redlock = new Redlock([]);

export async function save(key: string, value: string) {
  const lock = await redlock.acquire([\`lock:\${key}\`], 5000);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally {
    await lock.release();
  }
}
`;

const authorityUnfenced = `import { Pool } from 'pg';
import { LeaseAuthority } from './lease-authority';
const pool = new Pool();
const authority = new LeaseAuthority(pool);
export async function save(key: string, value: string) {
  const { leaseId, fenceToken } = await authority.acquire(key);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally {
    await authority.release(leaseId);
  }
}
`;

// Two parameters written alike and a revision compared but not stored: the checker cannot name
// the roles of $1, $3 and $4 from the analysis, and asks.
const reviseUnnamed = `import { Pool } from 'pg';
const pool = new Pool();

export async function revise(docId: string, body: string, editor: string, revision: number) {
  await pool.query(
    'UPDATE documents SET body = $1, edited_by = $3 WHERE id = $2 AND revision < $4',
    [body, docId, editor, revision],
  );
}
`;

/** Applies the first suggestion of require-fence-condition, as the editor's quick fix does. */
function applyFenceSuggestion(code: string): string {
  const linter = new Linter({ configType: 'flat' });
  const [message] = linter.verify(
    code,
    [{ files: ['**/*.ts'], languageOptions: { parser: tsParser }, plugins: { fencelint }, rules: { 'fencelint/require-fence-condition': 'error' } }],
    'save.ts',
  );
  const fix = message?.suggestions?.[0]?.fix;
  if (!fix) throw new Error(`no fence suggestion: ${JSON.stringify(message)}`);
  return code.slice(0, fix.range[0]) + fix.text + code.slice(fix.range[1]);
}

let workspace: string;

beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'fencelint-ext-check-'));
  const installed = join(workspace, 'node_modules/fencelint-checker');
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(installed, 'package.json'), readFileSync(join(checkerRoot, 'package.json')));
  symlinkSync(join(checkerRoot, 'dist'), join(installed, 'dist'), 'dir');
  writeFileSync(join(workspace, 'package.json'), '{ "name": "service", "private": true }\n');
  mkdirSync(join(workspace, 'src'));
});

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('locating the workspace checker', () => {
  it("finds the bin of the workspace's fencelint-checker", () => {
    expect(locateChecker(workspace)).toBe(join(workspace, 'node_modules/fencelint-checker/dist/cli.js'));
  });

  it('finds nothing in a folder without it, and says how to install it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'fencelint-ext-empty-'));
    try {
      expect(locateChecker(empty)).toBeUndefined();
      expect(checkerMissingMessage(empty)).toContain('npm install -D fencelint-checker');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('checker arguments', () => {
  it('asks for the write at a 1-based line, JSON on stdout and the SVG in a file', () => {
    expect(checkerArgs('/w/cli.js', '/w/src/a.ts', 9, '/tmp/t.svg')).toEqual(['/w/cli.js', '--at', '/w/src/a.ts:9', '--json', '--svg', '/tmp/t.svg']);
    expect(() => checkerArgs('/w/cli.js', '/w/src/a.ts', 0, '/tmp/t.svg')).toThrow(RangeError);
  });

  it('passes the roles the user named and the deadline', () => {
    expect(checkerArgs('/w/cli.js', '/w/src/a.ts', 8, '/tmp/t.svg', { roles: ['value', 'key', 'other', 'token'], timeoutSeconds: 110 })).toEqual([
      '/w/cli.js', '--at', '/w/src/a.ts:8', '--json', '--svg', '/tmp/t.svg', '--roles', 'value,key,other,token', '--timeout', '110',
    ]);
    expect(() => checkerArgs('/w/cli.js', '/w/a.ts', 8, '/t.svg', { roles: [] })).toThrow(RangeError);
    expect(() => checkerArgs('/w/cli.js', '/w/a.ts', 8, '/t.svg', { roles: ['value', 'key,token'] })).toThrow(RangeError);
    expect(() => checkerArgs('/w/cli.js', '/w/a.ts', 8, '/t.svg', { timeoutSeconds: 0 })).toThrow(RangeError);
  });

  it("gives the checker a deadline inside the editor's own limit, so the checker's message wins", () => {
    expect(CHECKER_DEADLINE_SECONDS * 1000).toBeLessThan(CHECK_TIMEOUT_MS);
    expect(CHECK_TIMEOUT_MS - CHECKER_DEADLINE_SECONDS * 1000).toBeGreaterThanOrEqual(5_000); // time to clean up and report
  });
});

const NEEDED_JSON = {
  verdict: 'bad-input',
  error: 'the write at src/revise.ts:5 binds ...',
  rolesNeeded: {
    location: 'src/revise.ts:5',
    statement: 'UPDATE documents SET body = $1, edited_by = $3\n  WHERE id = $2 AND revision < $4',
    params: [{ n: 1, text: 'body' }, { n: 2, text: 'docId', role: 'key' }, { n: 3, text: 'editor' }, { n: 4, text: 'revision' }],
  },
};

describe('asking for the roles the checker cannot name', () => {
  it('reads rolesNeeded from the report, and ignores a malformed one', () => {
    const report = parseCheckReport(JSON.stringify(NEEDED_JSON), '', 2);
    expect(report.verdict).toBe('bad-input');
    expect(report.rolesNeeded?.params.map((p) => p.role ?? '?')).toEqual(['?', 'key', '?', '?']);
    const gap = { ...NEEDED_JSON, rolesNeeded: { ...NEEDED_JSON.rolesNeeded, params: [{ n: 2, text: 'docId' }] } };
    expect(parseCheckReport(JSON.stringify(gap), '', 2).rolesNeeded).toBeUndefined();
    const none = { ...NEEDED_JSON, rolesNeeded: { location: 'src/a.ts:1', params: [] } };
    expect(parseCheckReport(JSON.stringify(none), '', 2).rolesNeeded).toBeUndefined();
  });

  it('asks one question per remaining $n, showing its expression and the statement', () => {
    const questions = roleQuestions(parseCheckReport(JSON.stringify(NEEDED_JSON), '', 2).rolesNeeded!);
    expect(questions.map((q) => q.param.n)).toEqual([1, 3, 4]);
    expect(questions[1].title).toBe('fencelint: role of $3 in src/revise.ts:5 (2 of 3)');
    expect(questions[1].placeHolder).toBe('$3 = editor  in  UPDATE documents SET body = $1, edited_by = $3 WHERE id = $2 AND revision < $4');
    expect(questions[0].choices.map((c) => c.role)).toEqual(['value', 'key', 'token', 'operationId', 'other']);
    expect(ROLE_CHOICES.every((c) => c.description.length > 0)).toBe(true);
  });

  it("completes the roles: the checker's own, then the answers", () => {
    const needed = parseCheckReport(JSON.stringify(NEEDED_JSON), '', 2).rolesNeeded!;
    expect(completeRoles(needed, new Map([[1, 'value'], [3, 'other'], [4, 'token']]))).toEqual(['value', 'key', 'other', 'token']);
    expect(() => completeRoles(needed, new Map([[1, 'value']]))).toThrow(/no role for \$3/);
  });
});

describe('interrupted checks', () => {
  it('reads verdict interrupted with exit 143 or 130 as interrupted, not as bad input', () => {
    const json = JSON.stringify({ verdict: 'interrupted', error: 'interrupted by SIGTERM during scenario 1 (stale-write); nothing was left behind' });
    expect(parseCheckReport(json, '', 143)).toMatchObject({ verdict: 'interrupted', error: expect.stringContaining('SIGTERM') });
    expect(parseCheckReport(json, '', 130).verdict).toBe('interrupted');
    expect(parseCheckReport(json, '', 2).verdict).toBe('bad-input'); // disagrees with the exit status
    // Stopped before it could write JSON: still interrupted, with what it said.
    expect(parseCheckReport('', 'fencelint-check: interrupted', 143)).toMatchObject({ verdict: 'interrupted', error: expect.stringContaining('interrupted') });
    expect(renderReportText('src/a.ts:8', parseCheckReport(json, '', 143))).toContain('interrupted: the check was stopped before a verdict');
  });
});

describe('reading the report', () => {
  it('turns output that is no report into bad input with what the checker said', () => {
    const report = parseCheckReport('', 'Error: boom', 1);
    expect(report.verdict).toBe('bad-input');
    expect(report.error).toContain('no JSON report');
    expect(report.error).toContain('Error: boom');
  });

  it('does not trust a verdict that disagrees with the exit status', () => {
    expect(parseCheckReport('{"verdict":"holds","scenarios":[]}', '', 1).verdict).toBe('bad-input');
    expect(parseCheckReport('{"verdict":"holds","scenarios":[]}', '', 0).verdict).toBe('holds');
  });
});

describe('rendering the report', () => {
  it('escapes report text and keeps the SVG inert', () => {
    const report = parseCheckReport(
      JSON.stringify({ verdict: 'bad-input', error: '<img src=x onerror=alert(1)>', scenarios: [] }),
      '',
      2,
    );
    const html = renderReportHtml('src/<a>.ts:1', report, '<svg onload="alert(1)"><script>alert(2)</script><text onclick=\'x()\'>ok</text></svg>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('src/&lt;a&gt;.ts:1');
    expect(html).not.toMatch(/<script|onload=|onclick=/);
    expect(html).toContain("default-src 'none'");
    expect(sanitizeSvg('<?xml version="1.0"?><svg><a href="javascript:x()">t</a></svg>')).toBe('<svg><a>t</a></svg>');
  });
});

describe('running the real checker from the workspace', () => {
  it('reproduces the stale write under a redlock acquire, with the timeline and the SVG', async () => {
    const file = join(workspace, 'src/save.ts');
    writeFileSync(file, redlockUnfenced);
    const { report, svg } = await runChecker(locateChecker(workspace)!, workspace, file, 9);
    expect(report.verdict).toBe('broken');
    expect(report.scenarios.find((s) => s.id === 'stale-write')?.status).toBe('broken');
    expect(report.counterExample?.invariant).toBe('stale-write-accepted');
    const text = renderReportText('src/save.ts:9', report);
    expect(text).toContain('broken: a stale write was reproduced');
    expect(text).toMatch(/A\s+write\(v1, token=41\) -> accepted\s+<< stale-write-accepted/);
    const html = renderReportHtml('src/save.ts:9', report, svg);
    expect(html).toContain('<svg');
    expect(html).toContain('stale-write: <span class="status">broken</span>');
  });

  it('confirms the fence holds once the quick fix is applied', async () => {
    const file = join(workspace, 'src/save-authority.ts');
    writeFileSync(file, authorityUnfenced);
    const before = await runChecker(locateChecker(workspace)!, workspace, file, 8);
    expect(before.report.verdict).toBe('broken');

    const fixed = applyFenceSuggestion(authorityUnfenced);
    expect(fixed).toContain('fence_token < $3');
    writeFileSync(file, fixed);
    const line = fixed.split('\n').findIndex((l) => l.includes('pool.query(')) + 1;
    const after = await runChecker(locateChecker(workspace)!, workspace, file, line);
    expect(after.report.verdict, after.report.error).toBe('holds');
    expect(after.report.scenarios.find((s) => s.id === 'stale-write')?.status).toBe('holds');
    expect(renderReportHtml(`src/save-authority.ts:${line}`, after.report, after.svg)).toContain('holds: the fence rejects');
  });

  it('asks for each role the checker cannot name, then runs with them', { timeout: 300_000 }, async () => {
    const file = join(workspace, 'src/revise.ts');
    writeFileSync(file, reviseUnnamed);
    const runs: (string[] | undefined)[] = [];
    const asked: RoleQuestion[] = [];
    const answers: Record<string, string> = { body: 'value', editor: 'other', revision: 'token' };
    const outcome = await confirmWithRuntimeCheck(
      (roles) => {
        runs.push(roles);
        return runChecker(locateChecker(workspace)!, workspace, file, 6, { roles });
      },
      async (question) => {
        asked.push(question);
        return answers[question.param.text!];
      },
    );
    expect(asked.map((q) => q.placeHolder.split('  in  ')[0])).toEqual(['$1 = body', '$3 = editor', '$4 = revision']);
    expect(asked[0].placeHolder).toContain('in  UPDATE documents SET body = $1, edited_by = $3 WHERE id = $2 AND revision < $4');
    expect(runs).toEqual([undefined, ['value', 'key', 'other', 'token']]);
    if (outcome.kind !== 'checked') throw new Error('the check was not run');
    const { report } = outcome.result;
    // The revision is compared but never stored: the late holder's write is accepted.
    expect(report.verdict, report.error).toBe('broken');
    expect(report.subject?.roles).toEqual(['value', 'key', 'other', 'token']);
    expect(renderReportText('src/revise.ts:6', report)).toContain('roles: $1=value $2=key $3=other $4=token');
    expect(renderReportHtml('src/revise.ts:6', report, outcome.result.svg)).toContain('Roles: <code>$1=value $2=key $3=other $4=token</code>');
  });

  it('runs nothing more when a question is dismissed', { timeout: 120_000 }, async () => {
    const file = join(workspace, 'src/revise.ts');
    writeFileSync(file, reviseUnnamed);
    const runs: (string[] | undefined)[] = [];
    const outcome = await confirmWithRuntimeCheck(
      (roles) => {
        runs.push(roles);
        return runChecker(locateChecker(workspace)!, workspace, file, 6, { roles });
      },
      async () => undefined,
    );
    expect(outcome).toEqual({ kind: 'cancelled' });
    expect(runs).toEqual([undefined]);
  });

  it('stops the checker when the user cancels: interrupted, and it leaves nothing behind', { timeout: 300_000 }, async () => {
    const file = join(workspace, 'src/save.ts');
    writeFileSync(file, redlockUnfenced);
    // A TMPDIR of its own (the checker and its PGlite copy inherit it), the template from the shared cache.
    const cache = join(tmpdir(), 'fencelint-checker');
    const tmp = mkdtempSync(join(tmpdir(), 'fencelint-ext-cancel-'));
    // PGlite, not the server a DATABASE_URL in the environment (as in CI) would point the checker at.
    const saved = { TMPDIR: process.env.TMPDIR, FENCELINT_CHECKER_CACHE: process.env.FENCELINT_CHECKER_CACHE, DATABASE_URL: process.env.DATABASE_URL };
    process.env.TMPDIR = tmp;
    process.env.FENCELINT_CHECKER_CACHE = cache;
    delete process.env.DATABASE_URL;
    try {
      const stop = new AbortController();
      const running = runChecker(locateChecker(workspace)!, workspace, file, 9, { signal: stop.signal });
      const pgliteCopy = () => readdirSync(tmp).some((name) => existsSync(join(tmp, name, 'PG_VERSION')));
      const until = Date.now() + 120_000;
      while (!pgliteCopy()) {
        if (Date.now() > until) throw new Error('PGlite never started');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      stop.abort();
      const { report } = await running;
      expect(report.verdict, report.error).toBe('interrupted');
      expect(report.error).toMatch(/interrupted by SIGTERM during .*; nothing was left behind/);
      expect(renderReportText('src/save.ts:9', report)).toContain('interrupted: the check was stopped before a verdict');
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('reports bad input when the line holds no SQL write', async () => {
    const file = join(workspace, 'src/save.ts');
    writeFileSync(file, redlockUnfenced);
    const { report, svg } = await runChecker(locateChecker(workspace)!, workspace, file, 1);
    expect(report.verdict).toBe('bad-input');
    expect(report.error).toContain('no SQL write understood');
    expect(svg).toBeUndefined();
  });
});
