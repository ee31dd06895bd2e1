#!/usr/bin/env node
// Lints public applications that take distributed locks with fencelint's recommended rules,
// whole, as their owners would, and scores the findings against a hand-written ground truth.
//
//   node docs/realworld/lint-realworld.mjs [options]
//
//   --repos FILE       the repositories to lint (default: docs/realworld/repos.json)
//   --expected FILE    the ground truth to score against (default: docs/realworld/expected.json;
//                      "none" skips scoring)
//   --mirrors DIR      where the git mirrors live, one <owner>+<name>/repo git dir per repository
//                      (default: $FENCELINT_MIRRORS or /work/.mirror)
//   --only a,b         lint only these entries of repos.json (by name)
//   --set NAME         lint the entries of this set: "tuning" (entries without "set": the
//                      applications the rules are improved against; the default unless --only
//                      names entries), "holdout" (applications measured but never tuned
//                      against), or "all". Scores are printed per set and overall
//   --json FILE        write every finding, skip and score as JSON ("-" for stdout; the summary
//                      then goes to stderr)
//   --max-bytes N      skip source files larger than N bytes (default 1000000)
//   --timeout-s N      give up on a repository after N seconds (default 900)
//   --typed            lint with type information (parserOptions.projectService); the extracted
//                      trees have no node_modules, so library types stay unresolved
//   --keep             keep the extracted trees (their paths are printed)
//   --from FILE        lint nothing: score the results of an earlier --json run again (after
//                      an edit of the ground truth)
//   --markdown FILE    rewrite the part of FILE between `<!-- measured:begin -->` and
//                      `<!-- measured:end -->` with the tables of this run: every finding with
//                      its verdict (from the ground truth), the misses, precision and recall
//   --shapes [DIR]     lint the shape fixtures (default fixtures/realworld-shapes) instead of
//                      the repositories and compare them with their `// expect:` markers:
//                      files under buggy/ report exactly at their markers, files under fixed/
//                      report nothing. Prints one line per file; exit 1 if any file fails
//   --show-truth       lint nothing: print the source line at every place the ground truth
//                      names (from the mirrors), so a reviewer can see each entry still points
//                      at the code it describes; exit 1 if a file or line does not exist
//
// The repositories' code is extracted from the mirrors into a temporary directory and never
// copied anywhere else. Each repository is linted in a child process, so a crash, a hang or
// an out-of-memory in one repository is reported for that repository and the others go on.
// Exit status: 0 when every listed repository was linted or reported missing, 2 on bad
// arguments or unreadable repos.json.
import { spawn, spawnSync, fork } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, openSync, readSync, closeSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

/** Which rule reports each category of the ground truth; null: no rule covers it yet. */
export const CATEGORY_RULES = {
  'unfenced-write': 'fencelint/require-fence-condition',
  'token-not-stored': 'fencelint/require-token-update',
  'check-then-write': 'fencelint/no-check-then-write',
  'release-by-name': 'fencelint/no-release-by-name',
  'clock-token': 'fencelint/no-clock-token',
  'memory-counter': 'fencelint/no-memory-token-counter',
  'stale-result-ignored': null,
};

const SOURCE_FILE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
// Project files a checkout has beside the sources: packages, tsconfigs and the workspace manifest
// (so a file's project and the monorepo's packages are found as in the owners' checkout).
const PROJECT_FILE = /(^|\/)(package\.json|tsconfig[\w.-]*\.json|pnpm-workspace\.yaml)$/;
const SKIPPED_NAME = /\.d\.[cm]?ts$|\.min\.js$|\.bundle\.js$/;
// Generated or vendored trees: not the application's own code.
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'build', 'out', '.next', 'coverage', 'vendor', 'bower_components', '.turbo', '.yarn']);
const CHUNK = 150;

// ----------------------------------------------------------------------------------------
// Child mode: lint one extracted tree and write the result as JSON.

async function lintTree({ dir, out, maxBytes, typed }) {
  const { ESLint } = await import('eslint');
  const tsParser = (await import('@typescript-eslint/parser')).default;
  const fencelint = (await import('eslint-plugin-fencelint')).default;

  const files = [];
  const skipped = [];
  const walk = (current) => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch (error) {
      skipped.push({ file: rel(dir, current), reason: `unreadable directory: ${error.code ?? error.message}` });
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(full);
      } else if (entry.isFile() && SOURCE_FILE.test(entry.name) && !SKIPPED_NAME.test(entry.name)) {
        const reason = unlintable(full, maxBytes);
        if (reason) skipped.push({ file: rel(dir, full), reason });
        else files.push(full);
      }
    }
  };
  walk(dir);
  files.sort();

  const eslint = new ESLint(eslintOptions(dir, { tsParser, fencelint, typed }));

  const findings = [];
  const parseErrors = [];
  const crashes = [];
  const collect = (results) => {
    for (const result of results) {
      for (const message of result.messages) {
        if (message.fatal || message.ruleId === null) {
          parseErrors.push({ file: rel(dir, result.filePath), line: message.line, message: oneLine(message.message) });
        } else if (message.ruleId.startsWith('fencelint/')) {
          findings.push({
            file: rel(dir, result.filePath),
            line: message.line,
            endLine: message.endLine ?? message.line,
            column: message.column,
            rule: message.ruleId,
            message: message.message,
          });
        }
      }
    }
  };
  const started = process.hrtime.bigint();
  for (let i = 0; i < files.length; i += CHUNK) {
    const chunk = files.slice(i, i + CHUNK);
    try {
      collect(await eslint.lintFiles(chunk));
    } catch {
      // One file broke the whole call: lint the chunk file by file to name it.
      for (const file of chunk) {
        try {
          collect(await eslint.lintFiles([file]));
        } catch (error) {
          crashes.push({ file: rel(dir, file), message: oneLine(String(error?.stack ?? error)).slice(0, 600) });
        }
      }
    }
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  writeFileSync(out, JSON.stringify({ linted: files.length, skipped, parseErrors, crashes, findings, ms }));
}

