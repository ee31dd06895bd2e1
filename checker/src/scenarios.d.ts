import type { Subject } from './subject.js';
import type { TimelineEvent, Violation } from './timeline.js';
import { World } from './world.js';
export type ScenarioStatus = 'holds' | 'broken' | 'not-applicable';
export interface ScenarioResult {
    id: string;
    title: string;
    status: ScenarioStatus;
    /** Why it is broken or not applicable; empty when it holds. */
    reason?: string;
    violations: Violation[];
    timeline: TimelineEvent[];
}
export interface Scenario {
    id: string;
    title: string;
    /** Returns a reason when the scenario does not apply to the subject. */
    notApplicable?(subject: Subject): string | undefined;
    run(world: World): Promise<void>;
}
export declare const SCENARIOS: readonly Scenario[];
export declare function runScenario(scenario: Scenario, subject: Subject): Promise<ScenarioResult>;
