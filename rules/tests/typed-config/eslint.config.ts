// A user's typed eslint.config.ts, written the three ways the ESLint and typescript-eslint docs
// show. `../typed-config.test.ts` type-checks this file with tsc and then lints with each export.
import type { ESLint, Linter } from 'eslint';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import fencelint from 'eslint-plugin-fencelint';

// The plugin is an ESLint plugin as far as the types go, too.
export const asPlugin: ESLint.Plugin = fencelint;

// typescript-eslint's helper: its base config brings the parser, recommended brings the files.
export const withTseslint = tseslint.config(tseslint.configs.base, fencelint.configs.recommended);

// ESLint's own helper, with the config object as is.
export const withDefineConfig = defineConfig(
  { languageOptions: { parser: tseslint.parser } },
  fencelint.configs.recommended,
);

// `extends` by name, narrowed to the project's sources.
export const withExtends = defineConfig({
  files: ['src/**/*.ts'],
  languageOptions: { parser: tseslint.parser },
  plugins: { fencelint },
  extends: ['fencelint/recommended'],
});

// A plain array, as most READMEs show.
export const asArray: Linter.Config[] = [{ languageOptions: { parser: tseslint.parser } }, fencelint.configs.recommended];

export default withTseslint;
