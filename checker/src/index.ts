export { checkFencing, assertFenced, FenceBrokenError } from './check-fencing.js';
export type { CheckOptions } from './check-fencing.js';
export type { CheckReport, Verdict } from './report.js';
export { renderText } from './report.js';
export { renderSvg } from './svg.js';
export { renderTimeline } from './timeline.js';
export type { TimelineEvent, Violation, InvariantId } from './timeline.js';
export type { ScenarioResult, ScenarioStatus } from './scenarios.js';
export type { ExploreResult, CounterExample } from './explore.js';
export { BadInputError } from './errors.js';
export type {
  AdapterContext,
  AuthorityAdapter,
  CheckerModule,
  Clock,
  LeaseHandle,
  ResourceAdapter,
  WriteRequest,
  WriteResult,
  WriteStatus,
} from './adapter.js';
