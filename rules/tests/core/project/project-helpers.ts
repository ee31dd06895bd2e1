/**
 * Multi-file projects written to a temporary folder and linted whole through ESLint's
 * `ESLint` class, with typescript-eslint's parser and the plugin's recommended rules.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import plugin from '../../../src/index.js';
import { projectGraph } from '../../../src/core/modules/module-graph.js';

export interface Project {
  root: string;
  write(path: string, text: string): string;
  lint(...paths: string[]): Promise<Map<string, ESLint.LintResult['messages']>>;
  remove(): void;
}

export function project(files: Record<string, string>, settings: Record<string, unknown> = {}): Project {
  const root = mkdtempSync(join(tmpdir(), 'fencelint-project-'));
  const write = (path: string, text: string) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  const eslint = () =>
    new ESLint({
      cwd: root,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.{ts,tsx,js,mjs,cjs}'], languageOptions: { parser: tsParser as never }, settings },
        { ...(plugin.configs.recommended as object), files: ['**/*.{ts,tsx,js,mjs,cjs}'] },
      ],
    });
  return {
    root,
    write,
    async lint(...paths: string[]) {
      const results = await eslint().lintFiles(paths.length > 0 ? paths.map((p) => join(root, p)) : [root]);
      return new Map(results.map((r) => [r.filePath.slice(root.length + 1).split('\\').join('/'), r.messages]));
    },
    remove() {
      projectGraph.clear();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** `line rule` per message, for compact assertions. */
export function findings(messages: ESLint.LintResult['messages'] | undefined): string[] {
  return (messages ?? []).map((m) => `${m.line} ${m.ruleId ?? (m.fatal ? 'fatal' : 'eslint')}`);
}
