/**
 * `eslint-plugin-fencelint/incremental`: re-linting edited text by groups of top-level
 * statements, for editors. See `incremental-linter.ts`.
 */
export { IncrementalLinter, type IncrementalOptions, type IncrementalResult } from './incremental-linter.js';
export { planSlices, sliceText, type SliceGroup, type SlicePlan } from './slices.js';
