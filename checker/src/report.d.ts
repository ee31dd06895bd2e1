import type { CounterExample, ExploreResult } from './explore.js';
import type { ScenarioResult } from './scenarios.js';
import type { TableSource } from './table-setup.js';
export type Verdict = 'holds' | 'broken';
export interface CheckReport {
    verdict: Verdict;
    subject: {
        kind: 'sql' | 'module';
        /** The statement as executed, or the module's path. */
        text: string;
        roles?: string[];
        table?: string;
        tableSource?: TableSource;
        tokenColumn?: string;
        authority: string;
    };
    backend: string;
    scenarios: ScenarioResult[];
    exploration: ExploreResult[];
    /** The shortest broken schedule: from the exploration when it found one, else the first broken scenario. */
    counterExample?: CounterExample;
    elapsedMs: number;
}
export declare function verdictOf(scenarios: ScenarioResult[], exploration: ExploreResult[]): Verdict;
export declare function counterExampleOf(scenarios: ScenarioResult[], exploration: ExploreResult[]): CounterExample | undefined;
/** The report as text: verdict, then each scenario with its timeline when it broke. */
export declare function renderText(report: CheckReport, options?: {
    verbose?: boolean;
}): string;
