import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO, runCli, type CliResult } from './cli.js';

const FENCED = 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3';
const dir = mkdtempSync(join(tmpdir(), 'fencelint-cli-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runWithStdin(args: string[], input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, env: { ...process.env, DATABASE_URL: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('fencelint-check input', () => {
  const refused: { name: string; args: string[]; message: RegExp }[] = [
    { name: 'a role named twice', args: ['--sql', 'UPDATE resource_state SET value = $1, note = $2 WHERE resource_key = $3', '--roles', 'value,value,key'], message: /names "value" 2 times/ },
    { name: 'several keys where one is the token', args: ['--sql', FENCED, '--roles', 'value,key,key'], message: /\$3 is not matched with = on a column of its own/ },
    { name: 'a value role in a DELETE', args: ['--sql', 'DELETE FROM resource_state WHERE resource_key = $1 AND fence_token <= $2', '--roles', 'value,token'], message: /a DELETE writes no value/ },
    { name: 'no value for an UPDATE', args: ['--sql', 'UPDATE resource_state SET fence_token = $2 WHERE resource_key = $1', '--roles', 'key,token'], message: /must name the "value" parameter/ },
    { name: '$n placeholders with --dialect mysql', args: ['--sql', FENCED, '--roles', 'value,key,token', '--dialect', 'mysql'], message: /--dialect mysql reads \? placeholders, but the statement uses \$n/ },
    { name: 'an empty --workers', args: ['--sql', FENCED, '--roles', 'value,key,token', '--workers', ''], message: /--workers wants counts from 0 to 4, got ""/ },
    { name: 'a --workers list with an empty entry', args: ['--sql', FENCED, '--roles', 'value,key,token', '--workers', '2,'], message: /--workers wants counts/ },
    { name: 'a database URL that is not a URL', args: ['--sql', FENCED, '--roles', 'value,key,token', '--database-url', 'not a url'], message: /--database-url is not a URL: "not a url"/ },
    { name: 'a database URL of another scheme', args: ['--sql', FENCED, '--roles', 'value,key,token', '--database-url', 'mysql://h/db'], message: /must start with postgres:\/\// },
    { name: 'a --timeout that is not a number', args: ['--sql', FENCED, '--roles', 'value,key,token', '--timeout', 'soon'], message: /--timeout wants a number of seconds/ },
    { name: 'a --sql-file that does not exist', args: ['--sql-file', join(dir, 'nope.sql'), '--roles', 'value,key,token'], message: /cannot read the statement \(--sql-file\)/ },
  ];
  for (const c of refused) {
    it(`refuses ${c.name} (exit 2)`, async () => {
      const started = Date.now();
      const result = await runCli(c.args);
      expect(result.stderr).toMatch(c.message);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(Date.now() - started).toBeLessThan(30_000);
    });
  }

  it('reads the statement from --sql-file, whatever its size', async () => {
    const file = join(dir, 'write.sql');
    // Above the 128 KiB one argument may hold: a comment pads it.
    writeFileSync(file, `/* ${'x'.repeat(200_000)} */\n${FENCED}\n`);
    const result = await runCli(['--sql-file', file, '--roles', 'value,key,token', '--workers', '0']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('fencelint-check: the fence holds');
  });

  it('reads the statement from stdin with --sql -', async () => {
    const result = await runWithStdin(['--sql', '-', '--roles', 'value,key', '--workers', '0'], 'UPDATE resource_state SET value = $1 WHERE resource_key = $2');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('FAIL 1. stale-write');
  });

  it('prints its version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    const { version } = JSON.parse(readFileSync(join(REPO, 'checker/package.json'), 'utf8')) as { version: string };
    expect(result.stdout.trim()).toBe(`fencelint-check ${version}`);
  });

  it('keeps the verdict and its exit status when --svg cannot be written', async () => {
    const result = await runCli(['--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2', '--roles', 'value,key', '--workers', '0', '--svg', join(dir, 'missing', 'dir', 'x.svg')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('fencelint-check: the fence is BROKEN');
    expect(result.stderr).toMatch(/cannot write --svg .*x\.svg: ENOENT.*\(the verdict above stands\)/);
  });

  it('ends a module call that never settles at the deadline, naming the call (exit 2)', { timeout: 120_000 }, async () => {
    const started = Date.now();
    const result = await runCli(['--module', 'checker/tests/fixtures/never-settles.ts', '--timeout', '30', '--workers', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /ran out of time \(--timeout 30 s\) during scenario 1 \(stale-write\), at B: write\(v2, token=42\) \(waiting for the module's resource\.write\(\) to settle\)/,
    );
    expect(Date.now() - started).toBeLessThan(90_000);
  });
});
