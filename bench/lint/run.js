// Lint benchmark: what fencelint's recommended rules cost on top of typescript-eslint's
// `recommended` (same parser, same process), over three corpora: real JavaScript and TypeScript
// from installed packages (the library corpus), our fixture services (every one takes a lock),
// and a generated application of several hundred modules with shared lock helpers and
// repositories (the project corpus). Also, on the library corpus: against the parser alone, one
// empty rule, and the fast parser (whose findings must equal the default parser's on the services too).
// All run through the Node API, alternating for several rounds after a warm-up; the medians
// and their ratios are printed. See README.md here.
//
//   npm run bench                     5 timed rounds per config
//   npm run bench -- --rounds 9       more rounds
//   npm run bench -- --corpus project the generated project corpus only
//   npm run bench -- --json out.json  also write the figures as JSON
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ESLint } from 'eslint';
import { baseConfig, collectCorpus, MIN_LINES, projectBaseConfig, withFencelint, withParser, withTsRecommended } from './corpus.js';
import { MIN_PROJECT_FILES, MIN_PROJECT_LINES, writeProjectCorpus } from './project-corpus.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET_RATIO = 1.15;
/** fencelint on top of typescript-eslint's recommended, on each corpus. */
const TARGET_ON_TS_RECOMMENDED = 1.05;

