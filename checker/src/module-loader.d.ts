import type { CheckerModule } from './adapter.js';
/**
 * Load a user's adapter module. JavaScript is imported by Node itself; TypeScript goes through
 * tsx's scoped `tsImport`, which compiles it without registering a loader for the whole process.
 */
export declare function loadCheckerModule(path: string, cwd?: string): Promise<CheckerModule>;
