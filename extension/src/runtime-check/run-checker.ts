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
 * The checker's own deadline, inside the limit above: it ends the check itself, cleans up and
 * names the step that ran out, which says more than a kill.
 */
export const CHECKER_DEADLINE_SECONDS = 110;

export interface RunOptions {
  /** The role of each `$n`, when the user named them. */
  roles?: readonly string[];
  /** Aborting stops the checker with SIGTERM: it cleans up and reports "interrupted". */
  signal?: AbortSignal;
}

/**
 * Runs the workspace's `fencelint-check` on the write at `file:line` with the Node that runs
 * this process, from the workspace folder (the checker resolves the file's parser config from
 * there). The SVG goes to a private temp folder that is removed afterwards.
 */
export async function runChecker(binJs: string, folder: string, file: string, line: number, options: RunOptions = {}): Promise<RuntimeCheckResult> {
  const scratch = mkdtempSync(join(tmpdir(), 'fencelint-check-'));
  const svgPath = join(scratch, 'timeline.svg');
  try {
    const args = checkerArgs(binJs, file, line, svgPath, { roles: options.roles, timeoutSeconds: CHECKER_DEADLINE_SECONDS });
    const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
      const child = execFile(
        process.execPath,
        args,
        // ELECTRON_RUN_AS_NODE: inside VS Code process.execPath is the editor's binary.
        { cwd: folder, timeout: CHECK_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } },
        (error, out, err) => {
          options.signal?.removeEventListener('abort', stop);
          const exit = error && typeof (error as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (error as unknown as { code: number }).code : error ? null : 0;
          const killed = error && (error as { killed?: boolean }).killed && !options.signal?.aborted ? `fencelint-check was stopped after ${CHECK_TIMEOUT_MS / 1000} s.\n` : '';
          resolve({ stdout: out, stderr: killed + err, code: exit });
        },
      );
      // SIGTERM, not a kill: the checker removes its scratch database or PGlite directory first.
      const stop = () => child.kill('SIGTERM');
      if (options.signal?.aborted) stop();
      else options.signal?.addEventListener('abort', stop, { once: true });
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
