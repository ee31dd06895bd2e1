#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { findWriteAt, RolesNeededError } from './at-location.js';
import { checkFencing, type CheckOptions } from './check-fencing.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, InterruptedError } from './budget.js';
import { BadInputError, errorMessage } from './errors.js';
import { renderText, type CheckReport } from './report.js';
import type { SqlDialect } from './sql-understanding.js';
import { renderSvg } from './svg.js';

const USAGE = `Usage:
  fencelint-check providers [...]   (lock server conformance; see fencelint-check providers --help)
  fencelint-check --sql "<statement>" --roles value,key,token[,operationId,other...] [options]
  fencelint-check --sql-file FILE --roles ... [options]      (--sql - reads the statement from stdin)
  fencelint-check --at src/file.ts:LINE [--roles ...] [options]
  fencelint-check --module ./adapter.ts [options]

Replays the stale-write interleavings against PostgreSQL (embedded PGlite unless a server is
given; on a server, in a database the check creates and drops) and tells whether the write is
fenced. Your own tables are never touched.

Options:
  --roles LIST          role of $1, $2, ...: value, key, token, operationId, other (outside the
                        fence: bound to one fixed value of its type)
  --dialect NAME        postgres (default) or mysql (? placeholders)
  --token-column NAME   the column holding the fence token (default: found in the statement)
  --key-column NAME     the column holding the key (default: found in the statement)
  --value-column NAME   the column receiving the value (default: found in the statement)
  --schema FILE         DDL creating the table (else: the server's own table's structure, or inferred)
  --database-url URL    a real PostgreSQL server where the role may create databases
                        (default: $DATABASE_URL, else PGlite)
  --pglite              use PGlite even when DATABASE_URL is set
  --workers LIST        worker counts to explore (default 2,3; 0 skips the exploration)
  --max-expires N       expiries per explored schedule (default workers - 1)
  --max-restarts N      restarts per explored schedule (default 1)
  --json                print the JSON report instead of text
  --svg FILE            write the timeline picture (the counter-example, else the stale-write scenario)
  --verbose             print every scenario's timeline
  --progress            a progress line on stderr (default: when stderr is a terminal)
  --timeout SECONDS     overall deadline of the check (default ${DEFAULT_TIMEOUT_MS / 1000})
  --statement-timeout SECONDS
                        limit of each statement (default ${DEFAULT_STATEMENT_TIMEOUT_MS / 1000}); the check ends when one runs longer
  --version             print the version
Exit status: 0 the fence holds, 1 it is broken, 2 bad input (or out of time), 130/143 interrupted.`;

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        sql: { type: 'string' },
        'sql-file': { type: 'string' },
        roles: { type: 'string' },
        dialect: { type: 'string' },
        'token-column': { type: 'string' },
        'key-column': { type: 'string' },
        'value-column': { type: 'string' },
        schema: { type: 'string' },
        'database-url': { type: 'string' },
        pglite: { type: 'boolean' },
        at: { type: 'string' },
        module: { type: 'string' },
        workers: { type: 'string' },
        'max-expires': { type: 'string' },
        'max-restarts': { type: 'string' },
        json: { type: 'boolean' },
        svg: { type: 'string' },
        verbose: { type: 'boolean' },
        progress: { type: 'boolean' },
        timeout: { type: 'string' },
        'statement-timeout': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    process.stderr.write(`fencelint-check: ${errorMessage(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`fencelint-check ${version()}\n`);
    return 0;
  }
  const subjects = [args.sql, args['sql-file'], args.at, args.module].filter((s) => s !== undefined).length;
  if (subjects !== 1) {
    process.stderr.write(`fencelint-check: give exactly one of --sql, --sql-file, --at, --module\n\n${USAGE}\n`);
    return 2;
  }
  // Interrupted: the check cleans up (drops its scratch database) before the exit; a second signal exits at once.
  const interrupt = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupt.signal.aborted) process.exit(signalExit(signal));
      interrupt.abort(signal);
    });
  }
  const showProgress = args.progress ?? process.stderr.isTTY === true;
  try {
    const dialect = parseDialect(args.dialect);
    let sql = args['sql-file'] !== undefined ? readStatement(args['sql-file'], '--sql-file') : args.sql === '-' ? readStatement(0, '--sql -') : args.sql;
    let roles = args.roles;
    let dialectUsed = dialect;
    if (args.at !== undefined) {
      const found = await findWriteAt(args.at);
      sql = found.sql;
      dialectUsed = 'postgres'; // the core hands back the statement with $n placeholders
      if (roles === undefined) {
        if (found.roles.some((r) => r === undefined) || found.roles.length === 0) {
          const params = found.roles.map((role, i) => ({ n: i + 1, text: found.paramTexts[i], ...(role ? { role } : {}) }));
          throw new RolesNeededError(args.at, params, found.sql);
        }
        roles = found.roles.join(',');
      }
    }
    const options: CheckOptions = {
      ...(sql !== undefined ? { sql, roles: roles ?? '' } : {}),
      ...(args.module !== undefined ? { module: args.module } : {}),
      dialect: dialectUsed,
      tokenColumn: args['token-column'],
      keyColumn: args['key-column'],
      valueColumn: args['value-column'],
      schemaFile: args.schema,
      databaseUrl: args.pglite ? undefined : (args['database-url'] ?? (process.env.DATABASE_URL || undefined)),
      exploreWorkers: parseWorkers(args.workers),
      maxExpires: parseCount(args['max-expires'], '--max-expires'),
      maxRestarts: parseCount(args['max-restarts'], '--max-restarts'),
      timeoutMs: parseTimeout(args.timeout, '--timeout'),
      statementTimeoutMs: parseTimeout(args['statement-timeout'], '--statement-timeout'),
      signal: interrupt.signal,
      ...(showProgress
        ? {
            onProgress: (p) =>
              process.stderr.write(`\rexploring ${p.workers} workers: ${p.states} states, ${p.schedules} schedules`),
          }
        : {}),
    };
    if (sql !== undefined && roles === undefined) throw new BadInputError('--roles is required with --sql, e.g. --roles value,key,token');
    const report = await checkFencing(options);
    if (showProgress) process.stderr.write('\r\x1b[K');
    // The picture is an extra: failing to write it is reported, the verdict and its exit status stay.
    let svgError: string | undefined;
    if (args.svg) {
      try {
        writeFileSync(args.svg, renderSvg(pictureOf(report), titleOf(report)));
      } catch (error) {
        svgError = `cannot write --svg ${args.svg}: ${errorMessage(error)}`;
      }
    }
    process.stdout.write(
      args.json ? `${JSON.stringify(svgError ? { ...report, svgError } : report, null, 2)}\n` : `${renderText(report, { verbose: args.verbose })}\n`,
    );
    if (svgError) process.stderr.write(`fencelint-check: ${svgError} (the verdict above stands)\n`);
    return report.verdict === 'holds' ? 0 : 1;
  } catch (error) {
    if (showProgress) process.stderr.write('\r\x1b[K');
    const message = error instanceof BadInputError ? error.message : `internal error: ${errorMessage(error)}`;
    const interrupted = error instanceof InterruptedError;
    const needed =
      error instanceof RolesNeededError ? { rolesNeeded: { location: error.location, statement: error.statement, params: error.params } } : {};
    if (args.json) process.stdout.write(`${JSON.stringify({ verdict: interrupted ? 'interrupted' : 'bad-input', error: message, ...needed }, null, 2)}\n`);
    process.stderr.write(`fencelint-check: ${message}\n`);
    return interrupted && (error.reason === 'SIGINT' || error.reason === 'SIGTERM') ? signalExit(error.reason) : 2;
  }
}

function pictureOf(report: CheckReport) {
  return report.counterExample?.timeline ?? report.scenarios[0]?.timeline ?? [];
}

function titleOf(report: CheckReport): string {
  return report.verdict === 'holds'
    ? 'fencelint-check: the fence holds (stale-write scenario)'
    : `fencelint-check: broken (${report.counterExample?.invariant ?? 'invariant'})`;
}

function parseDialect(value: string | undefined): SqlDialect {
  if (value === undefined || value === 'postgres' || value === 'postgresql') return 'postgres';
  if (value === 'mysql') return 'mysql';
  throw new BadInputError(`unknown --dialect "${value}": postgres or mysql`);
}

function parseWorkers(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((v) => v.trim());
  // Number('') is 0: an empty list or entry is a mistake, not "skip the exploration".
  const counts = parts.map((v) => (/^\d+$/.test(v) ? Number(v) : Number.NaN));
  if (counts.some((n) => !Number.isInteger(n) || n < 0 || n > 4)) throw new BadInputError(`--workers wants counts from 0 to 4, got "${value}"`);
  return counts.filter((n) => n > 0);
}

function parseCount(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 0) throw new BadInputError(`${flag} wants a whole number, got "${value}"`);
  return n;
}

function parseTimeout(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds > 0)) throw new BadInputError(`${flag} wants a number of seconds above 0, got "${value}"`);
  return Math.round(seconds * 1000);
}

/** The statement from a file, or from stdin (fd 0); no size limit but the machine's. */
function readStatement(source: string | 0, flag: string): string {
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read the statement (${flag}): ${errorMessage(error)}`);
  }
  if (text.includes('\u0000')) throw new BadInputError(`the statement (${flag}) is binary, not SQL text`);
  if (text.trim() === '') throw new BadInputError(`the statement (${flag}) is empty`);
  return text;
}

function signalExit(signal: 'SIGINT' | 'SIGTERM'): number {
  return signal === 'SIGINT' ? 130 : 143;
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const argv = process.argv.slice(2);
if (argv[0] === 'providers') {
  const { runProvidersCommand } = await import('./providers/command.js');
  // Exit at once: a client library's idle timers must not hold a finished run open.
  process.exit(await runProvidersCommand(argv.slice(1)));
}
// Exit explicitly: a module's adapter may keep timers or sockets open, and the check is over.
process.exit(await main(argv));
