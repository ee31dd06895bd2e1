/**
 * The fence suggestion for a reported write, whichever rule reports it: the token in scope,
 * the column to compare and store, and the edit. Only when a token value is in scope; the
 * suggestion never invents a variable.
 */
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import type { FileAnalysis, ReceivedWriteSite, WriteSite } from '../file-analysis.js';

type Reported = WriteSite | ReceivedWriteSite;
import { camel } from '../sinks/object-writes.js';
import { knexFenceFix, objectFenceFix, sqlFenceFix, type FixBuilder } from './fence-fix.js';

export interface FenceSuggestion {
  /** Source text of the token the edit uses (`lease.fenceToken`). */
  token: string;
  /** The column (or property) the edit compares and stores. */
  column: string;
  /** The write already compares the token; the edit only stores it. */
  storeOnly: boolean;
  fix: FixBuilder;
}

/** The token column of another fenced write in the same file, so suggestions follow the file's own schema. */
export function inferTokenColumn(writes: readonly Reported[]): string | undefined {
  for (const write of writes) {
    if (!write.fenced) continue;
    if (write.sink === 'sql') {
      const column = write.verdicts.find((v) => v.tokenCompared && v.column)?.column;
      if (column) return column;
    } else if (write.sink !== 'api' && write.sink !== 'call' && write.verdict.column) {
      return write.verdict.column;
    }
  }
  return undefined;
}

/** Whether the write's own condition compares the token already (it then lacks only the store). */
export function comparesToken(write: Reported): boolean {
  if (write.sink === 'sql') return write.verdicts.every((v) => v.tokenCompared);
  if (write.sink === 'call') return false;
  return write.sink === 'api' ? !!write.verdict?.tokenCompared : write.verdict.tokenCompared;
}

/** The column the write compares but does not store, or the column a new fence would use. */
export function fenceColumn(write: Reported, column: string): string {
  const compared =
    write.sink === 'sql' ? write.verdicts.find((v) => v.tokenCompared && !v.tokenStored)?.column : write.sink === 'api' || write.sink === 'call' ? undefined : write.verdict.column;
  return compared ?? (write.sink === 'object' ? camel(column) : column);
}

/** The suggestion for a write under a lock, or in a function handed a token by its caller. */
export function fenceSuggestion(analysis: FileAnalysis, write: Reported, sourceCode: SourceCode, optionColumn?: string, knownColumn?: string): FenceSuggestion | undefined {
  // An instance write (`user.save()`) sends no condition of the caller's: there is nothing to add a fence to.
  if (write.sink === 'object' && write.write.record) return undefined;
  const token = 'received' in write ? write.received.token : analysis.tracer.tokenInScope(write.node, write.acquire);
  if (token === undefined) return undefined;
  // `knownColumn`: the field the code itself compared (a separate check's), ahead of the file's other writes.
  const column = knownColumn ?? inferTokenColumn([...analysis.writes, ...analysis.receivedWrites]) ?? optionColumn ?? analysis.tokenColumn;
  const fix =
    write.sink === 'sql'
      ? sqlFenceFix(write, token, column, sourceCode)
      : write.sink === 'knex'
        ? knexFenceFix(write, token, column, sourceCode)
        : write.sink === 'object'
          ? objectFenceFix(write, token, column, sourceCode)
          : undefined;
  return fix ? { token, column: fenceColumn(write, column), storeOnly: comparesToken(write), fix } : undefined;
}
