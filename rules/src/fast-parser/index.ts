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
import { reportFallback } from './fallback-log.js';
import { oxcProgram, type FallbackReason, type OxcModule } from './program.js';

export { setFallbackReporter, type Fallback, type FallbackReporter } from './fallback-log.js';
export { oxcLanguage } from './program.js';

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

function fastParse(code: string, options: ParserOptions, sourceType: 'module' | 'script'): ParseResult | FallbackReason {
  if (!oxc) return { reason: oxcUnavailable!, syntaxError: false };
  if (options.project || options.projectService || options.programs) return { reason: 'typed linting needs TypeScript\'s program', syntaxError: false };
  const program = oxcProgram(oxc, code, options.filePath, options.ecmaFeatures?.jsx === true, sourceType) as ParseResult['ast'] | FallbackReason;
  if ('reason' in program) return program;
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