/** ESLint's options for linting a tree as its owners would: recommended rules, no type info. */
function eslintOptions(dir, { tsParser, fencelint, typed = false }) {
  // Typed: each file's nearest tsconfig (extracted with the sources); a file no project
  // includes is reported as not parsed. Library types stay unresolved (no node_modules).
  const parserOptions = typed
    ? { projectService: true, tsconfigRootDir: dir, ecmaFeatures: { jsx: true } }
    : { ecmaFeatures: { jsx: true } };
  const sources = ['**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}'];
  return {
    cwd: dir,
    overrideConfigFile: true,
    allowInlineConfig: false, // their eslint-disable comments name rules that are not loaded here
    errorOnUnmatchedPattern: false,
    overrideConfig: [
      { files: sources, languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module', parserOptions } },
      { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
      { ...fencelint.configs.recommended, files: sources },
    ],
  };
}

/** Lints the shape fixtures and compares them with their markers; true when all pass. */
async function checkShapes(dir, print) {
  if (!existsSync(dir)) fail(`no shape fixtures at ${dir}`);
  const { ESLint } = await import('eslint');
  const tsParser = (await import('@typescript-eslint/parser')).default;
  const fencelint = (await import('eslint-plugin-fencelint')).default;
  const { compareFindings, describeMismatch } = await import('../../fixtures/lib/expectations.mjs');
  const eslint = new ESLint(eslintOptions(dir, { tsParser, fencelint }));
  const files = [];
  const walk = (current) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (SOURCE_FILE.test(entry.name)) files.push(full);
    }
  };
  walk(dir);
  files.sort();
  let passed = 0;
  const byShape = new Map();
  for (const result of await eslint.lintFiles(files)) {
    const name = rel(dir, result.filePath);
    const comparison = compareFindings(result.filePath, readFileSync(result.filePath, 'utf8'), result.messages);
    const fixed = name.split('/').includes('fixed');
    const ok = comparison.ok && !(fixed && comparison.markers.length > 0);
    const shape = name.split('/')[0];
    const entry = byShape.get(shape) ?? { ok: 0, all: 0 };
    entry.all++;
    if (ok) {
      passed++;
      entry.ok++;
    }
    byShape.set(shape, entry);
    const summary = fixed ? 'must be clean' : `${comparison.matched.length}/${comparison.markers.length} expected findings`;
    print(`${ok ? 'PASS' : 'FAIL'}  ${name}  ${summary}`);
    for (const line of describeMismatch(comparison)) print(`      ${line}`);
  }
  print('');
  print(`${passed}/${files.length} files pass; shapes passing whole: ${[...byShape.values()].filter((e) => e.ok === e.all).length}/${byShape.size}`);
  return passed === files.length;
}

/** Why a file is not handed to ESLint, or undefined when it is. */
function unlintable(file, maxBytes) {
  let size;
  try {
    size = statSync(file).size;
  } catch (error) {
    return `unreadable: ${error.code ?? error.message}`;
  }
  if (size > maxBytes) return `larger than ${maxBytes} bytes (${size})`;
  const head = Buffer.alloc(Math.min(size, 8192));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.includes(0)) return 'binary';
  if (size > 20_000) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length;
    if (text.length / lines > 1000) return 'minified (average line over 1000 characters)';
  }
  return undefined;
}

// ----------------------------------------------------------------------------------------
// Parent mode: extract, lint, score, report.

