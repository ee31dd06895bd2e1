import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import fencelint from 'eslint-plugin-fencelint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkerArgs } from '../src/runtime-check/checker-args';
import { checkerMissingMessage, locateChecker } from '../src/runtime-check/locate-checker';
import { parseCheckReport } from '../src/runtime-check/parse-report';
import { renderReportHtml, renderReportText, sanitizeSvg } from '../src/runtime-check/render-report';
import { runChecker } from '../src/runtime-check/run-checker';

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

  it('reports bad input when the line holds no SQL write', async () => {
    const file = join(workspace, 'src/save.ts');
    writeFileSync(file, redlockUnfenced);
    const { report, svg } = await runChecker(locateChecker(workspace)!, workspace, file, 1);
    expect(report.verdict).toBe('bad-input');
    expect(report.error).toContain('no SQL write understood');
    expect(svg).toBeUndefined();
  });
});
