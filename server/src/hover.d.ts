import { type Hover, type Position } from 'vscode-languageserver/node';
import type { AnalysisSnapshot } from './file-analysis.js';
/**
 * Hover on an acquire call: where its token goes. Lists every write the core traced to this
 * lease, fenced or not. Without the core's analysis there is nothing to say, and no hover.
 */
export declare function acquireHover(analysis: AnalysisSnapshot | undefined, position: Position): Hover | null;
