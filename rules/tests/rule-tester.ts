/** RuleTester wired into vitest, with the SQL parser loaded the way the plugin entry loads it. */
import { RuleTester } from '@typescript-eslint/rule-tester';
import { afterAll, describe, it } from 'vitest';
import { loadSqlParser } from '../src/core/sql/index.js';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

await loadSqlParser();

export function createRuleTester(): RuleTester {
  return new RuleTester({
    languageOptions: {
      parserOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    },
  });
}