function parseArgs(argv) {
  const args = {
    repos: path.join(here, 'repos.json'),
    expected: path.join(here, 'expected.json'),
    mirrors: process.env.FENCELINT_MIRRORS ?? '/work/.mirror',
    only: undefined,
    set: undefined,
    json: undefined,
    maxBytes: 1_000_000,
    timeoutS: 900,
    typed: false,
    keep: false,
    showTruth: false,
    shapes: undefined,
    markdown: undefined,
    from: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) fail(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '--repos': args.repos = path.resolve(value()); break;
      case '--expected': { const v = value(); args.expected = v === 'none' ? undefined : path.resolve(v); break; }
      case '--mirrors': args.mirrors = path.resolve(value()); break;
      case '--only': args.only = new Set(value().split(',').map((s) => s.trim()).filter(Boolean)); break;
      case '--set': args.set = value(); break;
      case '--json': { const v = value(); args.json = v === '-' ? '-' : path.resolve(v); break; }
      case '--max-bytes': args.maxBytes = positive(flag, value()); break;
      case '--timeout-s': args.timeoutS = positive(flag, value()); break;
      case '--typed': args.typed = true; break;
      case '--keep': args.keep = true; break;
      case '--markdown': args.markdown = path.resolve(value()); break;
      case '--from': args.from = path.resolve(value()); break;
      case '--show-truth': args.showTruth = true; break;
      case '--shapes': {
        const next = argv[i + 1];
        args.shapes = next && !next.startsWith('--') ? path.resolve(argv[++i]) : path.join(root, 'fixtures', 'realworld-shapes');
        break;
      }
      case '--help': case '-h':
        process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 28).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
        process.exit(0);
        break;
      default: fail(`unknown argument ${flag} (try --help)`);
    }
  }
  return args;
}

function positive(flag, text) {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) fail(`${flag} wants a positive number, not ${JSON.stringify(text)}`);
  return n;
}

function fail(message) {
  process.stderr.write(`lint-realworld: ${message}\n`);
  process.exit(2);
}

