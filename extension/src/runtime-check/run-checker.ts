import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkerArgs } from './checker-args';
import { parseCheckReport, type RuntimeCheckReport } from './parse-report';

export interface RuntimeCheckResult {
  report: RuntimeCheckReport;
  /** The SVG timeline, when the checker wrote one. */
  svg?: string;
}

/** PGlite's cold start plus the exploration; a stuck check is stopped rather than left running. */
export const CHECK_TIMEOUT_MS = 120_000;

/**
 * Runs the workspace's `fencelint-check` on the write at `file:line` with the Node that runs
 * this process, from the workspace folder (the checker resolves the file's parser config from
 * there). The SVG goes to a private temp folder that is removed afterwards.
 */
export async function runChecker(binJs: string, folder: string, file: string, line: number): Promise<RuntimeCheckResult> {
  const scratch = mkdtempSync(join(tmpdir(), 'fencelint-check-'));
  const svgPath = join(scratch, 'timeline.svg');
  try {
    const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
      execFile(
        process.execPath,
        checkerArgs(binJs, file, line, svgPath),
        // ELECTRON_RUN_AS_NODE: inside VS Code process.execPath is the editor's binary.
        { cwd: folder, timeout: CHECK_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } },
        (error, out, err) => {
          const exit = error && typeof (error as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (error as unknown as { code: number }).code : error ? null : 0;
          const killed = error && (error as { killed?: boolean }).killed ? `fencelint-check was stopped after ${CHECK_TIMEOUT_MS / 1000} s.\n` : '';
          resolve({ stdout: out, stderr: killed + err, code: exit });
        },
      );
    });
    let svg: string | undefined;
    try {
      svg = readFileSync(svgPath, 'utf8');
    } catch {
      svg = undefined; // bad input writes no drawing
    }
    return { report: parseCheckReport(stdout, stderr, code), svg };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
