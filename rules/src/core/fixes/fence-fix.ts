/**
 * Builds the suggestion that fences a write: the token comparison in its condition, the
 * token in its SET list, and the token in its parameter list, keeping the user's layout.
 * Returns undefined whenever the edit cannot be made exactly (no token in scope, values
 * given through a variable, SQL text that does not map back to the source).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { RuleFix, RuleFixer, SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, propertyKeyName, propertyValue, unwrap } from '../ast.js';
import type { KnexWriteSite, ObjectWriteSite, SqlWriteSite } from '../file-analysis.js';
import { camel } from '../sinks/object-writes.js';
import { planFenceEdit } from '../sql/index.js';

export type FixBuilder = (fixer: RuleFixer) => RuleFix[];

export interface Edit {
  range: TSESTree.Range;
  text: string;
}

export function toFixes(edits: Edit[]): FixBuilder {
  return (fixer) => edits.map((e) => (e.range[0] === e.range[1] ? fixer.insertTextAfterRange(e.range, e.text) : fixer.replaceTextRange(e.range, e.text)));
}

/** Text for an argument list position: `, token` after the last element, respecting a trailing comma. */
function appendToArray(array: TSESTree.ArrayExpression, text: string, sourceCode: SourceCode): Edit {
  const last = array.elements[array.elements.length - 1];
  if (!last) return { range: [array.range[0] + 1, array.range[0] + 1], text };
  const closing = sourceCode.getLastToken(array)!;
  const before = sourceCode.getTokenBefore(closing)!;
  if (before.value === ',') return { range: [before.range[1], before.range[1]], text: ` ${text},` };
  return { range: [last.range[1], last.range[1]], text: `, ${text}` };
}

function insertIntoArray(array: TSESTree.ArrayExpression, index: number, text: string, sourceCode: SourceCode): Edit | undefined {
  if (index >= array.elements.length) return appendToArray(array, text, sourceCode);
  const element = array.elements[index];
  if (!element) return undefined;
  return { range: [element.range[0], element.range[0]], text: `${text}, ` };
}

