import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// npm links a workspace's bin only when its target exists, and the targets are build output:
// the root build re-links them (`npm run link-bins`), so a fresh clone has working commands.
describe('the commands a fresh clone gets after `npm ci` and `npm run build`', () => {
  it.each([
    ['fencelint', /^0\.1\.0$/],
    ['fencelint-check', /^fencelint-check 0\.1\.0$/],
    ['fencelint-language-server', /^0\.1\.0$/],
  ])('node_modules/.bin/%s runs', (name, version) => {
    const bin = path.join(root, 'node_modules', '.bin', name);
    expect(existsSync(bin), `${bin} is not linked`).toBe(true);
    const run = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(version);
  });
});
