// Lints the bundled fixtures with fencelint's recommended rules, as a user's project would.
// `eslint-plugin-fencelint` resolves to rules/dist: run `npm run build` first.
import { readFileSync } from 'node:fs';
import tsParser from '@typescript-eslint/parser';
import fencelint from 'eslint-plugin-fencelint';

const sources = ['fixtures/**/*.{ts,tsx,mts,cts,js,mjs,cjs}'];
// A project that declares its own lock, SQL wrapper, API client and token source.
const ownModels = JSON.parse(readFileSync(new URL('./fixtures/projects/own-client-models/fencelint-settings.json', import.meta.url), 'utf8'));

export default [
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'coverage/**',
      'e2e/**',
      '.e2e-run/**',
      '.tmp/**',
      'bench/**/results/**',
      'bench/**/corpus/**',
    ],
  },
  {
    files: sources,
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
  },
  { ...fencelint.configs.recommended, files: sources },
  { files: ['fixtures/projects/own-client-models/**'], settings: { fencelint: ownModels } },
];
