/**
 * The plugin's config types, as a user meets them: `typed-config/eslint.config.ts` is
 * type-checked with tsc (`defineConfig` from `eslint/config`, `tseslint.config`, `extends` by
 * name, `ESLint.Plugin`), then each of its exports lints a TypeScript file for real. The
 * README config is the same in both READMEs and finds the same bug.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../..');
const fixture = join(here, 'typed-config');
// Inside the repository, so the temporary project resolves the installed packages.
const work = join(root, '.tmp', `typed-config-${process.pid}`);

afterAll(() => rmSync(work, { recursive: true, force: true }));

function typeErrors(files: string[]): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(fixture, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram(files, parsed.options);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

async function lintWith(config: Linter.Config | Linter.Config[], cwd: string): Promise<string[]> {
  const eslint = new ESLint({ cwd, overrideConfigFile: true, overrideConfig: config });
  const [result] = await eslint.lintFiles(['src/save-resource.ts']);
  return result.messages.map((m) => (m.ruleId ? `${m.ruleId}:${m.line}` : m.message));
}

describe('typed configs', () => {
  // A whole-program type check of typescript-eslint's and ESLint's types: slow on a busy machine.
  it('eslint.config.ts type-checks with defineConfig, tseslint.config, extends and ESLint.Plugin', { timeout: 240_000 }, () => {
    expect(typeErrors([join(fixture, 'eslint.config.ts')])).toEqual([]);
  });

  it('the type check can fail: a wrong config is an error', { timeout: 240_000 }, () => {
    mkdirSync(work, { recursive: true });
    const wrong = join(work, 'wrong.config.ts');
    writeFileSync(
      wrong,
      `import fencelint from 'eslint-plugin-fencelint';\nimport { defineConfig } from 'eslint/config';\nexport default defineConfig({ plugins: { fencelint }, rules: { 'fencelint/require-fence-condition': 'loud' } }, fencelint.configs.recommended.rules.nope === 1);\n`,
    );
    expect(typeErrors([wrong]).length).toBeGreaterThan(0);
  });

  it('each typed config lints TypeScript and finds the unfenced write', async () => {
    mkdirSync(work, { recursive: true });
    cpSync(join(fixture, 'src'), join(work, 'src'), { recursive: true });
    const source = readFileSync(join(fixture, 'eslint.config.ts'), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(join(work, 'eslint.config.mjs'), js);
    const configs = (await import(pathToFileURL(join(work, 'eslint.config.mjs')).href)) as Record<string, Linter.Config | Linter.Config[]>;
    for (const name of ['withTseslint', 'withDefineConfig', 'withExtends', 'asArray']) {
      expect(await lintWith(configs[name], work), name).toEqual(['fencelint/require-fence-condition:10']);
    }
  });

  it('both READMEs show the same config, and it finds the bug', async () => {
    const block = (file: string) => /```js\n(\/\/ eslint\.config\.js\n[\s\S]*?)```/.exec(readFileSync(join(root, file), 'utf8'))?.[1];
    const top = block('README.md');
    expect(top, 'README.md has an eslint.config.js block').toBeDefined();
    expect(block('rules/README.md')).toBe(top);
    mkdirSync(join(work, 'readme'), { recursive: true });
    cpSync(join(fixture, 'src'), join(work, 'readme', 'src'), { recursive: true });
    writeFileSync(join(work, 'readme', 'eslint.config.js'), top!);
    writeFileSync(join(work, 'readme', 'package.json'), '{ "type": "module" }\n');
    // The eslint binary, as a user runs it, in a process of its own.
    const run = spawnSync(process.execPath, [join(root, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', '.'], { cwd: join(work, 'readme'), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string; line: number }> }>;
    expect(report.flatMap((r) => r.messages.map((m) => `${m.ruleId}:${m.line}`))).toEqual(['fencelint/require-fence-condition:10']);
  });
});
