import { describe, expect, it } from 'vitest';
import { assertFenced, checkFencing, FenceBrokenError } from '../src/index.js';
import type { AdapterContext, CheckerModule, WriteRequest } from '../src/index.js';
import { runCli } from './cli.js';

describe('a user module as the subject', () => {
  it('holds for the fenced file store with the built-in authority', async () => {
    const report = await checkFencing({ module: 'checker/examples/fenced-file-store.ts', exploreWorkers: [2] });
    expect(report.subject.kind).toBe('module');
    expect(report.subject.authority).toMatch(/built-in durable authority/);
    expect(report.scenarios.map((s) => [s.id, s.status])).toEqual([
      ['stale-write', 'holds'],
      ['equal-token-replay', 'holds'],
      ['restart', 'holds'],
      ['old-handle-release', 'holds'],
      ['operation-replay', 'holds'],
      ['digit-boundary-10', 'holds'],
      ['digit-boundary-100', 'holds'],
    ]);
    expect(report.verdict).toBe('holds');
  });

  it("names the in-memory counter and the release by key in the module's own authority", async () => {
    const report = await checkFencing({ module: 'checker/examples/memory-authority.ts', exploreWorkers: [2] });
    expect(report.verdict).toBe('broken');
    const byId = Object.fromEntries(report.scenarios.map((s) => [s.id, s]));
    expect(byId['restart'].status).toBe('broken');
    expect(byId['restart'].violations[0].invariant).toBe('token-not-increasing');
    expect(byId['restart'].reason).toMatch(/issued fenceToken=1 after it had issued 2/);
    expect(byId['old-handle-release'].status).toBe('broken');
    expect(byId['old-handle-release'].reason).toMatch(/removed the live lease-B-2: release must name the lease/);
    // The exploration's restart step finds the shortest way to a repeated token.
    expect(report.exploration[0].counterExample?.schedule).toEqual(['A:acquire', 'restart', 'B:acquire']);
  });

  it('runs through the CLI and exits 1 for the broken authority', async () => {
    const result = await runCli(['--module', 'checker/examples/memory-authority.ts', '--workers', '2']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FAIL 3. restart');
    expect(result.stdout).toContain('t=26 C: acquire(resource-7) -> lease-C-1, fenceToken=1');
  });

  it('accepts a module object, and assertFenced throws with the timeline in the message', async () => {
    // An unfenced resource: last write wins, whatever its token.
    const unfenced: CheckerModule = {
      createResource(_context: AdapterContext) {
        const store = new Map<string, string>();
        return {
          async write({ key, value }: WriteRequest) {
            store.set(key, value);
            return 'accepted' as const;
          },
          async read(key: string) {
            return store.get(key) ?? null;
          },
        };
      },
    };
    const failure = await assertFenced({ module: unfenced, exploreWorkers: [] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FenceBrokenError);
    const message = (failure as FenceBrokenError).message;
    expect(message).toContain('t=13 A: write(v1, token=41) -> accepted');
    expect(message).toContain('!! a stale write with token 41 was accepted after token 42');
    // Without restart() the in-memory store is not restarted either: nothing is lost there.
    expect((failure as FenceBrokenError).report.scenarios.find((s) => s.id === 'stale-write')?.status).toBe('broken');
  });
});
