/**
 * What a finding's code flow is made of: the lock acquire, the calls the analysis followed
 * (across files), the separate check of a read-then-update, and the write. An internal rule
 * runs in the same ESLint pass as the plugin's rules and reads the core's per-file analysis
 * (cached per file, so it costs nothing extra); findings are matched to writes by position.
 */
import type { ESLint, Rule, SourceCode } from 'eslint';
import type { TSESTree } from '@typescript-eslint/utils';
import { getFileAnalysis } from '../core/file-analysis.js';
import type { AcquireSite } from '../core/locks/acquires.js';
import type { SourceLocation } from '../core/modules/summaries.js';
import { findCheckThenWrites } from '../core/verdicts/check-then-write.js';

export interface FlowStep {
  location: SourceLocation;
  /** What happens there, one short clause. */
  message: string;
  kind: 'acquire' | 'call' | 'check' | 'write';
}

export interface FindingFlow {
  steps: FlowStep[];
  acquire?: SourceLocation;
  acquireLabel?: string;
  check?: SourceLocation;
}

/** Flows of one file, keyed by `line:column` (1-based, as ESLint reports) of the write. */
export type FileFlows = Map<string, FindingFlow>;

function at(file: string, loc: TSESTree.SourceLocation): SourceLocation {
  return { file, line: loc.start.line, column: loc.start.column + 1, endLine: loc.end.line, endColumn: loc.end.column + 1 };
}

const key = (line: number, column: number) => `${line}:${column}`;

/** The acquire, and where the lock really is when it was taken inside a project helper. */
function acquireSteps(file: string, acquire: AcquireSite): FlowStep[] {
  const here = at(file, acquire.node.loc);
  const label = acquire.label.replace(/`/g, '');
  if (!acquire.flow || acquire.flow.length === 0) return [{ location: here, message: `lock taken: ${label}`, kind: 'acquire' }];
  return acquire.flow.map((location, index, all) => ({
    location,
    message: index === all.length - 1 ? `lock taken: ${label}` : index === 0 ? 'calls the lock helper' : 'calls on',
    kind: index === all.length - 1 ? 'acquire' : 'call',
  }));
}

function sameLocation(a: SourceLocation, b: SourceLocation): boolean {
  return a.file === b.file && a.line === b.line && a.column === b.column;
}

export function flowsOf(file: string, analysisSource: Parameters<typeof getFileAnalysis>[0]): FileFlows {
  const analysis = getFileAnalysis(analysisSource);
  const flows: FileFlows = new Map();
  const checks = new Map<string, SourceLocation>();
  const guarded = findCheckThenWrites(analysis, analysisSource.sourceCode as unknown as Parameters<typeof findCheckThenWrites>[1]);
  for (const found of guarded) {
    const write = found.write.node.loc;
    checks.set(key(write.start.line, write.start.column + 1), at(file, found.check.loc as TSESTree.SourceLocation));
  }
  for (const write of analysis.writes.flatMap((w) => [w, ...(w.reachedFrom ?? [])])) {
    const steps: FlowStep[] = [];
    const writeAt = at(file, write.node.loc);
    if (write.sink === 'call' && write.flow.length > 0) {
      // The call site's flow already runs from the lock through the calls to the write inside.
      write.flow.forEach((location, index, all) =>
        steps.push({
          location,
          message: index === 0 ? `lock taken: ${write.acquire.label.replace(/`/g, '')}` : index === all.length - 1 ? 'the write, with no fence condition' : 'calls on, under the lock',
          kind: index === 0 ? 'acquire' : index === all.length - 1 ? 'write' : 'call',
        }),
      );
    } else {
      steps.push(...acquireSteps(file, write.acquire));
    }
    const writeKey = key(writeAt.line, writeAt.column);
    const check = checks.get(writeKey);
    if (check) steps.push({ location: check, message: 'checked here, in a separate step', kind: 'check' });
    if (!steps.some((step) => sameLocation(step.location, writeAt))) steps.push({ location: writeAt, message: 'the write', kind: 'write' });
    flows.set(writeKey, { steps, acquire: at(file, write.acquire.node.loc), acquireLabel: write.acquire.label, check });
  }
  // A read-then-update needs no lock: its flow is the check, then the write.
  for (const found of guarded) {
    const writeAt = at(file, found.write.node.loc);
    const writeKey = key(writeAt.line, writeAt.column);
    if (flows.has(writeKey)) continue;
    const check = checks.get(writeKey)!;
    flows.set(writeKey, {
      steps: [
        { location: check, message: 'checked here, in a separate step', kind: 'check' },
        { location: writeAt, message: 'the write, which does not repeat the check', kind: 'write' },
      ],
      check,
    });
  }
  return flows;
}

/** The internal rule and where it leaves each file's flows. */
export function flowCollector(): { plugin: ESLint.Plugin; ruleId: string; flows: Map<string, FileFlows> } {
  const flows = new Map<string, FileFlows>();
  const rule: Rule.RuleModule = {
    meta: { type: 'problem', schema: [], docs: { description: 'Collects the code flows of fencelint findings for SARIF.' } },
    create(context) {
      return {
        'Program:exit'() {
          const file = context.physicalFilename ?? context.filename;
          try {
            flows.set(file, flowsOf(file, context as never));
          } catch {
            // Flows only decorate findings; a failure here must not drop them.
          }
        },
      };
    },
  };
  return { plugin: { meta: { name: 'fencelint-cli-internal' }, rules: { 'collect-flows': rule } }, ruleId: 'fencelint-cli/collect-flows', flows };
}

export type { SourceCode };
