import type { TimelineEvent } from './timeline.js';
/**
 * The timeline as an SVG picture: one lane per worker, the lease as a bar from acquire to its
 * release or expiry, writes as marks (filled: accepted, hollow with a cross: rejected, red:
 * broke an invariant), expiry and restarts as dashed vertical lines across all lanes.
 */
export declare function renderSvg(events: TimelineEvent[], title: string): string;