function parseArgs(argv) {
  const options = { rounds: 5, json: undefined, corpus: 'both' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.split('=', 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--rounds') options.rounds = Number(value());
    else if (flag === '--json') options.json = value();
    else if (flag === '--corpus') options.corpus = value();
    else if (flag === '--help' || flag === '-h') {
      console.log('usage: node bench/lint/run.js [--rounds N] [--corpus both|project] [--json FILE]');
      process.exit(0);
    } else {
      console.error(`unknown argument ${arg}`);
      process.exit(2);
    }
  }
  if (!['both', 'project'].includes(options.corpus)) {
    console.error('--corpus takes both or project');
    process.exit(2);
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
  // Every run starts without cached module summaries, as one `eslint` process does.
  projectGraph.clear();
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
  projectGraph.clear();
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

// The plugin's module-summary cache, cleared before each timed run (the same module instance the plugin uses).
const { projectGraph } = await import(new URL('../../rules/dist/core/modules/module-graph.js', import.meta.url).href);

/** Runs each config once to warm up, then `rounds` alternating rounds; CPU and wall medians per config. */
async function measure(configs, files, rounds, label, afterWarmUp = () => {}) {
  const names = Object.keys(configs);
  const warm = {};
  for (const name of names) warm[name] = summarize((await timeLint(configs[name], files)).results);
  afterWarmUp();
  const times = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    // Alternate the order, so drift on a shared machine hits every config alike.
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const run = await timeLint(configs[name], files);
      times[name].push(run.ms);
      cpu[name].push(run.cpuMs);
    }
    console.log(`${label} round ${round + 1}/${rounds}: ${names.map((n) => `${n} ${fmt(times[n].at(-1))} (cpu ${fmt(cpu[n].at(-1))})`).join(', ')}`);
  }
  const medianWall = Object.fromEntries(names.map((n) => [n, median(times[n])]));
  const medianCpu = Object.fromEntries(names.map((n) => [n, median(cpu[n])]));
  return { warm, times, cpu, medianWall, medianCpu };
}

/** The fencelint findings against the `// expect:` markers the generated corpus carries. */
function compareToMarkers(findings, expected, dir) {
  const got = findings.filter((f) => f.ruleId?.startsWith('fencelint/')).map((f) => `${relative(dir, join(root, f.file)).split('\\').join('/')}:${f.line} ${f.ruleId}`).sort();
  const want = new Set(expected);
  const have = new Set(got);
  return { found: got.length, missing: expected.filter((e) => !have.has(e)), unexpected: got.filter((g) => !want.has(g)) };
}

/** The generated application: lock helpers in shared modules, repositories, a few unfenced writes. */
async function measureProject(fencelint, eslintWith, rounds) {
  const project = writeProjectCorpus();
  if (project.files.length < MIN_PROJECT_FILES || project.lines < MIN_PROJECT_LINES) {
    console.error(`the project corpus has ${project.files.length} files and ${project.lines} lines; it needs ${MIN_PROJECT_FILES} and ${MIN_PROJECT_LINES}.`);
    process.exit(1);
  }
  const projectBase = projectBaseConfig(project.relativeDir);
  const projectTs = withTsRecommended(projectBase);
  const projectConfigs = {
    tsRecommended: eslintWith(projectTs),
    tsRecommendedFencelint: eslintWith(withFencelint(projectTs, fencelint)),
  };
  console.log(`\nproject corpus: ${project.files.length} files, ${project.lines} lines in ${project.relativeDir} (generated), ${project.expected.length} unfenced writes marked`);
  const app = await measure(projectConfigs, project.files, rounds, 'project');
  if (app.warm.tsRecommended.ignored + app.warm.tsRecommendedFencelint.ignored > 0) {
    console.error('ESLint skipped some project corpus files; the figures would be wrong.');
    process.exit(1);
  }
  const markers = compareToMarkers(app.warm.tsRecommendedFencelint.findings, project.expected, project.dir);
  return { project, projectBase, app, markers };
}

/** The project corpus's part of the console report. */
function printProject(project, app, perRuleProject, markers, rounds) {
  console.log('project corpus (generated)');
  console.log(`files:                   ${project.files.length}`);
  console.log(`lines of code:           ${project.lines}`);
  console.log(`ts-eslint recommended:   median ${fmt(app.medianWall.tsRecommended)} wall, ${fmt(app.medianCpu.tsRecommended)} cpu over ${rounds} rounds`);
  console.log(`  + fencelint:           median ${fmt(app.medianWall.tsRecommendedFencelint)} wall, ${fmt(app.medianCpu.tsRecommendedFencelint)} cpu over ${rounds} rounds`);
  const ratios = app.cpu.tsRecommended.map((ts, i) => app.cpu.tsRecommendedFencelint[i] / ts);
  console.log(`per-round ratios:        ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)} (cpu time, each round's + fencelint / recommended)`);
  console.log(`rule time (stats run):   ${Object.entries(perRuleProject.rules).map(([id, ms]) => `${id} ${ms.toFixed(0)} ms`).join(', ') || 'none'}`);
  console.log(`fencelint findings:      ${markers.found}; ${project.expected.length - markers.missing.length} of ${project.expected.length} marked writes found, ${markers.unexpected.length} unmarked`);
  for (const line of [...markers.missing.map((x) => `missing ${x}`), ...markers.unexpected.map((x) => `unmarked ${x}`)].slice(0, 10)) console.log(`  ${line}`);
  console.log(`wall-time ratio:         ${(app.medianWall.tsRecommendedFencelint / app.medianWall.tsRecommended).toFixed(3)}`);
}

/** The project figures for the JSON report. */
function projectReport(project, app, perRuleProject, markers) {
  return {
    dir: project.relativeDir,
    files: project.files.length,
    lines: project.lines,
    wallMs: app.times,
    cpuMs: app.cpu,
    medianWallMs: app.medianWall,
    medianCpuMs: app.medianCpu,
    ratio: app.medianCpu.tsRecommendedFencelint / app.medianCpu.tsRecommended,
    ruleTimesMs: perRuleProject.rules,
    findings: { expected: project.expected.length, found: markers.found, missing: markers.missing, unexpected: markers.unexpected },
  };
}

/** `--corpus project`: the generated application alone, on top of typescript-eslint's recommended. */
async function projectOnly(fencelint, options) {
  const eslintWith = (config) => new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });
  console.log('fencelint lint benchmark (project corpus only)');
  console.log(`eslint ${ESLint.version}, ${fencelint.meta.name} ${fencelint.meta.version}, node ${process.version}`);
  const { project, projectBase, app, markers } = await measureProject(fencelint, eslintWith, options.rounds);
  const perRuleProject = await ruleTimes(withFencelint(projectBase, fencelint), project.files);
  const projectOnTs = app.medianCpu.tsRecommendedFencelint / app.medianCpu.tsRecommended;
  console.log('');
  printProject(project, app, perRuleProject, markers, options.rounds);
  console.log('');
  console.log(`on top of typescript-eslint's recommended (cpu time, recommended + fencelint / recommended; target <= ${TARGET_ON_TS_RECOMMENDED}):`);
  console.log(`  project corpus:        ${projectOnTs.toFixed(3)} (${projectOnTs <= TARGET_ON_TS_RECOMMENDED ? 'met' : 'not met'})`);
  return {
    date: new Date().toISOString(),
    node: process.version,
    eslint: ESLint.version,
    rules: Object.keys(fencelint.configs.recommended.rules),
    rounds: options.rounds,
    onTsRecommended: { project: projectOnTs, target: TARGET_ON_TS_RECOMMENDED },
    project: projectReport(project, app, perRuleProject, markers),
  };
}