export function sqlFenceFix(site: Omit<SqlWriteSite, 'acquire'>, token: string, column: string, sourceCode: SourceCode): FixBuilder | undefined {
  const verdict = site.verdicts.find((v) => !v.tokenCompared || !v.tokenStored);
  if (!verdict) return undefined;
  const { call } = site;
  const { source } = call;
  const analysis = source.analysis;
  const tagged = source.kind === 'tagged-template';
  const mysql = analysis.dialect === 'mysql';
  const useColumn = verdict.column ?? column;

  let placeholder: string;
  const extra: Edit[] = [];
  if (tagged) {
    placeholder = `\${${token}}`;
  } else if (call.valuesArray) {
    if (mysql) placeholder = '?';
    else {
      const existing = call.valuesArray.elements.findIndex((e) => e !== null && sourceCode.getText(e) === token);
      placeholder = `$${existing >= 0 ? existing + 1 : Math.max(call.valuesArray.elements.length, ...analysis.statements.flatMap((s) => s.params)) + 1}`;
      if (existing < 0) extra.push(appendToArray(call.valuesArray, token, sourceCode));
    }
  } else if (call.valuesMissingAfter && analysis.statements.every((s) => s.params.length === 0)) {
    placeholder = mysql ? '?' : '$1';
    extra.push({ range: [call.valuesMissingAfter.range[1], call.valuesMissingAfter.range[1]], text: `, [${token}]` });
  } else {
    return undefined;
  }

  const sqlEdits = planFenceEdit(analysis, verdict.statement, {
    column: useColumn,
    tokenPlaceholder: placeholder,
    compare: !verdict.tokenCompared,
    store: !verdict.tokenStored,
    newline: sourceCode.text.includes('\r\n') ? '\r\n' : '\n',
  });
  if (sqlEdits.length === 0) return undefined;
  const quoted = source.kind === 'literal' && /^['"]/.test(sourceCode.text[sourceStart(call) ?? 0] ?? '');
  const edits: Edit[] = [];
  let insertedValues = 0;
  for (const edit of [...sqlEdits].sort((a, b) => a.offset - b.offset)) {
    const start = source.toSourceIndex(edit.offset);
    const end = edit.deleteCount > 0 ? source.toSourceIndex(edit.offset + edit.deleteCount) : start;
    if (start === undefined || end === undefined) return undefined;
    // A quoted string cannot hold a raw line break: keep the insertion on one line there.
    const text = quoted ? edit.insert.replace(/\s*\n\s*/g, ' ') : edit.insert;
    edits.push({ range: [start, end], text });
    if (mysql && call.valuesArray) {
      // Indexes are positions in the final list; the k-th insertion lands before original element (index - k).
      for (const index of edit.valueIndexes ?? []) {
        const insert = insertIntoArray(call.valuesArray, index - insertedValues, token, sourceCode);
        if (!insert) return undefined;
        extra.push(insert);
        insertedValues++;
      }
    }
  }
  return toFixes(mergeSameRange([...edits, ...extra]));
}

/** The source index of the SQL text's opening quote, for plain literals. */
function sourceStart(call: SqlWriteSite['call']): number | undefined {
  const index = call.source.toSourceIndex(0);
  return index === undefined ? undefined : index - 1;
}

/** ESLint rejects overlapping fix ranges; edits at one point are joined in order. */
function mergeSameRange(edits: Edit[]): Edit[] {
  const sorted = [...edits].sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
  const out: Edit[] = [];
  for (const edit of sorted) {
    const last = out[out.length - 1];
    if (last && last.range[0] === edit.range[0] && last.range[1] === edit.range[1] && edit.range[0] === edit.range[1]) last.text += edit.text;
    else out.push({ ...edit });
  }
  return out;
}

export function knexFenceFix(site: Omit<KnexWriteSite, 'acquire'>, token: string, column: string, sourceCode: SourceCode): FixBuilder | undefined {
  const { write, verdict } = site;
  const useColumn = verdict.column ?? column;
  const edits: Edit[] = [];
  if (!verdict.tokenCompared) {
    const callee = unwrap(write.node.callee);
    if (callee.type !== AST_NODE_TYPES.MemberExpression) return undefined;
    if (write.kind === 'upsert') {
      const qualified = write.table ? `${write.table}.${useColumn}` : useColumn;
      edits.push({ range: [write.node.range[1], write.node.range[1]], text: `.where('${qualified}', '<', ${token})` });
    } else {
      // Same line break and indentation as the link it precedes, when the chain is one link per line.
      const between = sourceCode.text.slice(callee.object.range[1], callee.property.range[0]);
      const lineBreak = /\n[ \t]*/.exec(between)?.[0] ?? '';
      edits.push({ range: [callee.object.range[1], callee.object.range[1]], text: `${lineBreak}.where('${useColumn}', '<', ${token})` });
    }
  }
  if (!verdict.tokenStored || (!verdict.tokenCompared && write.kind !== 'delete')) {
    const stores = write.values?.properties.some((p) => p.type === AST_NODE_TYPES.Property && (propertyKeyName(p) ?? '') === useColumn);
    if (!stores) {
      if (!write.values) return undefined;
      edits.push(appendProperty(write.values, `${useColumn}: ${token}`, sourceCode));
    }
  }
  return edits.length > 0 ? toFixes(edits) : undefined;
}

export function appendProperty(object: TSESTree.ObjectExpression, text: string, sourceCode: SourceCode): Edit {
  const last = object.properties[object.properties.length - 1];
  if (!last) return { range: [object.range[0] + 1, object.range[0] + 1], text: ` ${text} ` };
  const closing = sourceCode.getLastToken(object)!;
  const before = sourceCode.getTokenBefore(closing)!;
  const multiline = last.loc.start.line !== object.loc.start.line;
  const indent = multiline ? /^[ \t]*/.exec(sourceCode.lines[last.loc.start.line - 1])![0] : '';
  if (before.value === ',') {
    return { range: [before.range[1], before.range[1]], text: multiline ? `\n${indent}${text},` : ` ${text},` };
  }
  return { range: [last.range[1], last.range[1]], text: multiline ? `,\n${indent}${text}` : `, ${text}` };
}

/** Prisma, MongoDB and MikroORM filters: add `{ <key>: { lt|$lt: token } }` and store the token with the values. */
export function objectFenceFix(site: Omit<ObjectWriteSite, 'acquire'>, token: string, column: string, sourceCode: SourceCode): FixBuilder | undefined {
  const { write, verdict } = site;
  if (write.api === 'object') return ownClientFenceFix(site, token, column, sourceCode);
  if (write.api === 'supabase') return supabaseFenceFix(site, token, column, sourceCode);
  if (write.api !== 'prisma' && write.api !== 'mongodb' && write.api !== 'mikro-orm') return undefined;
  if (!write.filter) return undefined;
  const snakeStyle = write.filter.properties.some((p) => p.type === AST_NODE_TYPES.Property && /^[a-z][a-z0-9]*_[a-z]/.test(propertyKeyName(p) ?? ''));
  const key = verdict.column ?? (snakeStyle ? column : camel(column));
  const op = write.api === 'prisma' ? 'lt' : '$lt';
  const edits: Edit[] = [];
  if (!verdict.tokenCompared) edits.push(appendProperty(write.filter, `${key}: { ${op}: ${token} }`, sourceCode));
  if (write.kind !== 'delete') {
    if (!write.values) return undefined;
    const stores = write.values.properties.some((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === key);
    if (!stores) edits.push(appendProperty(write.values, key === token ? key : `${key}: ${token}`, sourceCode));
  }
  return edits.length > 0 ? toFixes(edits) : undefined;
}

/**
 * Supabase: the filter is one more link after the write (`.update({...}).lt('fence_token', t)`),
 * and the token is stored with the values. An upsert cannot be filtered: no fix.
 */
function supabaseFenceFix(site: Omit<ObjectWriteSite, 'acquire'>, token: string, column: string, sourceCode: SourceCode): FixBuilder | undefined {
  const { write, verdict } = site;
  if (write.kind === 'upsert') return undefined;
  const link = write.links.find((l) => calleeName(l) === write.method);
  if (!link) return undefined;
  const key = verdict.column ?? column;
  const edits: Edit[] = [];
  if (!verdict.tokenCompared) edits.push({ range: [link.range[1], link.range[1]], text: fill(write.model.fence.compare, key, token) });
  if (write.kind !== 'delete') {
    if (!write.values) return undefined;
    const stores = write.values.properties.some((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === key);
    if (!stores) edits.push(appendProperty(write.values, key === token ? key : `${key}: ${token}`, sourceCode));
  }
  return edits.length > 0 ? toFixes(edits) : undefined;
}

function fill(template: string, column: string, token: string): string {
  return template.replace(/\{column\}/g, column).replace(/\{token\}/g, token);
}

/**
 * A project's own client: the entry's `fence.compare` goes into the condition object (made
 * when the call has none: `{ headers: { 'If-Match': ... } }` as the missing argument), its
 * `fence.store` into the values object.
 */
function ownClientFenceFix(site: Omit<ObjectWriteSite, 'acquire'>, token: string, column: string, sourceCode: SourceCode): FixBuilder | undefined {
  const { write, verdict } = site;
  const entry = write.model.writes.find((w) => w.method === write.method);
  const node = write.node;
  if (!entry || node.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const key = verdict.column ?? camel(column);
  const edits: Edit[] = [];
  if (!verdict.tokenCompared) {
    const compare = fill(write.model.fence.compare, key, token);
    if (write.filter) edits.push(appendProperty(write.filter, compare, sourceCode));
    else {
      const place = entry.filter;
      if (!place) return undefined;
      const wrap = (text: string, path: readonly string[]) => path.reduceRight((inner, name) => `{ ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)}: ${inner} }`, text);
      const arg = node.arguments[place.arg];
      if (!arg) {
        // Only the next argument can be added; a gap would need placeholders the call does not have.
        if (place.arg !== node.arguments.length) return undefined;
        const text = wrap(`{ ${compare} }`, place.property ?? []);
        const last = node.arguments[node.arguments.length - 1];
        edits.push(last ? { range: [last.range[1], last.range[1]], text: `, ${text}` } : { range: [node.range[1] - 1, node.range[1] - 1], text });
      } else {
        // The argument is an object without (part of) the property path: add the rest there.
        let host = unwrap(arg) as TSESTree.ObjectExpression;
        const path = place.property ?? [];
        let depth = 0;
        for (; depth < path.length; depth++) {
          const inner = propertyValue(host, path[depth]);
          if (!inner) break;
          host = unwrap(inner) as TSESTree.ObjectExpression;
        }
        const rest = path.slice(depth);
        if (rest.length === 0) edits.push(appendProperty(host, compare, sourceCode));
        else {
          const [first, ...more] = rest;
          edits.push(appendProperty(host, `${/^[A-Za-z_$][\w$]*$/.test(first) ? first : JSON.stringify(first)}: ${wrap(`{ ${compare} }`, more)}`, sourceCode));
        }
      }
    }
  }
  const store = write.model.fence.store;
  if (store && write.kind !== 'delete' && (!verdict.tokenCompared || !verdict.tokenStored)) {
    // A compare without the store would leave later stale writes passing: no half edit.
    if (!write.values) return undefined;
    const stores = write.values.properties.some((p) => p.type === AST_NODE_TYPES.Property && propertyKeyName(p) === key);
    if (!stores) edits.push(appendProperty(write.values, fill(store, key, token), sourceCode));
  }
  return edits.length > 0 ? toFixes(edits) : undefined;
}
