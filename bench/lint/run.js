// Lint benchmark: ESLint with fencelint's recommended rules versus ESLint with the same
// parser and no rules, over real JavaScript and TypeScript from installed packages plus
// our fixtures. Both run in this process through the Node API, alternating for several
// rounds after a warm-up; the medians and their ratio are printed. See README.md here.
//
//   npm run bench                     5 timed rounds per config
//   npm run bench -- --rounds 9       more rounds
//   npm run bench -- --json out.json  also write the figures as JSON
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ESLint } from 'eslint';
import { baseConfig, collectCorpus, MIN_LINES, withFencelint, withParser } from './corpus.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET_RATIO = 1.15;

function parseArgs(argv) {
  const options = { rounds: 5, json: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.split('=', 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--rounds') options.rounds = Number(value());
    else if (flag === '--json') options.json = value();
    else if (flag === '--help' || flag === '-h') {
      console.log('usage: node bench/lint/run.js [--rounds N] [--json FILE]');
      process.exit(0);
    } else {
      console.error(`unknown argument ${arg}`);
      process.exit(2);
    }
  }
  if (!Number.isInteger(options.rounds) || options.rounds < 1) {
    console.error('--rounds takes a positive integer');
    process.exit(2);
  }
  return options;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Wall time, and this process's CPU time, which other load on a shared machine disturbs less. */
async function timeLint(eslint, files) {
  const wall = performance.now();
  const cpu = cpuMs();
  const results = await eslint.lintFiles(files);
  return { ms: performance.now() - wall, cpuMs: cpuMs() - cpu, results };
}

function summarize(results) {
  let fatal = 0;
  let ignored = 0;
  const findings = [];
  for (const result of results) {
    for (const message of result.messages) {
      if (message.fatal) fatal++;
      else if (message.ruleId === null && message.message.startsWith('File ignored')) ignored++;
      else findings.push({ file: relative(root, result.filePath), line: message.line, ruleId: message.ruleId, message: message.message });
    }
  }
  return { fatal, ignored, findings };
}

/** Per-rule time from ESLint's own stats, over one extra run (not part of the medians). */
async function ruleTimes(config, files) {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config, stats: true });
  const results = await eslint.lintFiles(files);
  const rules = new Map();
  let parse = 0;
  for (const result of results) {
    for (const pass of result.stats?.times?.passes ?? []) {
      parse += pass.parse?.total ?? 0;
      for (const [ruleId, time] of Object.entries(pass.rules ?? {})) rules.set(ruleId, (rules.get(ruleId) ?? 0) + time.total);
    }
  }
  return { parse, rules: Object.fromEntries([...rules].sort((a, b) => b[1] - a[1])) };
}

