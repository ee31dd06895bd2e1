/** The analysis core, shared by the rules, the language server and the runtime checker. */
export * from './sql/index.js';
export { getFileAnalysis, analyzeFile } from './file-analysis.js';
export type { FileAnalysis, WriteSite, SqlWriteSite, KnexWriteSite, ObjectWriteSite } from './file-analysis.js';
export type { AcquireSite } from './locks/acquires.js';
export { isRedisSetNx } from './locks/acquires.js';
export { LOCK_MODELS } from './models/locks.js';
export type { LockModel } from './models/locks.js';
export { isStrongTokenName, isHandleTokenName, isTokenColumnName } from './models/token-names.js';
export { readSqlCall, isProtectedWrite, judgeWrite } from './sinks/sql-writes.js';
export type { SqlCall, WriteVerdict } from './sinks/sql-writes.js';
export { lockModels, tokenColumnSetting } from './settings.js';
export type { FencelintSettings } from './settings.js';
export { walk, unwrap, memberName, calleeName, receiverPath } from './ast.js';
export { findCheckThenWrites } from './verdicts/check-then-write.js';
export type { CheckThenWrite } from './verdicts/check-then-write.js';
export { SINK_MODELS, sinkModel, sinkModelsOf, sinkWrite, resultShapeOf } from './models/sinks.js';
export type { SinkModel, SinkWrite, SinkFamily, ResultShape, Place, WriteKind, ConditionStyle } from './models/sinks.js';
