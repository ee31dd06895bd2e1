import tsParser from '@typescript-eslint/parser';
import type { Linter } from 'eslint';
import type { Log } from './server-log.js';

/** The parser for the bundled configuration, and what the workspace's own config may put in its place. */
export interface ParserChoice {
  parser: Linter.Parser;
  /** `fast`: the plugin's oxc parser; `typescript-eslint`: @typescript-eslint/parser; `workspace`: the workspace config's. */
  source: 'fast' | 'typescript-eslint' | 'workspace';
  parserOptions?: Record<string, unknown>;
}

interface FastParserModule {
  default: Linter.Parser;
  setFallbackReporter(reporter: (fallback: { filePath: string; reason: string }) => void): void;
  fastPathUnavailable?: () => string | undefined;
}

/**
 * `FENCELINT_LS_PARSER=typescript-eslint` makes the bundled configuration parse with
 * @typescript-eslint/parser: the benchmark compares the two, and a user can rule the fast
 * parser out when a finding looks wrong. An environment variable, as the extra-plugins hook.
 */
export const PARSER_ENV = 'FENCELINT_LS_PARSER';

/**
 * The bundled configuration parses with the plugin's fast parser (`eslint-plugin-fencelint/fast-parser`,
 * oxc + typescript-eslint's scope manager), which hands a file it cannot take to
 * @typescript-eslint/parser with one log line. When the fast parser cannot load at all (no oxc
 * binding for this platform), @typescript-eslint/parser parses everything, and that is logged once.
 */
export async function loadBundledParser(log: Log, env: NodeJS.ProcessEnv = process.env): Promise<ParserChoice> {
  if (env[PARSER_ENV] === 'typescript-eslint') {
    log.info(`fencelint: ${PARSER_ENV}=typescript-eslint: parsing with @typescript-eslint/parser.`);
    return { parser: tsParser as Linter.Parser, source: 'typescript-eslint' };
  }
  try {
    // @ts-ignore -- the plugin's .d.ts exists only after `npm run build -w rules`.
    const fast = (await import('eslint-plugin-fencelint/fast-parser')) as FastParserModule;
    const unavailable = fast.fastPathUnavailable?.();
    if (unavailable) {
      log.info(`fencelint: ${unavailable}; parsing with @typescript-eslint/parser.`);
      return { parser: tsParser as Linter.Parser, source: 'typescript-eslint' };
    }
    fast.setFallbackReporter(({ filePath, reason }) =>
      log.once(`fast-parser:${filePath}:${reason}`, `fencelint: ${filePath}: ${reason}; parsed with @typescript-eslint/parser instead.`, 'info'),
    );
    return { parser: fast.default, source: 'fast' };
  } catch (error) {
    log.info(`fencelint: the fast parser could not be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); parsing with @typescript-eslint/parser.`);
    return { parser: tsParser as Linter.Parser, source: 'typescript-eslint' };
  }
}

/**
 * The parser a workspace's own ESLint config sets for a file, if it sets one. ESLint's default
 * (espree, which cannot read TypeScript) counts as none: the bundled parser is kept.
 */
export function workspaceParser(languageOptions: Linter.LanguageOptions | undefined): ParserChoice | undefined {
  const parser = languageOptions?.parser as (Linter.Parser & { meta?: { name?: string }; name?: string }) | undefined;
  if (!parser || (parser.meta?.name ?? parser.name) === 'espree') return undefined;
  return { parser, source: 'workspace', parserOptions: languageOptions?.parserOptions as Record<string, unknown> | undefined };
}
