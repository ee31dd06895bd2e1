import { expect, it } from 'vitest';
import { analyzeSql, isSqlParserLoaded, loadSqlParser } from '../../../src/core/sql/index.js';

// Each test file runs in its own process, so here the parser starts unloaded.
it('answers undefined until the parser is loaded, then parses', async () => {
  expect(isSqlParserLoaded()).toBe(false);
  expect(analyzeSql('UPDATE t SET v = $1 WHERE k = $2')).toBeUndefined();
  const loading = loadSqlParser();
  expect(loadSqlParser()).toBe(loading);
  await loading;
  expect(isSqlParserLoaded()).toBe(true);
  expect(analyzeSql('UPDATE t SET v = $1 WHERE k = $2')?.statements[0].kind).toBe('update');
});
