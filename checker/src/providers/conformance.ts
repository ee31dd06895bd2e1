import { randomBytes } from 'node:crypto';
import { errorMessage } from '../errors.js';
import { withDeadline } from './deadline.js';
import type { LoadOptions } from './load.js';
import type { LockProvider } from './provider.js';
import type { ProviderResource } from './resource.js';
import { CONFORMANCE_SCENARIOS, type ScenarioOutcome } from './scenarios.js';

export interface ScenarioRow extends ScenarioOutcome {
  id: string;
  title: string;
  durationMs: number;
}

export interface ProviderRow {
  provider: string;
  id: string;
  library: string;
  tokenSource: string | null;
  server: string;
  /** True when this run started the server, so the restart scenario could run. */
  startedHere: boolean;
  scenarios: ScenarioRow[];
}

export interface ConformanceRun {
  provider: LockProvider;
  restartServer?: () => Promise<void>;
  serverName: string;
}

/** Runs the chosen scenarios against one provider, each on a key of its own, each bounded in time. */
export async function runConformance(
  run: ConformanceRun,
  resource: ProviderResource,
  options: { scenarios?: readonly string[]; load: LoadOptions; scenarioTimeoutMs?: number },
): Promise<ProviderRow> {
  const { provider } = run;
  const rows: ScenarioRow[] = [];
  const server = await provider.describeServer().catch((e: unknown) => `unknown (${errorMessage(e)})`);
  for (const scenario of CONFORMANCE_SCENARIOS) {
    if (options.scenarios && !options.scenarios.includes(scenario.id)) continue;
    const key = `fencelint-${scenario.id}-${randomBytes(4).toString('hex')}`;
    const began = Date.now();
    const limit = scenario.id === 'load' ? options.load.timeLimitMs + 30_000 : (options.scenarioTimeoutMs ?? 60_000);
    let outcome: ScenarioOutcome;
    try {
      await resource.seed(key);
      outcome = await withDeadline(
        scenario.run({ provider, resource, key, load: options.load, serverName: run.serverName, ...(run.restartServer ? { restartServer: run.restartServer } : {}) }),
        limit,
        `${scenario.id}`,
      );
    } catch (error) {
      outcome = { status: 'fail', reason: `error: ${errorMessage(error)}` };
    }
    rows.push({ id: scenario.id, title: scenario.title, ...outcome, durationMs: Date.now() - began });
  }
  return {
    provider: provider.label,
    id: provider.spec.id,
    library: provider.library,
    tokenSource: provider.tokenSource,
    server,
    startedHere: run.restartServer !== undefined,
    scenarios: rows,
  };
}

export function overallStatus(rows: ProviderRow[]): 'pass' | 'fail' {
  return rows.some((r) => r.scenarios.some((s) => s.status === 'fail')) ? 'fail' : 'pass';
}
