/**
 * `--at file:LINE`: the SQL write a call on that line sends, read by the analysis core
 * (`readSqlCall`, which understands string literals, templates, postgres.js tagged templates,
 * concatenations and const identifiers), with the roles of its parameters.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BadInputError, errorMessage } from './errors.js';
import { ROLES, type Role, type SqlDialect } from './sql-understanding.js';

export interface WriteAtLocation {
  sql: string;
  dialect: SqlDialect;
  /** Guessed from the JS expressions bound to each `$n`, when every one could be named. */
  roles?: Role[];
  /** The JS expression text bound to each `$n`, for messages. */
  paramTexts: (string | undefined)[];
}

interface Located {
  sql: string;
  dialect: SqlDialect;
  paramTexts: (string | undefined)[];
  span: number;
}

export function parseLocation(spec: string): { file: string; line: number } {
  const match = /^(.*):(\d+)$/.exec(spec);
  if (!match || Number(match[2]) < 1) throw new BadInputError(`--at wants file:LINE, got "${spec}"`);
  return { file: match[1], line: Number(match[2]) };
}

export async function findWriteAt(spec: string, cwd = process.cwd()): Promise<WriteAtLocation> {
  const { file, line } = parseLocation(spec);
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read ${file}: ${errorMessage(error)}`);
  }
  const [{ Linter }, tsParser, core] = await Promise.all([
    import('eslint'),
    import('@typescript-eslint/parser'),
    import('eslint-plugin-fencelint/core') as Promise<Record<string, unknown>>,
  ]);
  const readSqlCall = core.readSqlCall as
    | ((node: unknown, sourceCode: unknown) => { source: { analysis: { text: string; dialect: SqlDialect } }; param(n: number): { range: [number, number] } | undefined } | undefined)
    | undefined;
  if (typeof readSqlCall !== 'function' || typeof core.loadSqlParser !== 'function') {
    throw new BadInputError(`no SQL write understood at ${spec}: this version of eslint-plugin-fencelint/core cannot read SQL from source`);
  }
  await (core.loadSqlParser as () => Promise<void>)();
  const found: Located[] = [];
  const visit = (context: { sourceCode: { text: string } }) => (node: { loc: { start: { line: number }; end: { line: number } }; range: [number, number] }) => {
    if (node.loc.start.line > line || node.loc.end.line < line) return;
    const call = readSqlCall(node, context.sourceCode);
    if (!call) return;
    const analysis = call.source.analysis;
    const count = Math.max(0, ...[...analysis.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const paramTexts = Array.from({ length: count }, (_, i) => {
      const p = call.param(i + 1);
      return p ? context.sourceCode.text.slice(p.range[0], p.range[1]) : undefined;
    });
    found.push({ sql: analysis.text, dialect: analysis.dialect ?? 'postgres', paramTexts, span: node.range[1] - node.range[0] });
  };
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    text,
    [
      {
        // The file is linted under a .ts/.tsx name (see below); '**/*' would not match in a flat config.
        files: ['**/*.ts', '**/*.tsx'],
        languageOptions: { parser: tsParser as never, ecmaVersion: 'latest', sourceType: 'module' },
        plugins: {
          locate: {
            rules: {
              'sql-at-line': {
                create: (context: never) => ({ CallExpression: visit(context), TaggedTemplateExpression: visit(context) }),
              },
            },
          },
        },
        rules: { 'locate/sql-at-line': 'error' },
      },
    ] as never,
    /\.tsx?$/.test(path) ? path : /\.jsx$/.test(path) ? `${path}.tsx` : `${path}.ts`,
  );
  const fatal = messages.find((m) => m.fatal || m.ruleId === null);
  if (fatal) throw new BadInputError(`cannot parse ${file}: ${fatal.message}`);
  // The innermost call on the line is the one that sends the statement.
  const write = found.sort((a, b) => a.span - b.span)[0];
  if (!write) throw new BadInputError(`no SQL write understood at ${spec}`);
  return { sql: write.sql, dialect: write.dialect, paramTexts: write.paramTexts, roles: guessRoles(write.paramTexts) };
}

/** Name each `$n` from the expression bound to it: `lease.fenceToken` is the token, `key` the key... */
export function guessRoles(paramTexts: (string | undefined)[]): Role[] | undefined {
  const roles = paramTexts.map((text): Role | undefined => {
    if (!text) return undefined;
    const last = (text.split('.').pop() ?? text).toLowerCase();
    if (/token|fence|generation|epoch|revision/.test(last)) return 'token';
    if (/op(eration)?_?id|idempotency|request_?id|dedup/.test(last)) return 'operationId';
    if (/key|^id$|_id$|name$/.test(last)) return 'key';
    if (/value|val$|data|payload|state|body|content/.test(last)) return 'value';
    return undefined;
  });
  if (roles.some((r) => r === undefined)) return undefined;
  const named = roles as Role[];
  return ROLES.every((r) => named.filter((x) => x === r).length <= 1) && named.includes('value') && named.includes('key') ? named : undefined;
}
