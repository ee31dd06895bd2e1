import { describe, expect, it } from 'vitest';
import { checkFencing } from '../src/index.js';
import { serverUrl, VERDICT_PAIRS } from './statements.js';

// Every pair called right: on PGlite (the default) and on the real server of the test run.
for (const backend of ['PGlite', 'server'] as const) {
  describe(`verdicts on ${backend}: deletes, non-integer tokens, CTE fence tables`, () => {
    for (const c of VERDICT_PAIRS) {
      it(`${c.fenced ? 'holds' : 'breaks'}: ${c.name}`, async () => {
        const report = await checkFencing({
          sql: c.sql,
          roles: c.roles,
          schemaSql: c.schemaSql,
          migrationsRoot: false,
          // PGlite runs the scenarios (they decide these verdicts); the server explores as well.
          exploreWorkers: backend === 'server' ? [2] : [],
          ...(backend === 'server' ? { databaseUrl: serverUrl() } : {}),
        });
        const broken = report.scenarios.filter((s) => s.status === 'broken').map((s) => `${s.id}: ${s.reason}`);
        expect(report.verdict, broken.join('\n')).toBe(c.fenced ? 'holds' : 'broken');
        if (c.breaks) expect(report.scenarios.find((s) => s.id === c.breaks)?.status, broken.join('\n')).toBe('broken');
      });
    }
  });
}
