import { ESLint } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import fencelint from 'eslint-plugin-fencelint';
const dirs = process.argv.slice(2);
const eslint = new ESLint({ cwd: '/tmp/libs2', overrideConfigFile: true, overrideConfig: [
  { files: ['**/*.{js,mjs,cjs,ts}'], languageOptions: { parser: tsParser } },
  { ...fencelint.configs.recommended, files: ['**/*.{js,mjs,cjs,ts}'] },
  { ignores: ['**/*.d.ts', '**/*.map'] }, { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } }], errorOnUnmatchedPattern: false });
const results = await eslint.lintFiles(dirs);
for (const r of results) for (const m of r.messages) console.log(r.filePath.replace('/tmp/libs2/',''), m.line, m.ruleId, m.message.slice(0, 150));
console.error(results.length, 'files');