const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const fencelint = (await import('eslint-plugin-fencelint')).default;
  const fastParser = await import('eslint-plugin-fencelint/fast-parser');
  const fallbacks = [];
  fastParser.setFallbackReporter((fallback) => fallbacks.push(fallback));
  const entries = collectCorpus();
  for (const name of entries.missing) console.warn(`skipped ${name}: not installed`);
  const files = entries.flatMap((entry) => entry.files);
  const lines = entries.reduce((sum, entry) => sum + entry.lines, 0);
  const tsLines = entries.reduce((sum, entry) => sum + entry.tsLines, 0);
  const bytes = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  const ourLines = entries.filter((entry) => entry.name === 'fixtures').reduce((sum, entry) => sum + entry.lines, 0);

  console.log('fencelint lint benchmark');
  console.log(`eslint ${ESLint.version}, ${fencelint.meta.name} ${fencelint.meta.version}, node ${process.version}`);
  console.log(`rules: ${Object.keys(fencelint.configs.recommended.rules).join(', ')}\n`);
  console.log('corpus:');
  for (const entry of entries) {
    console.log(`  ${`${entry.name}@${entry.version}`.padEnd(30)} ${String(entry.files.length).padStart(5)} files ${String(entry.lines).padStart(8)} lines  ${entry.dir}`);
  }
  console.log(`  ${'total'.padEnd(30)} ${String(files.length).padStart(5)} files ${String(lines).padStart(8)} lines (${tsLines} TypeScript, ${lines - ourLines} not written here, ${(bytes / 1e6).toFixed(1)} MB)\n`);
  if (lines - ourLines < MIN_LINES) {
    console.error(`the corpus has ${lines - ourLines} lines of other people's code; the benchmark needs at least ${MIN_LINES}. Run npm ci.`);
    process.exit(1);
  }

  const base = baseConfig(entries);
  const withRules = withFencelint(base, fencelint);
  // ESLint itself does more per file once any rule is on (rule contexts, selector matching over the
  // traversal); one rule that listens to nothing measures that floor, so what fencelint adds shows apart.
  const emptyRule = { meta: { type: 'problem', schema: [] }, create: () => ({}) };
  const withEmptyRule = [...base, { files: ['**/*'], plugins: { bench: { rules: { empty: emptyRule } } }, rules: { 'bench/empty': 'error' } }];
  const configs = {
    baseline: new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: base }),
    emptyRule: new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withEmptyRule }),
    fencelint: new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withRules }),
    // The same rules with the opt-in parser (eslint-plugin-fencelint/fast-parser) in place of @typescript-eslint/parser.
    fastParser: new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withParser(withRules, fastParser.default) }),
  };

  // Warm-up: fills the file cache and lets the JIT settle; not timed.
  const warm = {};
  for (const [name, eslint] of Object.entries(configs)) warm[name] = summarize((await timeLint(eslint, files)).results);
  if (warm.baseline.ignored + warm.fencelint.ignored > 0) {
    console.error('ESLint skipped some corpus files (ignored or without a matching config); the figures would be wrong.');
    process.exit(1);
  }
  if (warm.baseline.fatal !== warm.fencelint.fatal) {
    console.warn(`parse errors differ between configs: ${warm.baseline.fatal} vs ${warm.fencelint.fatal}`);
  }

  const sameFindings = JSON.stringify(warm.fastParser.findings) === JSON.stringify(warm.fencelint.findings) && warm.fastParser.fatal === warm.fencelint.fatal;
  if (!sameFindings) {
    console.error('the fast parser gives other findings than @typescript-eslint/parser; its timing would compare different work.');
    process.exit(1);
  }
  const fastCounts = { ...fastParser.parseCounts };

  const times = { baseline: [], emptyRule: [], fencelint: [], fastParser: [] };
  const cpu = { baseline: [], emptyRule: [], fencelint: [], fastParser: [] };
  for (let round = 0; round < options.rounds; round++) {
    // Alternate the order, so drift on a shared machine hits every config alike.
    const order = round % 2 === 0 ? ['baseline', 'emptyRule', 'fencelint', 'fastParser'] : ['fastParser', 'fencelint', 'emptyRule', 'baseline'];
    for (const name of order) {
      const run = await timeLint(configs[name], files);
      times[name].push(run.ms);
      cpu[name].push(run.cpuMs);
    }
    console.log(
      `round ${round + 1}/${options.rounds}: baseline ${fmt(times.baseline.at(-1))} (cpu ${fmt(cpu.baseline.at(-1))}), ` +
        `one empty rule ${fmt(times.emptyRule.at(-1))} (cpu ${fmt(cpu.emptyRule.at(-1))}), ` +
        `fencelint ${fmt(times.fencelint.at(-1))} (cpu ${fmt(cpu.fencelint.at(-1))}), ` +
        `fencelint with the fast parser ${fmt(times.fastParser.at(-1))} (cpu ${fmt(cpu.fastParser.at(-1))})`,
    );
  }

  const medianBaseline = median(times.baseline);
  const medianFencelint = median(times.fencelint);
  const wallRatio = medianFencelint / medianBaseline;
  const cpuBaseline = median(cpu.baseline);
  const cpuFencelint = median(cpu.fencelint);
  const ratio = cpuFencelint / cpuBaseline;
  const cpuEmptyRule = median(cpu.emptyRule);
  const floorRatio = cpuEmptyRule / cpuBaseline;
  const ownRatio = cpuFencelint / cpuEmptyRule;
  const cpuFast = median(cpu.fastParser);
  const fastRatio = cpuFast / cpuFencelint;
  const perRule = await ruleTimes(withRules, files);

  const ours = warm.fencelint.findings.filter((f) => f.ruleId?.startsWith('fencelint/'));
  const outside = ours.filter((f) => !f.file.startsWith('fixtures/'));
  const inFixtures = ours.length - outside.length;
  console.log('');
  console.log(`files:                   ${files.length}`);
  console.log(`lines of code:           ${lines}`);
  console.log(`parse errors:            ${warm.baseline.fatal}`);
  console.log(`baseline (parser only):  median ${fmt(medianBaseline)} wall, ${fmt(cpuBaseline)} cpu over ${options.rounds} rounds (${Math.round(lines / (cpuBaseline / 1000))} lines per cpu second)`);
  console.log(`one empty rule:          median ${fmt(median(times.emptyRule))} wall, ${fmt(cpuEmptyRule)} cpu over ${options.rounds} rounds`);
  console.log(`fencelint recommended:   median ${fmt(medianFencelint)} wall, ${fmt(cpuFencelint)} cpu over ${options.rounds} rounds`);
  console.log(`rule time (stats run):   ${Object.entries(perRule.rules).map(([id, ms]) => `${id} ${ms.toFixed(0)} ms`).join(', ') || 'none'}`);
  console.log(`fencelint findings:      ${inFixtures} in fixtures, ${outside.length} in other people's code (none hold a lock; each is a false report)`);
  for (const finding of outside.slice(0, 10)) console.log(`  ${finding.file}:${finding.line} ${finding.ruleId}`);
  console.log(`wall-time ratio:         ${wallRatio.toFixed(3)}`);
  console.log(`ESLint's floor:          ${floorRatio.toFixed(3)} (cpu time, one empty rule / baseline: what turning on any rule costs)`);
  console.log(`fencelint's own cost:    ${ownRatio.toFixed(3)} (cpu time, fencelint / one empty rule)`);
  console.log(`fast parser:             median ${fmt(median(times.fastParser))} wall, ${fmt(cpuFast)} cpu over ${options.rounds} rounds; ` +
    `${fastCounts.fast} files on the fast path, ${fastCounts.fallback} fell back${fallbacks.length ? ` (${fallbacks.map((f) => `${relative(root, f.filePath)}: ${f.reason}`).join('; ')})` : ''}; findings identical`);
  console.log(`fast-parser ratio:       ${fastRatio.toFixed(3)} (cpu time, fencelint with the fast parser / fencelint with @typescript-eslint/parser)`);
  console.log(`ratio:                   ${ratio.toFixed(3)} (cpu time, fencelint / baseline; target <= ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'not met'})`);

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    eslint: ESLint.version,
    rules: Object.keys(fencelint.configs.recommended.rules),
    corpus: entries.map(({ name, version, dir, files: list, lines: n, tsLines: t }) => ({ name, version, dir, files: list.length, lines: n, tsLines: t })),
    files: files.length,
    lines,
    rounds: options.rounds,
    wallMs: times,
    cpuMs: cpu,
    medianWallMs: { baseline: medianBaseline, emptyRule: median(times.emptyRule), fencelint: medianFencelint, fastParser: median(times.fastParser) },
    medianCpuMs: { baseline: cpuBaseline, emptyRule: cpuEmptyRule, fencelint: cpuFencelint, fastParser: cpuFast },
    fastParser: { ratio: fastRatio, files: fastCounts, fallbacks },
    wallRatio,
    floorRatio,
    ownRatio,
    ratio,
    ruleTimesMs: perRule.rules,
    findings: { fixtures: inFixtures, elsewhere: outside },
  };
  const out = options.json ? resolve(options.json) : join(root, 'bench', 'lint', 'results', 'latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwritten ${relative(root, out)}`);
}

await main();
