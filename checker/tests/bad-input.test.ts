import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

// Each run gets its own TMPDIR so that "nothing left behind" can be checked exactly; the PGlite
// template stays in the shared cache.
const tmpRoots: string[] = [];
function isolatedTmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fencelint-badinput-'));
  tmpRoots.push(dir);
  return dir;
}
const leftovers = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('fencelint'));
const cache = join(tmpdir(), 'fencelint-checker');

afterAll(() => {
  for (const dir of tmpRoots) rmSync(dir, { recursive: true, force: true });
});

describe('bad input: exit 2, a clear message, nothing left behind', () => {
  const cases: { name: string; args: string[]; message: RegExp }[] = [
    {
      name: 'unparseable SQL',
      args: ['--sql', 'UPDATE resource_state SET value = $1, WHERE', '--roles', 'value'],
      message: /cannot parse the statement as postgres SQL/,
    },
    {
      name: 'an unknown role',
      args: ['--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2', '--roles', 'value,resource'],
      message: /unknown role "resource" in --roles; each \$n is one of: value, key, token, operationId/,
    },
    {
      name: 'roles that do not match the parameters',
      args: ['--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2', '--roles', 'value,key,token'],
      message: /uses 2 parameter\(s\) \(\$1\.\.\$2\) but --roles names 3/,
    },
    {
      name: 'a read instead of a write',
      args: ['--sql', 'SELECT value FROM resource_state WHERE resource_key = $1', '--roles', 'key,value'],
      message: /is not a write/,
    },
    {
      name: 'an unreachable database URL',
      args: ['--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2', '--roles', 'value,key', '--database-url', 'postgres://x@127.0.0.1:1/db'],
      message: /cannot connect to PostgreSQL at 127\.0\.0\.1:1\/db/,
    },
    {
      name: 'a module that throws',
      args: ['--module', 'checker/examples/throwing-module.ts'],
      message: /the module's createResource threw: connection refused/,
    },
    { name: 'a module that does not exist', args: ['--module', 'checker/examples/nope.ts'], message: /module not found/ },
    { name: 'no subject', args: ['--roles', 'value'], message: /give exactly one of --sql, --sql-file, --at, --module/ },
    { name: 'an unknown option', args: ['--frobnicate'], message: /Unknown option '--frobnicate'/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const tmp = isolatedTmp();
      const result = await runCli(c.args, { TMPDIR: tmp, FENCELINT_CHECKER_CACHE: cache });
      expect(result.stderr).toMatch(c.message);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(leftovers(tmp)).toEqual([]);
    });
  }

  it('a statement with no WHERE is checked, not refused: it is found unsafe (exit 1)', async () => {
    const tmp = isolatedTmp();
    const result = await runCli(['--sql', 'UPDATE resource_state SET value = $1, fence_token = $2', '--roles', 'value,token', '--workers', '0'], {
      TMPDIR: tmp,
      FENCELINT_CHECKER_CACHE: cache,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FAIL 1. stale-write');
    expect(leftovers(tmp)).toEqual([]);
  });

  it('prints a JSON error with --json', async () => {
    const result = await runCli(['--json', '--sql', 'UPDATE resource_state SET value = $1 WHERE resource_key = $2', '--roles', 'value,nope']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ verdict: 'bad-input', error: expect.stringMatching(/unknown role "nope"/) });
  });
});
