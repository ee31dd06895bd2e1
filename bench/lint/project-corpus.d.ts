export const PROJECT_CORPUS_DIR: string;
export const MIN_PROJECT_FILES: number;
export const MIN_PROJECT_LINES: number;
export function projectCorpusFiles(): Record<string, string>;
export function expectedFindings(files: Record<string, string>): string[];
export function writeProjectCorpus(): { dir: string; relativeDir: string; files: string[]; lines: number; expected: string[] };
