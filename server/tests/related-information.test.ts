import { describe, expect, it } from 'vitest';
import { relatedInformation } from '../src/diagnostics.js';
import { snapshotAnalysis, snapshotChecks } from '../src/file-analysis.js';

const loc = (line: number, column: number, endColumn: number) => ({ start: { line, column }, end: { line, column: endColumn } });
const uri = 'file:///svc/save.ts';

/** The core's shapes, as plain data: an acquire on line 6, a write on line 10 checked on line 8. */
const analysis = snapshotAnalysis({
  acquires: [{ id: 1, node: { loc: loc(6, 21, 60) }, library: 'redlock', handleKey: 'lock', destructured: new Map(), tokenProperties: [] }],
  writes: [{ sink: 'sql', node: { loc: loc(10, 10, 80) }, acquire: { id: 1 }, fenced: false, verdicts: [{ tokenCompared: false, tokenStored: false }] }],
});
analysis.checks = snapshotChecks([{ kind: 'storedToken', check: { loc: loc(8, 8, 40) }, write: { node: { loc: loc(10, 10, 80) } } }]);

describe('related information', () => {
  it('says where a token can come from when the lease carries none', () => {
    const withAdvice = snapshotAnalysis({
      acquires: [{ id: 1, node: { loc: loc(6, 21, 60) }, library: 'redlock', advice: 'take one from a durable counter', destructured: new Map(), tokenProperties: [] }],
      writes: [{ sink: 'sql', node: { loc: loc(10, 10, 80) }, acquire: { id: 1 }, fenced: false, verdicts: [{ tokenCompared: false, tokenStored: false }] }],
    });
    const related = relatedInformation(uri, withAdvice, { start: { line: 9, character: 10 }, end: { line: 9, character: 20 } });
    expect(related.map((r) => r.message)).toEqual(['lease acquired here (redlock); no fence token in scope: take one from a durable counter']);
  });

  it('points a write at its acquire and at the separate check before it', () => {
    const related = relatedInformation(uri, analysis, { start: { line: 9, character: 10 }, end: { line: 9, character: 20 } });
    expect(related.map((r) => [r.location.range.start.line, r.message])).toEqual([
      [5, 'lease acquired here (redlock)'],
      [7, 'checked here, in a separate step before the write'],
    ]);
  });

  it('says nothing about a diagnostic that is not at an analysed write', () => {
    expect(relatedInformation(uri, analysis, { start: { line: 2, character: 0 }, end: { line: 2, character: 5 } })).toEqual([]);
    expect(relatedInformation(uri, undefined, { start: { line: 9, character: 10 }, end: { line: 9, character: 20 } })).toEqual([]);
  });
});