/** The figures as JSON: `--json FILE`, else results/latest.json. */
function writeReport(report, options) {
  const out = options.json ? resolve(options.json) : join(root, 'bench', 'lint', 'results', 'latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwritten ${relative(root, out)}`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const fencelint = (await import('eslint-plugin-fencelint')).default;
  if (options.corpus === 'project') {
    writeReport(await projectOnly(fencelint, options), options);
    return;
  }
  const fastParser = await import('eslint-plugin-fencelint/fast-parser');
  const fallbacks = [];
  fastParser.setFallbackReporter((fallback) => fallbacks.push(fallback));
  const entries = collectCorpus();
  for (const name of entries.missing) console.warn(`skipped ${name}: not installed`);
  // The library corpus is code written elsewhere, where locks are rare; our services, every one of
  // which takes a lock, are timed apart so that neither figure hides the other.
  const libraryEntries = entries.filter((entry) => entry.group !== 'services');
  const files = libraryEntries.flatMap((entry) => entry.files);
  const serviceFiles = entries.filter((entry) => entry.group === 'services').flatMap((entry) => entry.files);
  const lines = libraryEntries.reduce((sum, entry) => sum + entry.lines, 0);
  const tsLines = libraryEntries.reduce((sum, entry) => sum + entry.tsLines, 0);
  const bytes = libraryEntries.reduce((sum, entry) => sum + entry.bytes, 0);
  const serviceLines = entries.filter((entry) => entry.group === 'services').reduce((sum, entry) => sum + entry.lines, 0);

  console.log('fencelint lint benchmark');
  console.log(`eslint ${ESLint.version}, ${fencelint.meta.name} ${fencelint.meta.version}, node ${process.version}`);
  console.log(`rules: ${Object.keys(fencelint.configs.recommended.rules).join(', ')}\n`);
  console.log('corpus:');
  for (const entry of entries) {
    console.log(`  ${`${entry.name}@${entry.version}`.padEnd(30)} ${String(entry.files.length).padStart(5)} files ${String(entry.lines).padStart(8)} lines  ${entry.dir}${entry.group ? ` (${entry.group})` : ''}`);
  }
  console.log(`  ${'library total'.padEnd(30)} ${String(files.length).padStart(5)} files ${String(lines).padStart(8)} lines (${tsLines} TypeScript, ${(bytes / 1e6).toFixed(1)} MB, not written here)`);
  console.log(`  ${'services total'.padEnd(30)} ${String(serviceFiles.length).padStart(5)} files ${String(serviceLines).padStart(8)} lines (ours, every file takes a lock)\n`);
  if (lines < MIN_LINES) {
    console.error(`the corpus has ${lines} lines of other people's code; the benchmark needs at least ${MIN_LINES}. Run npm ci.`);
    process.exit(1);
  }

  const base = baseConfig(entries);
  const withRules = withFencelint(base, fencelint);
  // ESLint itself does more per file once any rule is on (rule contexts, selector matching over the
  // traversal); one rule that listens to nothing measures that floor, so what fencelint adds shows apart.
  const emptyRule = { meta: { type: 'problem', schema: [] }, create: () => ({}) };
  const withEmptyRule = [...base, { files: ['**/*'], plugins: { bench: { rules: { empty: emptyRule } } }, rules: { 'bench/empty': 'error' } }];
  const tsRecommended = withTsRecommended(base);
  const eslintWith = (config) => new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });
  const configs = {
    baseline: eslintWith(base),
    emptyRule: eslintWith(withEmptyRule),
    fencelint: eslintWith(withRules),
    // The same rules with the opt-in parser (eslint-plugin-fencelint/fast-parser) in place of @typescript-eslint/parser.
    fastParser: eslintWith(withParser(withRules, fastParser.default)),
    tsRecommended: eslintWith(tsRecommended),
    tsRecommendedFencelint: eslintWith(withFencelint(tsRecommended, fencelint)),
  };

  // The fast parser's counts over the warm-up run alone: one lint of the corpus.
  let fastCounts;
  const library = await measure(configs, files, options.rounds, 'library', () => {
    fastCounts = { ...fastParser.parseCounts };
  });
  // The services: fencelint with both parsers, and on top of typescript-eslint's recommended.
  const serviceConfigs = { fencelint: configs.fencelint, fastParser: configs.fastParser, tsRecommended: configs.tsRecommended, tsRecommendedFencelint: configs.tsRecommendedFencelint };
  const before = { ...fastParser.parseCounts };
  const services = await measure(serviceConfigs, serviceFiles, options.rounds, 'services', () => {
    // Its warm-up is one lint of the services with the fast parser: counted with the library's.
    fastCounts = { fast: fastCounts.fast + fastParser.parseCounts.fast - before.fast, fallback: fastCounts.fallback + fastParser.parseCounts.fallback - before.fallback };
  });
  const warm = library.warm;
  if (warm.baseline.ignored + warm.fencelint.ignored + warm.tsRecommended.ignored > 0) {
    console.error('ESLint skipped some corpus files (ignored or without a matching config); the figures would be wrong.');
    process.exit(1);
  }
  if (warm.baseline.fatal !== warm.fencelint.fatal) {
    console.warn(`parse errors differ between configs: ${warm.baseline.fatal} vs ${warm.fencelint.fatal}`);
  }
  const sameFindings = [warm, services.warm].every((w) => JSON.stringify(w.fastParser.findings) === JSON.stringify(w.fencelint.findings) && w.fastParser.fatal === w.fencelint.fatal);
  if (!sameFindings) {
    console.error('the fast parser gives other findings than @typescript-eslint/parser; its timing would compare different work.');
    process.exit(1);
  }
  const ownOnTs = (w) => JSON.stringify(w.tsRecommendedFencelint.findings.filter((f) => f.ruleId?.startsWith('fencelint/'))) === JSON.stringify(w.fencelint.findings.filter((f) => f.ruleId?.startsWith('fencelint/')));
  if (!ownOnTs(warm) || !ownOnTs(services.warm)) {
    console.error("fencelint reports other findings next to typescript-eslint's recommended than alone; the comparison would be wrong.");
    process.exit(1);
  }

  const { project, projectBase, app, markers } = await measureProject(fencelint, eslintWith, options.rounds);

  const m = library.medianCpu;
  const ratio = m.fencelint / m.baseline;
  const wallRatio = library.medianWall.fencelint / library.medianWall.baseline;
  const floorRatio = m.emptyRule / m.baseline;
  const ownRatio = m.fencelint / m.emptyRule;
  const fastRatio = m.fastParser / m.fencelint;
  const libraryOnTs = m.tsRecommendedFencelint / m.tsRecommended;
  const servicesOnTs = services.medianCpu.tsRecommendedFencelint / services.medianCpu.tsRecommended;
  const projectOnTs = app.medianCpu.tsRecommendedFencelint / app.medianCpu.tsRecommended;
  const perRule = await ruleTimes(withRules, files);
  const perRuleServices = await ruleTimes(withRules, serviceFiles);
  const perRuleProject = await ruleTimes(withFencelint(projectBase, fencelint), project.files);

  const outside = warm.fencelint.findings.filter((f) => f.ruleId?.startsWith('fencelint/'));
  const inFixtures = services.warm.fencelint.findings.filter((f) => f.ruleId?.startsWith('fencelint/')).length;
  const met = (r) => (r <= TARGET_ON_TS_RECOMMENDED ? 'met' : 'not met');
  console.log('');
  console.log('library corpus');
  console.log(`files:                   ${files.length}`);
  console.log(`lines of code:           ${lines}`);
  console.log(`parse errors:            ${warm.baseline.fatal}`);
  console.log(`baseline (parser only):  median ${fmt(library.medianWall.baseline)} wall, ${fmt(m.baseline)} cpu over ${options.rounds} rounds (${Math.round(lines / (m.baseline / 1000))} lines per cpu second)`);
  console.log(`one empty rule:          median ${fmt(library.medianWall.emptyRule)} wall, ${fmt(m.emptyRule)} cpu over ${options.rounds} rounds`);
  console.log(`fencelint recommended:   median ${fmt(library.medianWall.fencelint)} wall, ${fmt(m.fencelint)} cpu over ${options.rounds} rounds`);
  console.log(`ts-eslint recommended:   median ${fmt(library.medianWall.tsRecommended)} wall, ${fmt(m.tsRecommended)} cpu over ${options.rounds} rounds`);
  console.log(`  + fencelint:           median ${fmt(library.medianWall.tsRecommendedFencelint)} wall, ${fmt(m.tsRecommendedFencelint)} cpu over ${options.rounds} rounds`);
  console.log(`rule time (stats run):   ${Object.entries(perRule.rules).map(([id, ms]) => `${id} ${ms.toFixed(0)} ms`).join(', ') || 'none'}`);
  console.log(`fencelint findings:      ${outside.length} (none of this code holds a lock; each is a false report)`);
  for (const finding of outside.slice(0, 10)) console.log(`  ${finding.file}:${finding.line} ${finding.ruleId}`);
  console.log(`wall-time ratio:         ${wallRatio.toFixed(3)}`);
  console.log(`ESLint's floor:          ${floorRatio.toFixed(3)} (cpu time, one empty rule / baseline: what turning on any rule costs)`);
  console.log(`fencelint's own cost:    ${ownRatio.toFixed(3)} (cpu time, fencelint / one empty rule)`);
  console.log(`fast parser:             median ${fmt(library.medianWall.fastParser)} wall, ${fmt(m.fastParser)} cpu over ${options.rounds} rounds; ` +
    `${fastCounts.fast} files on the fast path, ${fastCounts.fallback} fell back${fallbacks.length ? ` (${fallbacks.map((f) => `${relative(root, f.filePath)}: ${f.reason}`).join('; ')})` : ''}; findings identical`);
  console.log(`fast-parser ratio:       ${fastRatio.toFixed(3)} (cpu time, fencelint with the fast parser / fencelint with @typescript-eslint/parser)`);
  console.log(`ratio:                   ${ratio.toFixed(3)} (cpu time, fencelint / baseline; target <= ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'not met'})`);
  console.log('');
  const s = services.medianCpu;
  console.log('services (fixtures/services: every file takes a lock)');
  console.log(`files:                   ${serviceFiles.length}`);
  console.log(`lines of code:           ${serviceLines}`);
  console.log(`ts-eslint recommended:   median ${fmt(services.medianWall.tsRecommended)} wall, ${fmt(s.tsRecommended)} cpu over ${options.rounds} rounds`);
  console.log(`  + fencelint:           median ${fmt(services.medianWall.tsRecommendedFencelint)} wall, ${fmt(s.tsRecommendedFencelint)} cpu over ${options.rounds} rounds`);
  console.log(`fencelint alone:         median ${fmt(services.medianWall.fencelint)} wall, ${fmt(s.fencelint)} cpu; fast parser ${fmt(s.fastParser)} cpu`);
  console.log(`rule time (stats run):   ${Object.entries(perRuleServices.rules).map(([id, ms]) => `${id} ${ms.toFixed(0)} ms`).join(', ') || 'none'}`);
  console.log(`fencelint findings:      ${inFixtures}`);
  console.log('');
  printProject(project, app, perRuleProject, markers, options.rounds);
  console.log('');
  console.log(`on top of typescript-eslint's recommended (cpu time, recommended + fencelint / recommended; target <= ${TARGET_ON_TS_RECOMMENDED}):`);
  console.log(`  library corpus:        ${libraryOnTs.toFixed(3)} (${met(libraryOnTs)})`);
  console.log(`  services:              ${servicesOnTs.toFixed(3)} (every file takes a lock; no target)`);
  console.log(`  project corpus:        ${projectOnTs.toFixed(3)} (${met(projectOnTs)})`);

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    eslint: ESLint.version,
    rules: Object.keys(fencelint.configs.recommended.rules),
    corpus: entries.map(({ name, version, dir, files: list, lines: n, tsLines: t }) => ({ name, version, dir, files: list.length, lines: n, tsLines: t })),
    files: files.length,
    lines,
    rounds: options.rounds,
    wallMs: library.times,
    cpuMs: library.cpu,
    medianWallMs: library.medianWall,
    medianCpuMs: m,
    fastParser: { ratio: fastRatio, files: fastCounts, fallbacks },
    wallRatio,
    floorRatio,
    ownRatio,
    ratio,
    onTsRecommended: { library: libraryOnTs, services: servicesOnTs, project: projectOnTs, target: TARGET_ON_TS_RECOMMENDED },
    ruleTimesMs: perRule.rules,
    findings: { fixtures: inFixtures, elsewhere: outside },
    services: { files: serviceFiles.length, lines: serviceLines, wallMs: services.times, cpuMs: services.cpu, medianWallMs: services.medianWall, medianCpuMs: s, ruleTimesMs: perRuleServices.rules },
    project: projectReport(project, app, perRuleProject, markers),
  };
  writeReport(report, options);
}

await main();