function readJson(file, what) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`cannot read ${what} ${file}: ${error.code ?? error.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    fail(`${what} ${file} is not JSON: ${error.message}`);
  }
}

function validRepos(data) {
  if (!data || !Array.isArray(data.repos)) fail('repos.json must be { "repos": [ ... ] }');
  if (data.outOfScope !== undefined && (!Array.isArray(data.outOfScope) || data.outOfScope.some((g) => typeof g !== 'string'))) fail('repos.json: "outOfScope" must be a list of glob patterns');
  const seen = new Set();
  for (const [i, r] of data.repos.entries()) {
    if (typeof r?.name !== 'string' || typeof r.repo !== 'string' || !/^[\w.-]+\/[\w.-]+$/.test(r.repo)) fail(`repos[${i}] needs "name" and "repo": "owner/name"`);
    if (typeof r.commit !== 'string' || !/^[0-9a-f]{40}$/.test(r.commit)) fail(`repos[${i}] (${r.name}) needs a 40-hex "commit"`);
    if (r.paths !== undefined && (!Array.isArray(r.paths) || r.paths.some((p) => typeof p !== 'string' || p.startsWith('/') || p.includes('..')))) fail(`repos[${i}] (${r.name}): "paths" must be relative paths inside the repository`);
    if (r.set !== undefined && (typeof r.set !== 'string' || !/^[a-z][\w-]*$/.test(r.set))) fail(`repos[${i}] (${r.name}): "set" must be a lower-case name`);
    if (seen.has(r.name)) fail(`repos[${i}]: duplicate name ${r.name}`);
    seen.add(r.name);
  }
  return data.repos;
}

function run(command, argv, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (error) => resolve({ code: -1, stdout, stderr: String(error) }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Writes the source files of `commit` under `paths` into dir, straight from the object
 * store (`git ls-tree` then one `git cat-file --batch`). Snapshots can lack large blobs, so
 * unlike `git archive` a missing object costs only its own file: it is listed, not fatal.
 * Files over maxBytes are listed and not written.
 */
async function extract(gitDir, commit, paths, dir, maxBytes) {
  const listing = await run('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '-l', commit, '--', ...(paths ?? [])]);
  if (listing.code !== 0) return { error: `git ls-tree failed: ${oneLine(listing.stderr) || `exit ${listing.code}`}` };
  const wanted = [];
  const skipped = [];
  for (const record of listing.stdout.split('\0')) {
    const match = /^(\d+) (\w+) ([0-9a-f]+) +(-|\d+)\t(.+)$/s.exec(record);
    if (!match) continue;
    const [, mode, type, sha, size, file] = match;
    if (type !== 'blob' || mode === '120000') continue; // submodules and symlinks
    if (!SOURCE_FILE.test(file) && !PROJECT_FILE.test(file)) continue;
    if (file.split('/').some((part) => part === '..' || part === '')) continue;
    if (Number(size) > maxBytes) skipped.push({ file, reason: `larger than ${maxBytes} bytes (${size})` });
    else wanted.push({ sha, file });
  }
  if (wanted.length === 0) return { error: `no source files under ${(paths ?? []).join(', ') || 'the root'} at ${commit}` };
  if (paths?.length) {
    // tsconfig, package and workspace files from the whole tree, so each file's project is found.
    const all = await run('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', commit]);
    const have = new Set(wanted.map((w) => w.file));
    for (const record of all.code === 0 ? all.stdout.split('\0') : []) {
      const match = /^\d+ blob ([0-9a-f]+)\t(.+)$/s.exec(record);
      if (match && !have.has(match[2]) && PROJECT_FILE.test(match[2]) && !match[2].split('/').includes('node_modules')) {
        wanted.push({ sha: match[1], file: match[2] });
      }
    }
  }
  const missing = await new Promise((resolve) => {
    const cat = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lost = [];
    let buffer = Buffer.alloc(0);
    let index = 0;
    cat.stdout.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const eol = buffer.indexOf(10);
        if (eol === -1) return;
        const header = buffer.subarray(0, eol).toString();
        const item = wanted[index];
        if (/ missing$/.test(header)) {
          lost.push({ file: item.file, reason: 'not in the snapshot (large or LFS object)' });
          buffer = buffer.subarray(eol + 1);
          index++;
          continue;
        }
        const size = Number(header.split(' ')[2]);
        if (buffer.length < eol + 1 + size + 1) return;
        const target = path.join(dir, item.file);
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, buffer.subarray(eol + 1, eol + 1 + size));
        buffer = buffer.subarray(eol + 1 + size + 1);
        index++;
      }
    });
    cat.on('close', () => resolve(lost));
    cat.stdin.end(wanted.map((w) => w.sha).join('\n') + '\n');
  });
  return { skipped: [...skipped, ...missing] };
}

function lintInChild(options, timeoutS) {
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(import.meta.url), ['--lint-tree', JSON.stringify(options)], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      execArgv: ['--max-old-space-size=3072'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ error: `no result after ${timeoutS} s: killed` });
    }, timeoutS * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && existsSync(options.out)) {
        try {
          resolve(JSON.parse(readFileSync(options.out, 'utf8')));
          return;
        } catch (error) {
          resolve({ error: `unreadable result: ${error.message}` });
          return;
        }
      }
      resolve({ error: `lint process ended with ${signal ?? `exit ${code}`}: ${oneLine(stderr).slice(-600)}` });
    });
  });
}

async function lintRepo(entry, args, work) {
  const gitDir = path.join(args.mirrors, entry.repo.replace('/', '+'), 'repo');
  const base = { name: entry.name, repo: entry.repo, commit: entry.commit, paths: entry.paths ?? [] };
  if (!existsSync(gitDir)) return { ...base, status: 'missing', reason: `no mirror at ${gitDir}` };
  const has = await run('git', ['--git-dir', gitDir, 'cat-file', '-e', `${entry.commit}^{commit}`]);
  if (has.code !== 0) return { ...base, status: 'missing', reason: `the mirror has no commit ${entry.commit}` };
  const dir = path.join(work, entry.name);
  mkdirSync(dir, { recursive: true });
  const extracted = await extract(gitDir, entry.commit, entry.paths, dir, args.maxBytes);
  if (extracted.error) return { ...base, status: 'failed', reason: extracted.error };
  const out = path.join(work, `${entry.name}.result.json`);
  const result = await lintInChild({ dir, out, maxBytes: args.maxBytes, typed: args.typed }, args.timeoutS);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
  if (result.error) return { ...base, status: 'failed', reason: result.error };
  return { ...base, status: 'linted', dir: args.keep ? dir : undefined, ...result, skipped: [...extracted.skipped, ...result.skipped] };
}

// ----------------------------------------------------------------------------------------
// Scoring

function overlaps(a, b) {
  const aEnd = a.endLine ?? a.line;
  const bEnd = b.endLine ?? b.line;
  return a.line <= bEnd && b.line <= aEnd;
}

/** The places a due entry can be reported at: its own line and its alternatives. */
export function placesOf(item) {
  const places = [{ file: item.file, line: item.line, endLine: item.endLine }];
  for (const alt of item.alt ?? []) {
    places.push(typeof alt === 'number' ? { file: item.file, line: alt } : { file: alt.file ?? item.file, line: alt.line, endLine: alt.endLine });
  }
  return places;
}

/**
 * Matches one repository's findings with its ground truth. A due entry is found when a
 * finding of its category's rule lies at one of its places; further findings at its places
 * are correct too (they count for precision, not again for recall).
 */
export function scoreRepo(result, truth, outOfScopeGlobs = []) {
  const due = (truth?.due ?? []).map((d) => ({ ...d, rule: CATEGORY_RULES[d.category], places: placesOf(d) }));
  const falseAlarms = truth?.falseAlarms ?? [];
  const at = (finding, item) => item.rule === finding.rule && item.places.some((p) => p.file === finding.file && overlaps(finding, p));
  const pending = [...(result.findings ?? [])];
  const matched = [];
  for (const item of due) {
    if (!item.rule) continue;
    const candidates = pending.filter((f) => at(f, item));
    const best = candidates.find((f) => f.file === item.file && f.line === item.line) ?? candidates[0];
    if (best) {
      pending.splice(pending.indexOf(best), 1);
      matched.push({ due: item, finding: best });
    }
  }
  const found = new Set(matched.map((m) => m.due));
  const missed = due.filter((d) => !found.has(d));
  const alsoCorrect = [];
  const falsePositives = [];
  const outOfScope = [];
  for (const finding of pending) {
    const item = due.find((d) => at(finding, d));
    if (item) {
      alsoCorrect.push({ due: item, finding });
      continue;
    }
    const known = falseAlarms.find((fa) => fa.file === finding.file && overlaps(finding, fa) && (!fa.rule || fa.rule === finding.rule));
    if (outOfScopeGlobs.some((g) => path.matchesGlob(finding.file, g))) outOfScope.push({ finding, why: 'path is out of scope (tests, fixtures, examples)' });
    else if (known?.verdict === 'out-of-scope') outOfScope.push({ finding, why: known.why });
    else falsePositives.push({ finding, known: known ? { class: known.class, why: known.why } : undefined });
  }
  return { matched, alsoCorrect, missed, falsePositives, outOfScope };
}

/** The set an entry belongs to: the applications tuned against unless it names another. */
export const setOf = (entry) => entry?.set ?? 'tuning';

function ratio(n, d) {
  return d === 0 ? null : Math.round((n / d) * 1000) / 1000;
}

/** Critical sections (the `lock` of due entries) with at least one due entry found. */
function sections(scores) {
  let total = 0;
  let seen = 0;
  for (const s of scores) {
    const byLock = new Map();
    for (const d of [...s.matched.map((m) => m.due), ...s.missed]) byLock.set(d.lock, byLock.get(d.lock) ?? false);
    for (const m of s.matched) byLock.set(m.due.lock, true);
    total += byLock.size;
    seen += [...byLock.values()].filter(Boolean).length;
  }
  return { total, withAFinding: seen };
}

function tally(scores) {
  const byCategory = {};
  const byRule = {};
  const cat = (c) => (byCategory[c] ??= { due: 0, found: 0 });
  const rule = (r) => (byRule[r] ??= { truePositives: 0, falsePositives: 0, outOfScope: 0, due: 0 });
  let tp = 0;
  let correct = 0; // findings at a due place beyond the first
  let fp = 0;
  let due = 0;
  let dueCorrectness = 0;
  let tpCorrectness = 0;
  for (const s of scores) {
    for (const m of s.matched) {
      tp++;
      cat(m.due.category).found++;
      rule(m.finding.rule).truePositives++;
      if (m.due.purpose !== 'efficiency') tpCorrectness++;
    }
    for (const d of [...s.matched.map((m) => m.due), ...s.missed]) {
      due++;
      cat(d.category).due++;
      if (d.rule) rule(d.rule).due++;
      if (d.purpose !== 'efficiency') dueCorrectness++;
    }
    for (const a of s.alsoCorrect) {
      correct++;
      rule(a.finding.rule).truePositives++;
    }
    for (const f of s.falsePositives) {
      fp++;
      rule(f.finding.rule).falsePositives++;
    }
    for (const o of s.outOfScope) rule(o.finding.rule).outOfScope++;
  }
  for (const c of Object.values(byCategory)) c.recall = ratio(c.found, c.due);
  for (const r of Object.values(byRule)) {
    r.precision = ratio(r.truePositives, r.truePositives + r.falsePositives);
    r.recall = null;
  }
  for (const s of scores) for (const m of s.matched) (byRule[m.finding.rule].found = (byRule[m.finding.rule].found ?? 0) + 1);
  for (const r of Object.values(byRule)) r.recall = ratio(r.found ?? 0, r.due);
  return {
    truePositives: tp + correct,
    falsePositives: fp,
    due,
    found: tp,
    precision: ratio(tp + correct, tp + correct + fp),
    recall: ratio(tp, due),
    criticalSections: sections(scores),
    recallCorrectnessLocks: ratio(tpCorrectness, dueCorrectness),
    byCategory,
    byRule,
  };
}

// ----------------------------------------------------------------------------------------
// Report

function summarise(results, scoring, print) {
  print('fencelint on real applications');
  print('');
  for (const r of results) {
    const head = `${r.name.padEnd(14)} ${r.repo}@${r.commit.slice(0, 12)}`;
    if (r.status !== 'linted') {
      print(`${head}  ${r.status.toUpperCase()}: ${r.reason}`);
      continue;
    }
    const rules = {};
    for (const f of r.findings) rules[f.rule.replace('fencelint/', '')] = (rules[f.rule.replace('fencelint/', '')] ?? 0) + 1;
    const ruleText = Object.entries(rules).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
    print(`${head}  ${r.linted} files, ${(r.ms / 1000).toFixed(1)} s; findings: ${ruleText}`);
    const notes = [];
    if (r.skipped.length) notes.push(`${r.skipped.length} skipped (${[...new Set(r.skipped.map((s) => s.reason.replace(/ \(.*/, '')))].join('; ')})`);
    if (r.parseErrors.length) notes.push(`${r.parseErrors.length} did not parse (first: ${r.parseErrors[0].file}:${r.parseErrors[0].line} ${r.parseErrors[0].message.slice(0, 80)})`);
    if (r.crashes.length) notes.push(`${r.crashes.length} CRASHED a rule (first: ${r.crashes[0].file}: ${r.crashes[0].message.slice(0, 160)})`);
    if (notes.length) print(`${' '.repeat(15)}${notes.join('; ')}`);
  }
  if (!scoring) return;
  print('');
  print('Against the ground truth');
  for (const s of scoring.repos) {
    if (s.error) {
      print(`  ${s.name}: ${s.error}`);
      continue;
    }
    print(`  ${s.name.padEnd(14)} found ${s.matched.length}/${s.matched.length + s.missed.length} due (+${s.alsoCorrect.length} more correct), ${s.falsePositives.length} false alarms, ${s.outOfScope.length} out of scope`);
    for (const f of s.falsePositives) {
      const why = f.known ? `known false alarm: ${f.known.class}` : 'not in the ground truth: triage it';
      print(`      false alarm  ${f.finding.file}:${f.finding.line}  ${f.finding.rule}  (${why})`);
    }
  }
  const t = scoring.total;
  const pct = (x) => (x === null ? 'n/a' : x.toFixed(2));
  print('');
  print(`  overall: precision ${pct(t.precision)} (${t.truePositives} correct of ${t.truePositives + t.falsePositives} scored findings), recall ${pct(t.recall)} (${t.found} of ${t.due} due); recall on correctness locks only ${pct(t.recallCorrectnessLocks)}; critical sections with a finding: ${t.criticalSections.withAFinding} of ${t.criticalSections.total}`);
  const sets = Object.entries(scoring.bySet ?? {});
  if (sets.length > 1 || (sets.length === 1 && sets[0][0] !== 'tuning')) {
    for (const [name, v] of sets) print(`  set ${name.padEnd(8)} precision ${pct(v.precision)} (${v.truePositives} correct of ${v.truePositives + v.falsePositives}), recall ${pct(v.recall)} (${v.found} of ${v.due} due)`);
  }
  print('  per category (recall):');
  for (const [c, v] of Object.entries(t.byCategory).sort()) {
    print(`    ${c.padEnd(22)} ${String(v.found).padStart(3)} / ${String(v.due).padEnd(3)} ${pct(v.recall)}${CATEGORY_RULES[c] === null ? '   (no rule covers this category)' : ''}`);
  }
  print('  per rule:');
  for (const [r, v] of Object.entries(t.byRule).sort()) {
    print(`    ${r.replace('fencelint/', '').padEnd(26)} precision ${pct(v.precision)} (${v.truePositives} correct, ${v.falsePositives} false, ${v.outOfScope} out of scope), recall ${pct(v.recall)} (${v.found ?? 0}/${v.due})`);
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  process.removeAllListeners('warning'); // path.matchesGlob is "experimental" on Node 20
  const reposFile = readJson(args.repos, 'repos list');
  const all = validRepos(reposFile);
  // Without --set or --only, only the tuning set is linted, so a held-out set stays out of sight.
  const set = args.set ?? (args.only ? 'all' : 'tuning');
  if (set !== 'all' && !all.some((r) => setOf(r) === set)) fail(`--set: no entry of set ${set} in ${args.repos} (sets: ${[...new Set(all.map(setOf))].join(', ')}, all)`);
  const entries = all.filter((r) => (!args.only || args.only.has(r.name)) && (set === 'all' || setOf(r) === set));
  if (args.only) for (const name of args.only) if (!entries.some((e) => e.name === name)) fail(`--only: no entry named ${name}${args.set ? ` in set ${args.set}` : ''} in ${args.repos}`);
  const truth = args.expected ? readJson(args.expected, 'ground truth') : undefined;
  const print = args.json === '-' ? (line) => process.stderr.write(`${line}\n`) : (line) => process.stdout.write(`${line}\n`);
  if (args.shapes) process.exit((await checkShapes(args.shapes, print)) ? 0 : 1);
  if (args.showTruth) {
    if (!truth) fail('--show-truth needs the ground truth (--expected)');
    process.exit((await showTruth(entries, truth, args, print)) ? 0 : 1);
  }

  const results = [];
  let meta = { pluginCommit: spawnSyncText('git', ['-C', root, 'log', '-1', '--format=%h', '--', 'rules/src']), headCommit: spawnSyncText('git', ['-C', root, 'rev-parse', '--short=7', 'HEAD']), date: new Date().toISOString().slice(0, 10), time: new Date().toISOString().slice(11, 16), typed: args.typed, set: args.set };
  if (args.from) {
    const earlier = readJson(args.from, 'earlier results');
    meta = earlier.meta ?? { pluginCommit: 'unknown', date: 'unknown', typed: false };
    if (!Array.isArray(earlier?.results)) fail(`${args.from} is not the JSON of an earlier run`);
    for (const entry of entries) {
      const found = earlier.results.find((r) => r.name === entry.name && r.commit === entry.commit);
      results.push(found ?? { name: entry.name, repo: entry.repo, commit: entry.commit, status: 'missing', reason: `not in ${args.from}` });
    }
  } else {
    const work = mkdtempSync(path.join(tmpdir(), 'fencelint-realworld-'));
    try {
      for (const entry of entries) {
        print(`linting ${entry.name} (${entry.repo}) ...`);
        results.push(await lintRepo(entry, args, work));
      }
    } finally {
      if (!args.keep) rmSync(work, { recursive: true, force: true });
    }
  }
  print('');

  let scoring;
  if (truth) {
    const scores = [];
    for (const r of results) {
      if (r.status !== 'linted') continue;
      const t = truth.repos?.[r.name];
      const entry = entries.find((e) => e.name === r.name);
      if (!t) {
        scores.push({ name: r.name, error: 'no ground truth for this repository' });
        continue;
      }
      if (t.commit !== r.commit) {
        scores.push({ name: r.name, error: `the ground truth is for commit ${t.commit}, repos.json lints ${r.commit}: not scored` });
        continue;
      }
      scores.push({ name: r.name, set: setOf(entry), ...scoreRepo(r, t, [...(reposFile.outOfScope ?? []), ...(entry.outOfScope ?? [])]) });
    }
    const scored = scores.filter((s) => !s.error);
    const bySet = {};
    for (const name of [...new Set(scored.map((s) => s.set))].sort()) bySet[name] = tally(scored.filter((s) => s.set === name));
    const byRepo = {};
    for (const s of scored) byRepo[s.name] = tally([s]);
    scoring = { repos: scores, total: tally(scored), bySet, byRepo };
  }
  summarise(results, scoring, print);

  if (args.markdown) {
    if (!scoring) fail('--markdown needs the ground truth (--expected)');
    if (set === 'all' && Object.keys(scoring.bySet).length > 1) fail('--markdown: give --set (tuning or holdout); each set has its own measured section');
    writeMarkdown(args.markdown, measuredMarkdown(results, scoring, truth, meta), set !== 'all' && set !== 'tuning' ? set : undefined);
    print(`\nmeasured tables written into ${args.markdown}`);
  }

  if (args.json) {
    const data = JSON.stringify({ meta, results, scoring }, null, 2);
    if (args.json === '-') process.stdout.write(`${data}\n`);
    else {
      const stream = createWriteStream(args.json);
      stream.end(`${data}\n`);
      print(`\nJSON written to ${args.json}`);
    }
  }
}

const BEGIN = '<!-- measured:begin -->';
const END = '<!-- measured:end -->';

/** Rewrites the measured section of FILE; a set other than the tuning one has its own section. */
function writeMarkdown(file, body, set) {
  const begin = set ? `<!-- measured:${set}:begin -->` : BEGIN;
  const end = set ? `<!-- measured:${set}:end -->` : END;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : `${begin}\n${end}\n`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from === -1 || to < from) fail(`${file} has no ${begin} ... ${end} section`);
  writeFileSync(file, `${text.slice(0, from + begin.length)}\n${body}\n${text.slice(to)}`);
}

const cell = (text) => String(text ?? '').replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const pctText = (x) => (x === null || x === undefined ? 'n/a' : x.toFixed(2));

/** The generated part of docs/realworld.md. */
function measuredMarkdown(results, scoring, truth, meta) {
  const out = [];
  const t = scoring.total;
  out.push(`Measured on ${meta.date}${meta.time ? ` ${meta.time} UTC` : ''}${meta.headCommit ? ` at \`${meta.headCommit}\`` : ''} with the analysis as of commit \`${meta.pluginCommit}\` (the last change to \`rules/src\`; build it first), recommended config, ${meta.typed ? 'with' : 'no'} type information${meta.set ? `, set \`${meta.set}\`` : ''}.`);
  out.push('');
  out.push('| | |');
  out.push('|---|---|');
  out.push(`| precision | **${pctText(t.precision)}** (${t.truePositives} correct of ${t.truePositives + t.falsePositives} scored findings) |`);
  out.push(`| recall | **${pctText(t.recall)}** (${t.found} of ${t.due} due findings) |`);
  out.push(`| recall, correctness locks only | ${pctText(t.recallCorrectnessLocks)} |`);
  out.push(`| critical sections with at least one finding | ${t.criticalSections.withAFinding} of ${t.criticalSections.total} |`);
  out.push('');
  out.push('| category | rule | due | found | recall |');
  out.push('|---|---|--:|--:|--:|');
  for (const [c, v] of Object.entries(t.byCategory).sort()) out.push(`| ${c} | ${CATEGORY_RULES[c] ? `\`${CATEGORY_RULES[c].replace('fencelint/', '')}\`` : 'none yet'} | ${v.due} | ${v.found} | ${pctText(v.recall)} |`);
  out.push('');
  out.push('| rule | correct | false alarms | out of scope | precision | recall |');
  out.push('|---|--:|--:|--:|--:|--:|');
  for (const [r, v] of Object.entries(t.byRule).sort()) out.push(`| \`${r.replace('fencelint/', '')}\` | ${v.truePositives} | ${v.falsePositives} | ${v.outOfScope} | ${pctText(v.precision)} | ${pctText(v.recall)} |`);
  out.push('');
  if (scoring.bySet && Object.keys(scoring.bySet).length > 1) {
    out.push('| set | precision | recall | due |');
    out.push('|---|--:|--:|--:|');
    for (const [name, v] of Object.entries(scoring.bySet)) out.push(`| ${name} | ${pctText(v.precision)} | ${pctText(v.recall)} | ${v.due} |`);
    out.push('');
  }
  out.push('| repository | due | found | correct findings | false alarms | precision | recall |');
  out.push('|---|--:|--:|--:|--:|--:|--:|');
  for (const s of scoring.repos) {
    if (s.error) continue;
    const v = scoring.byRepo?.[s.name] ?? tally([s]);
    out.push(`| ${truth.repos[s.name].repo} | ${v.due} | ${v.found} | ${v.truePositives} | ${v.falsePositives} | ${pctText(v.precision)} | ${pctText(v.recall)} |`);
  }
  out.push('');
  out.push('### Runs');
  out.push('');
  out.push('| repository | commit | files linted | skipped | did not parse | rule crashes | findings |');
  out.push('|---|---|--:|--:|--:|--:|--:|');
  for (const r of results) {
    if (r.status !== 'linted') {
      out.push(`| ${r.repo} | \`${r.commit.slice(0, 12)}\` | ${r.status}: ${cell(r.reason)} | | | | |`);
      continue;
    }
    out.push(`| ${r.repo} | \`${r.commit.slice(0, 12)}\` | ${r.linted} | ${r.skipped.length} | ${r.parseErrors.length} | ${r.crashes.length} | ${r.findings.length} |`);
  }
  out.push('');
  out.push('### Every finding');
  out.push('');
  out.push('| repository | file:line | rule | verdict |');
  out.push('|---|---|---|---|');
  for (const s of scoring.repos) {
    if (s.error) continue;
    const repo = truth.repos[s.name];
    const rows = [
      ...[...s.matched, ...s.alsoCorrect].map(({ due, finding }) => ({ finding, verdict: `true problem (${due.category}): ${due.why}` })),
      ...s.falsePositives.map(({ finding, known }) => ({ finding, verdict: known ? `false alarm (${known.class}): ${known.why}` : 'not triaged yet' })),
      ...s.outOfScope.map(({ finding, why }) => ({ finding, verdict: `out of scope: ${why}` })),
    ].sort((a, b) => a.finding.file.localeCompare(b.finding.file) || a.finding.line - b.finding.line);
    for (const { finding, verdict } of rows) {
      out.push(`| ${repo.repo} | \`${finding.file}:${finding.line}\` | \`${finding.rule.replace('fencelint/', '')}\` | ${cell(verdict)} |`);
    }
  }
  out.push('');
  out.push('### Misses');
  out.push('');
  out.push('| repository | file:line | category | why a finding is due |');
  out.push('|---|---|---|---|');
  for (const s of scoring.repos) {
    if (s.error) continue;
    const repo = truth.repos[s.name];
    for (const d of s.missed) out.push(`| ${repo.repo} | \`${d.file}:${d.line}\` | ${d.category}${d.purpose === 'efficiency' ? ' (efficiency lock)' : ''} | ${cell(d.why)} |`);
  }
  return out.join('\n');
}

