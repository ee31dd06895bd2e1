/**
 * The packages as a new user gets them: `npm pack` the plugin and the checker, install both
 * tarballs together into a fresh project outside the repository, configure ESLint from the
 * README, and lint a buggy file through the installed `fencelint check` and through `eslint`.
 * Also what the tarballs hold: LICENSE, the docs pages, no source map without its sources.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Packed {
  filename: string;
  files: Array<{ path: string }>;
}

const work = mkdtempSync(path.join(tmpdir(), 'fencelint-pack-'));
const packs = path.join(work, 'packs');
const app = path.join(work, 'app');
const packed: Record<string, Packed> = {};

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The README's config, word for word. */
function readmeConfig(): string {
  const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
  const block = /```js\n(\/\/ eslint\.config\.js\n[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no eslint.config.js block');
  return block[1];
}

const BUGGY = `import Redlock from 'redlock';
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

describe('packed and installed', { timeout: 900_000 }, () => {
  beforeAll(async () => {
    // `npm test` has built every workspace; `prepack` builds them too when a user packs.
    mkdirSync(packs, { recursive: true });
    for (const workspace of ['rules', 'checker']) {
      const { stdout } = await exec(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', packs], { cwd: path.join(repo, workspace) });
      packed[workspace] = (JSON.parse(stdout) as Packed[])[0];
    }
    mkdirSync(path.join(app, 'src'), { recursive: true });
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }, null, 2));
    writeFileSync(path.join(app, 'eslint.config.js'), readmeConfig());
    writeFileSync(path.join(app, 'src/save.ts'), BUGGY);
    const rootManifest = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));
    await exec(
      npm,
      [
        'install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts',
        path.join(packs, packed.rules.filename),
        path.join(packs, packed.checker.filename),
        `eslint@${rootManifest.devDependencies.eslint}`,
        `typescript-eslint@${rootManifest.devDependencies['typescript-eslint']}`,
      ],
      { cwd: app, maxBuffer: 64 * 1024 * 1024 },
    );
  }, 900_000);

  it('each tarball ships LICENSE, and the plugin its docs pages; no source map lacks its sources', () => {
    for (const pack of Object.values(packed)) expect(pack.files.map((f) => f.path)).toContain('LICENSE');
    const pluginFiles = packed.rules.files.map((f) => f.path);
    for (const rule of readdirSync(path.join(repo, 'rules/docs/rules'))) expect(pluginFiles).toContain(`docs/rules/${rule}`);
    expect(pluginFiles).toContain('docs/settings.md');
    expect(pluginFiles).toContain('dist/cli/bin.js');
    for (const pack of ['rules', 'checker']) {
      const installed = path.join(app, 'node_modules', pack === 'rules' ? 'eslint-plugin-fencelint' : 'fencelint-checker');
      for (const file of packed[pack].files.map((f) => f.path).filter((p) => p.endsWith('.map'))) {
        const map = JSON.parse(readFileSync(path.join(installed, file), 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
        expect(map.sourcesContent?.length, `${pack}/${file} carries its sources`).toBe(map.sources.length);
      }
    }
  });

  it('the installed fencelint command finds the bug with the README config', async () => {
    const result = await exec(path.join(app, 'node_modules/.bin/fencelint'), ['check'], { cwd: app }).catch((error) => error as { code: number; stdout: string; stderr: string });
    expect((result as { code?: number }).code).toBe(1);
    expect(result.stdout).toMatch(/src\/save\.ts\n\s+8:11\s+error\s+This UPDATE under `redlock\.acquire` \(line 6\).*fencelint\/require-fence-condition/);
  });

  it('the installed eslint finds the same bug with the same config', async () => {
    const result = await exec(path.join(app, 'node_modules/.bin/eslint'), ['.', '-f', 'json'], { cwd: app }).catch((error) => error as { code: number; stdout: string });
    const messages = (JSON.parse(result.stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string; line: number }> }>).flatMap((r) => r.messages.map((m) => `${path.relative(app, r.filePath)}:${m.line} ${m.ruleId}`));
    expect(messages).toEqual(['src/save.ts:8 fencelint/require-fence-condition']);
  });

  it('the installed runtime checker starts from its bin', async () => {
    const { stdout } = await exec(path.join(app, 'node_modules/.bin/fencelint-check'), ['--help'], { cwd: app });
    expect(stdout).toMatch(/fencelint-check/);
  });
});
