import type { Linter } from 'eslint';

export interface CorpusEntry {
  name: string;
  dir: string;
  sourceType: 'module' | 'commonjs';
  exclude?: string[];
}
export interface CollectedEntry extends CorpusEntry {
  version: string;
  files: string[];
  lines: number;
  tsLines: number;
  bytes: number;
}
export const corpus: CorpusEntry[];
export const MIN_LINES: number;
export function collectCorpus(): CollectedEntry[] & { missing: string[] };
export function baseConfig(entries: readonly CollectedEntry[]): Linter.Config[];
export function withParser(configs: Linter.Config[], parser: Linter.Parser): Linter.Config[];
export function withFencelint(base: Linter.Config[], plugin: { configs: { recommended: object } }): Linter.Config[];
export function withTsRecommended(base: Linter.Config[]): Linter.Config[];
export function projectBaseConfig(relativeDir: string): Linter.Config[];
