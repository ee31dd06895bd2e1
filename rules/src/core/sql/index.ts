/** SQL understanding: PostgreSQL's parser applied to SQL found in JavaScript. See README.md. */
export { loadSqlParser, isSqlParserLoaded } from './parser.js';
export { analyzeSql } from './analyze.js';
export { planFenceEdit, applySqlEdits } from './edits.js';
export { readSqlSource } from './source.js';
export type { SqlSource } from './source.js';
export type {
  FenceEditOptions,
  SqlAnalysis,
  SqlAssignment,
  SqlComparison,
  SqlDialect,
  SqlRange,
  SqlStatementEditPoints,
  SqlStatementInfo,
  SqlTextEdit,
  SqlValue,
} from './types.js';
