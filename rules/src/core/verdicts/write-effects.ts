/**
 * What a reported write is and what it does to a newer holder's data, in the words a
 * one-line message needs: "This DELETE … deletes", "This UPDATE … overwrites".
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, propertyKeyName, staticString, unwrap } from '../ast.js';
import type { WriteReading, WriteSite } from '../file-analysis.js';
import type { AcquireSite } from '../locks/acquires.js';
import { lineSuffix } from '../message-text.js';

export interface WriteEffect {
  /** `This UPDATE`, `This DELETE`, `This upsert`, `This write`. */
  what: string;
  /** What a late write of this kind can do: overwrite or delete newer data. */
  effect: 'overwrite newer data' | 'delete newer data';
}

const SQL_NAMES = { update: 'UPDATE', delete: 'DELETE', merge: 'MERGE', insert: 'upsert', select: 'write', other: 'write' } as const;

export function describeWrite(write: WriteSite | WriteReading): WriteEffect {
  const overwrite = 'overwrite newer data' as const;
  const remove = 'delete newer data' as const;
  switch (write.sink) {
    case 'sql': {
      const verdict = write.verdicts.find((v) => !v.tokenCompared || !v.tokenStored) ?? write.verdicts[0];
      const kind = verdict?.statement.kind ?? 'other';
      return { what: `This ${SQL_NAMES[kind]}`, effect: kind === 'delete' ? remove : overwrite };
    }
    case 'knex':
    case 'object': {
      const kind = write.write.kind;
      return { what: kind === 'delete' ? 'This delete' : kind === 'upsert' ? 'This upsert' : kind === 'update' ? 'This update' : 'This write', effect: kind === 'delete' ? remove : overwrite };
    }
    case 'call':
      return { what: 'This call', effect: overwrite };
    case 'api':
      return httpDelete(write.node) ? { what: 'This DELETE', effect: remove } : { what: 'This write', effect: overwrite };
  }
}

/** `axios.delete(url)` or `fetch(url, { method: 'DELETE' })`. */
function httpDelete(node: TSESTree.CallExpression | TSESTree.NewExpression): boolean {
  if (node.type !== AST_NODE_TYPES.CallExpression) return false;
  if (/^delete$/i.test(calleeName(node) ?? '')) return true;
  const options = node.arguments[1] && unwrap(node.arguments[1]);
  if (options?.type !== AST_NODE_TYPES.ObjectExpression) return false;
  return options.properties.some(
    (p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === 'method' && /^delete$/i.test(staticString(p.value) ?? ''),
  );
}

/**
 * Where the lock of a finding came from: `` `redlock.acquire` (line 12) ``, without the line when
 * it is the reported line; a lock taken inside a project helper is named by the helper's label,
 * which already says where the lock inside is (`` `withLock` (utils/lock.ts:6) ``).
 */
export function acquirePlace(acquire: AcquireSite, reportedLine: number): string {
  return acquire.origin ? acquire.label : `${acquire.label}${lineSuffix(acquire.node.loc.start.line, reportedLine)}`;
}
