import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

const FENCED = 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3';
const UNFENCED = 'UPDATE resource_state SET value = $1 WHERE resource_key = $2';
const out = mkdtempSync(join(tmpdir(), 'fencelint-reports-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('fencelint-check reports', () => {
  it('prints the text report and exits 0 when the fence holds', async () => {
    const result = await runCli(['--sql', FENCED, '--roles', 'value,key,token', '--workers', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('fencelint-check: the fence holds');
    expect(result.stdout).toContain('table:     resource_state (inferred from the statement), token column fence_token');
    expect(result.stdout).toMatch(/ok {3}8\. explore 2 workers: \d+ states/);
  });

  it('writes JSON with the verdict, every scenario and the counter-example, and an SVG timeline', async () => {
    const svg = join(out, 'timeline.svg');
    const result = await runCli(['--sql', UNFENCED, '--roles', 'value,key', '--workers', '2', '--json', '--svg', svg]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.verdict).toBe('broken');
    expect(report.scenarios.map((s: { id: string }) => s.id)).toEqual([
      'stale-write',
      'equal-token-replay',
      'restart',
      'old-handle-release',
      'operation-replay',
      'digit-boundary-10',
      'digit-boundary-100',
    ]);
    expect(report.exploration[0]).toMatchObject({ workers: 2, bound: { maxExpires: 1, maxRestarts: 0 } });
    expect(report.counterExample.invariant).toBe('stale-write-accepted');
    expect(report.counterExample.schedule).toEqual(['A:acquire', 'A:pause', 'expire', 'B:acquire', 'B:write', 'A:write']);

    const picture = readFileSync(svg, 'utf8');
    expect(picture.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(picture.trimEnd().endsWith('</svg>')).toBe(true);
    expect(picture).toContain('>A</text>'); // lanes
    expect(picture).toContain('>B</text>');
    expect(picture).toContain('lease-A, token 41'); // lease span label
    expect(picture).toContain('v1 @41: accepted'); // the stale write, marked
    expect(picture).toContain('broken: a stale write with token 41 was accepted after token 42');
  });

  it('shows the progress line on stderr with --progress', async () => {
    const result = await runCli(['--sql', FENCED, '--roles', 'value,key,token', '--workers', '3', '--progress']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/exploring 3 workers: \d+ states, \d+ schedules/);
  });

  it('checks the write at a source line, with roles named from the bound expressions', { timeout: 240_000 }, async () => {
    const unfenced = await runCli(['--at', 'checker/tests/fixtures/save-state.ts:6', '--workers', '0']);
    expect(unfenced.stdout).toContain('subject:   UPDATE resource_state SET value = $1 WHERE resource_key = $2');
    expect(unfenced.stdout).toContain('roles:     $1=value $2=key');
    expect(unfenced.code).toBe(1);
    const fenced = await runCli(['--at', 'checker/tests/fixtures/save-state.ts:11', '--workers', '0']);
    expect(fenced.stdout).toContain('roles:     $1=value $2=key $3=token');
    expect(fenced.code).toBe(0);
  });

  it('names the roles from the analysis, not from parameter names (camelCase ids, a DELETE)', { timeout: 240_000 }, async () => {
    const save = await runCli(['--at', 'checker/tests/fixtures/invoices.ts:5', '--workers', '0']);
    expect(save.stdout, save.stderr).toContain('roles:     $1=value $2=key $3=token');
    expect(save.code).toBe(0);
    const clear = await runCli(['--at', 'checker/tests/fixtures/invoices.ts:9', '--workers', '0']);
    expect(clear.stdout, clear.stderr).toContain('roles:     $1=key $2=token');
    expect(clear.code).toBe(0);
  });

  it('asks for the roles it cannot name, in the JSON report too', async () => {
    const result = await runCli(['--at', 'checker/tests/fixtures/invoices.ts:13', '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\$1=doc \(value\), \$2=invoiceId \(key\), \$3=cutoff \(role unknown\); give the roles of all of them with --roles/);
    const report = JSON.parse(result.stdout);
    expect(report.rolesNeeded.statement).toBe('UPDATE invoices SET body = $1 WHERE id = $2 AND archived_at < $3');
    expect(report.rolesNeeded.params).toEqual([
      { n: 1, text: 'doc', role: 'value' },
      { n: 2, text: 'invoiceId', role: 'key' },
      { n: 3, text: 'cutoff' },
    ]);
  });

  it('asks which of several written parameters is the value, and checks one outside the fence as other', { timeout: 240_000 }, async () => {
    const asked = await runCli(['--at', 'checker/tests/fixtures/invoices.ts:17', '--json']);
    expect(asked.code).toBe(2);
    expect(JSON.parse(asked.stdout).rolesNeeded.params).toEqual([
      { n: 1, text: 'doc' },
      { n: 2, text: 'invoiceId', role: 'key' },
      { n: 3, text: 'lease.fenceToken', role: 'token' },
      { n: 4, text: 'editor' },
    ]);
    expect(asked.stderr).toContain('give the roles of all of them with --roles ?,key,token,?, each ? one of: value, key, token, operationId, other');
    const checked = await runCli(['--at', 'checker/tests/fixtures/invoices.ts:17', '--roles', 'value,key,token,other', '--workers', '0']);
    expect(checked.stdout, checked.stderr).toContain('roles:     $1=value $2=key $3=token $4=other');
    expect(checked.code).toBe(0);
  });

  it('says so when no SQL write is understood at the line', async () => {
    const result = await runCli(['--at', 'checker/tests/fixtures/save-state.ts:2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no SQL write understood at checker/tests/fixtures/save-state.ts:2');
  });
});
