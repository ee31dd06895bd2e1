/**
 * `eslint-plugin-fencelint/fast-parser`: an ESLint parser that parses with oxc (Rust, TS-ESTree
 * output) and analyses scopes with `@typescript-eslint/scope-manager`, giving rules the same
 * tree, tokens, comments and scopes as `@typescript-eslint/parser` at a fraction of the parse
 * time. A file oxc rejects, or that holds syntax where the two are known to differ, is parsed
 * by `@typescript-eslint/parser` instead, with one log line. Typed linting (`project`,
 * `projectService`) needs TypeScript's program, so such configs always take the fallback.
 */
import * as typescriptParser from '@typescript-eslint/parser';
import { analyze, type AnalyzeOptions } from '@typescript-eslint/scope-manager';
import { visitorKeys } from '@typescript-eslint/visitor-keys';
import { divergenceIn } from './divergences.js';
import { reportFallback } from './fallback-log.js';
import { prepareProgram, type OxcComment } from './oxc-program.js';
import { scanTokens } from './tokens.js';

export { setFallbackReporter, type Fallback, type FallbackReporter } from './fallback-log.js';

type OxcModule = typeof import('oxc-parser');
type OxcLang = 'js' | 'jsx' | 'ts' | 'tsx' | 'dts';

let oxc: OxcModule | undefined;
let oxcUnavailable: string | undefined;
try {
  oxc = await import('oxc-parser');
} catch (error) {
  // No prebuilt binding for this platform: every file takes the fallback.
  oxcUnavailable = `oxc-parser could not be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
}

export const meta = { name: 'eslint-plugin-fencelint/fast-parser', version: '0.1.0' };

/** Why no file can take the fast path in this process (oxc did not load), or undefined. */
export function fastPathUnavailable(): string | undefined {
  return oxcUnavailable;
}

export interface ParserOptions {
  filePath?: string;
  sourceType?: string;
  ecmaVersion?: unknown;
  ecmaFeatures?: { jsx?: boolean; globalReturn?: boolean };
  jsxPragma?: string | null;
  jsxFragmentName?: string | null;
  lib?: string[];
  project?: unknown;
  projectService?: unknown;
  programs?: unknown;
  emitDecoratorMetadata?: boolean;
  experimentalDecorators?: boolean;
  isolatedDeclarations?: boolean;
  [key: string]: unknown;
}

type ParseResult = ReturnType<typeof typescriptParser.parseForESLint>;

/** How many files each path parsed in this process (benchmarks print it). */
export const parseCounts = { fast: 0, fallback: 0 };

/** oxc's language for a file, chosen the way typescript-estree chooses its script kind. */
export function oxcLanguage(filePath: string | undefined, jsx: boolean): OxcLang {
  const name = (filePath ?? '').toLowerCase();
  if (/\.d\.[cm]?ts$/.test(name)) return 'dts';
  if (/\.[cm]?ts$/.test(name)) return 'ts';
  if (name.endsWith('.tsx')) return 'tsx';
  if (name.endsWith('.jsx')) return 'jsx';
  if (/\.[cm]?js$/.test(name)) return jsx ? 'jsx' : 'js';
  return jsx ? 'tsx' : 'ts';
}

/** Why a file takes the fallback; a syntax error is logged only when the fallback parses the file. */
interface FallbackReason {
  reason: string;
  syntaxError: boolean;
}

function fastParse(code: string, options: ParserOptions, sourceType: 'module' | 'script'): ParseResult | FallbackReason {
  if (!oxc) return { reason: oxcUnavailable!, syntaxError: false };
  if (options.project || options.projectService || options.programs) return { reason: 'typed linting needs TypeScript\'s program', syntaxError: false };
  const jsx = options.ecmaFeatures?.jsx === true;
  const lang = oxcLanguage(options.filePath, jsx);
  const parsed = oxc.parseSync(options.filePath ?? `file.${lang === 'dts' ? 'd.ts' : lang}`, code, {
    lang,
    astType: 'ts',
    sourceType: sourceType === 'module' ? 'module' : 'commonjs',
    range: true,
    preserveParens: false,
    showSemanticErrors: true,
  });
  if (parsed.errors.length > 0) return { reason: `oxc reports a syntax error (${parsed.errors[0].message})`, syntaxError: true };
  const prepared = prepareProgram(code, parsed.program as never, parsed.comments as OxcComment[]);
  const divergence = divergenceIn(prepared);
  if (divergence) return { reason: divergence, syntaxError: false };
  const program = prepared.program as ParseResult['ast'];
  program.sourceType = sourceType;
  program.comments = prepared.comments as ParseResult['ast']['comments'];
  program.tokens = scanTokens(code, prepared.hints, prepared.lines) as ParseResult['ast']['tokens'];
  const analyzeOptions: AnalyzeOptions = {
    globalReturn: options.ecmaFeatures?.globalReturn,
    jsxFragmentName: options.jsxFragmentName ?? undefined,
    jsxPragma: options.jsxPragma,
    lib: options.lib as AnalyzeOptions['lib'],
    sourceType,
  };
  const scopeManager = analyze(program, analyzeOptions);
  const services = {
    program: null,
    esTreeNodeToTSNodeMap: new WeakMap(),
    tsNodeToESTreeNodeMap: new WeakMap(),
    emitDecoratorMetadata: options.emitDecoratorMetadata === true,
    experimentalDecorators: options.experimentalDecorators === true,
    isolatedDeclarations: options.isolatedDeclarations === true,
  };
  return { ast: program, scopeManager, services, visitorKeys } as unknown as ParseResult;
}

export function parseForESLint(code: string, parserOptions?: ParserOptions): ParseResult {
  const options: ParserOptions = parserOptions && typeof parserOptions === 'object' ? parserOptions : {};
  // As `@typescript-eslint/parser`: anything but a module is a script.
  const sourceType = options.sourceType === 'module' ? 'module' : 'script';
  let outcome: ParseResult | FallbackReason;
  try {
    outcome = fastParse(code, options, sourceType);
  } catch (error) {
    outcome = { reason: `the fast path failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`, syntaxError: false };
  }
  if (!('reason' in outcome)) {
    parseCounts.fast++;
    return outcome;
  }
  parseCounts.fallback++;
  const fallback = { filePath: options.filePath ?? '<text>', reason: outcome.reason };
  if (!outcome.syntaxError) reportFallback(fallback);
  // The fallback's own syntax error is what ESLint reports: a file both parsers reject is no news.
  const result = typescriptParser.parseForESLint(code, parserOptions as never);
  if (outcome.syntaxError) reportFallback(fallback);
  return result;
}

export function parse(code: string, parserOptions?: ParserOptions): ParseResult['ast'] {
  return parseForESLint(code, parserOptions).ast;
}

export default { meta, parse, parseForESLint };