function spawnSyncText(command, argv) {
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : 'unknown';
}

/** Prints the source line behind every place of the ground truth; false when one is missing. */
async function showTruth(entries, truth, args, print) {
  let ok = true;
  for (const entry of entries) {
    const t = truth.repos?.[entry.name];
    if (!t) continue;
    const gitDir = path.join(args.mirrors, entry.repo.replace('/', '+'), 'repo');
    if (!existsSync(gitDir)) {
      print(`${entry.name}: no mirror, skipped`);
      continue;
    }
    const files = new Map();
    const lineOf = async (file, line) => {
      if (!files.has(file)) {
        const shown = await run('git', ['--git-dir', gitDir, 'show', `${t.commit}:${file}`]);
        files.set(file, shown.code === 0 ? shown.stdout.split('\n') : undefined);
      }
      const lines = files.get(file);
      if (!lines) return undefined;
      return line >= 1 && line <= lines.length ? lines[line - 1] : undefined;
    };
    print(`== ${entry.name} ${entry.repo}@${t.commit.slice(0, 12)}`);
    const groups = [
      ['due', t.due ?? []],
      ['false alarm', t.falseAlarms ?? []],
      ['beyond the docs', t.beyondDocs ?? []],
      ['lock', t.locks ?? []],
    ];
    for (const [kind, items] of groups) {
      for (const item of items) {
        const places = kind === 'due' ? placesOf(item) : item.line ? [{ file: item.file, line: item.line }] : [];
        for (const [i, place] of places.entries()) {
          const text = await lineOf(place.file, place.line);
          if (text === undefined) ok = false;
          const label = i === 0 ? `${kind}${item.category ? ` ${item.category}` : ''}${item.class ? ` ${item.class}` : ''}` : '  also at';
          print(`  ${label.padEnd(34)} ${place.file}:${place.line}  ${text === undefined ? 'MISSING (no such file or line)' : text.trim().slice(0, 110)}`);
        }
        if (kind === 'due' && item.check) {
          const text = await lineOf(item.file, item.check);
          if (text === undefined) ok = false;
          print(`  ${'  check at'.padEnd(34)} ${item.file}:${item.check}  ${text === undefined ? 'MISSING' : text.trim().slice(0, 110)}`);
        }
      }
    }
  }
  return ok;
}

function rel(dir, file) {
  return path.relative(dir, file).split(path.sep).join('/');
}

function oneLine(text) {
  return String(text).replace(/\s+/g, ' ').trim();
}

if (process.argv[2] === '--lint-tree') {
  lintTree(JSON.parse(process.argv[3])).then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(String(error?.stack ?? error));
      process.exit(1);
    },
  );
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main();
}
