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
  /** Named from the analysis: undefined where it cannot tell (then ask). */
  roles: (Role | undefined)[];
  /** The JS expression text bound to each `$n`, for messages. */
  paramTexts: (string | undefined)[];
}

interface Located {
  sql: string;
  dialect: SqlDialect;
  paramTexts: (string | undefined)[];
  roles: (Role | undefined)[];
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
    | ((node: unknown, sourceCode: unknown) => { source: { analysis: AnalysisLike }; param(n: number): AstNode | undefined } | undefined)
    | undefined;
  const analyzeFile = core.analyzeFile as ((sourceCode: unknown, settings: unknown) => { tracer: { isToken(node: unknown): boolean } }) | undefined;
  if (typeof readSqlCall !== 'function' || typeof core.loadSqlParser !== 'function') {
    throw new BadInputError(`no SQL write understood at ${spec}: this version of eslint-plugin-fencelint/core cannot read SQL from source`);
  }
  await (core.loadSqlParser as () => Promise<void>)();
  const found: Located[] = [];
  const visit = (context: { sourceCode: { text: string }; settings?: unknown }) => (node: AstNode & { loc: { start: { line: number }; end: { line: number } } }) => {
    if (node.loc.start.line > line || node.loc.end.line < line) return;
    const call = readSqlCall(node, context.sourceCode);
    if (!call) return;
    const analysis = call.source.analysis;
    const count = Math.max(0, ...[...analysis.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const nodes = Array.from({ length: count }, (_, i) => call.param(i + 1));
    const paramTexts = nodes.map((p) => (p ? context.sourceCode.text.slice(p.range[0], p.range[1]) : undefined));
    // The token is what the core's token tracer says is one (the acquire handle's token, a durable counter).
    const tracer = analyzeFile?.(context.sourceCode, context.settings ?? {}).tracer;
    const isToken = nodes.map((p) => (p && tracer ? safe(() => tracer.isToken(p)) : false));
    found.push({ sql: analysis.text, dialect: analysis.dialect ?? 'postgres', paramTexts, roles: rolesFromStatement(analysis, isToken), span: node.range[1] - node.range[0] });
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
  return { sql: write.sql, dialect: write.dialect, paramTexts: write.paramTexts, roles: write.roles };
}

type AstNode = { range: [number, number] };
interface AnalysisLike {
  text: string;
  dialect?: SqlDialect;
  statements: {
    kind: string;
    range: { start: number; end: number };
    conditions: { column: string; op: string; value: { params: number[] } }[];
    assignments: { column: string; value: { params: number[] } }[];
    insertedValues?: { column: string; value: { params: number[] } }[];
  }[];
}

function safe<T>(run: () => T): T | false {
  try {
    return run();
  } catch {
    return false;
  }
}

/**
 * The role of each `$n`, from the analysis rather than from names: the token is what the token
 * tracer recognises, or a parameter compared with a column and stored in it (`fence_token <
 * $3 ... SET fence_token = $3`); the key is matched with `=` in the write's condition; the value
 * is what SET (or the INSERT) writes otherwise. A parameter none of these names stays undefined:
 * the caller asks for it (`--roles`, or the editor's quick pick).
 */
export function rolesFromStatement(analysis: AnalysisLike, isToken: boolean[]): (Role | undefined)[] {
  const writes = analysis.statements.filter((s) => ['update', 'insert', 'delete', 'merge'].includes(s.kind));
  // The outermost write is the statement; writes inside its CTEs (a fence table) help name the token and key.
  const main = writes.sort((a, b) => b.range.end - b.range.start - (a.range.end - a.range.start))[0];
  const roles = isToken.map((traced, i): Role | undefined => {
    const n = i + 1;
    const reads = (v: { params: number[] }) => v.params.includes(n);
    const compared = writes.flatMap((s) => s.conditions.filter((c) => reads(c.value) && c.op !== '=').map((c) => c.column));
    const stored = writes.flatMap((s) => [...s.assignments, ...(s.insertedValues ?? [])].filter((a) => reads(a.value)).map((a) => a.column));
    if (traced || compared.some((c) => stored.includes(c))) return 'token';
    if (writes.some((s) => s.conditions.some((c) => c.op === '=' && reads(c.value)))) return 'key';
    if (!main) return undefined;
    // An upsert's inserted value that DO UPDATE does not change is its conflict key.
    if (main.kind === 'insert' && main.insertedValues?.some((a) => reads(a.value)) && !main.assignments.some((a) => reads(a.value))) return 'key';
    if (main.assignments.some((a) => reads(a.value)) && compared.length === 0) return 'value';
    return undefined;
  });
  // Several parameters written alike (`SET body = $1, edited_at = $4`): which one is the value,
  // and whether another is an unrecognised token, only the caller can say.
  if (roles.filter((r) => r === 'value').length > 1) return roles.map((r) => (r === 'value' ? undefined : r));
  return roles;
}

/** `--at` found the write but could not name every parameter; carries what it knows, for the caller to ask. */
export class RolesNeededError extends BadInputError {
  constructor(
    readonly location: string,
    readonly params: { n: number; text?: string; role?: Role }[],
    /** The statement with its `$n` placeholders. */
    readonly statement?: string,
  ) {
    super(
      `the write at ${location} binds ${params.map((p) => `$${p.n}=${p.text ?? '?'}${p.role ? ` (${p.role})` : ' (role unknown)'}`).join(', ')}; ` +
        `give the roles of all of them with --roles ${params.map((p) => p.role ?? '?').join(',')}, each ? one of: ${ROLES.join(', ')}`,
    );
  }
}
