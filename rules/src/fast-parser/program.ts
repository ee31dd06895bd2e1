/**
 * oxc's parse made into typescript-estree's `Program` (loc, tokens, comments), or why it cannot
 * be: a syntax error, or syntax where the two parsers are known to differ. The parser
 * (`index.ts`) adds scopes and falls back to `@typescript-eslint/parser`; the module graph
 * (`core/modules/project-source.ts`) reads imported modules through it and falls back to
 * typescript-estree. oxc is handed in, so this module loads without it.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { divergenceIn } from './divergences.js';
import { prepareProgram, type OxcComment } from './oxc-program.js';
import { scanTokens } from './tokens.js';

export type OxcModule = typeof import('oxc-parser');
export type OxcLang = 'js' | 'jsx' | 'ts' | 'tsx' | 'dts';

/** Why a file cannot take the fast path; a syntax error is logged only when the fallback parses the file. */
export interface FallbackReason {
  reason: string;
  syntaxError: boolean;
}

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

/**
 * `tokens: false` leaves \`program.tokens\` empty: for trees no rule reads tokens of (the module
 * graph's imported modules, which the analysis reads by nodes, ranges and scopes alone).
 */
export function oxcProgram(oxc: OxcModule, code: string, filePath: string | undefined, jsx: boolean, sourceType: 'module' | 'script', tokens = true): TSESTree.Program | FallbackReason {
  const lang = oxcLanguage(filePath, jsx);
  const parsed = oxc.parseSync(filePath ?? `file.${lang === 'dts' ? 'd.ts' : lang}`, code, {
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
  const program = prepared.program as TSESTree.Program;
  program.sourceType = sourceType;
  program.comments = prepared.comments as TSESTree.Program['comments'];
  program.tokens = (tokens ? scanTokens(code, prepared.hints, prepared.lines) : []) as TSESTree.Program['tokens'];
  return program;
}
