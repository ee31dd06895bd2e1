export { checkFencing, assertFenced, FenceBrokenError } from './check-fencing.js';
export { renderText } from './report.js';
export { renderSvg } from './svg.js';
export { renderTimeline } from './timeline.js';
export { BadInputError } from './errors.js';
//# sourceMappingURL=index.js.map