/**
 * SARIF 2.1.0 for code scanning: every fencelint rule with its docs page as help, and every
 * finding with its related locations (the acquire, the separate check) and a code flow from
 * the lock through the calls the analysis followed to the write, across files.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ESLint, Linter, Rule } from 'eslint';
import plugin from '../index.js';
import type { SourceLocation } from '../core/modules/summaries.js';
import type { FileFlows, FindingFlow } from './flows.js';

/**
 * CVSS-like scores GitHub code scanning sorts by (7.0 and up is "high"): a lost or overwritten
 * write is worse than a weak token, which is worse than an ignored refusal that only hides one.
 */
const SECURITY_SEVERITY: Record<string, string> = {
  'require-fence-condition': '7.5',
  'require-token-update': '7.5',
  'no-check-then-write': '7.0',
  'no-release-by-name': '7.0',
  'require-stale-check': '6.5',
  'no-clock-token': '6.0',
  'no-memory-token-counter': '6.0',
};

const DOCS_DIR = new URL('../../docs/rules/', import.meta.url);

/** A rule's docs page without the generated header, or undefined when it is not shipped. */
function docsPage(name: string): string | undefined {
  const file = new URL(`${name}.md`, DOCS_DIR);
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const end = text.indexOf('<!-- end auto-generated rule header -->');
  return (end >= 0 ? text.slice(end + '<!-- end auto-generated rule header -->'.length) : text).trim();
}

/** The first prose paragraph of a page, as plain text. */
function firstParagraph(markdown: string): string {
  const paragraph = markdown.split(/\n\s*\n/).find((block) => /^[A-Za-z]/.test(block.trim())) ?? '';
  return paragraph.replace(/\s+/g, ' ').replace(/[`*_]/g, '').trim();
}

interface SarifRegion {
  startLine: number;
  startColumn: number;
  endLine?: number;
  endColumn?: number;
}

export interface SarifOptions {
  cwd: string;
  version: string;
  flows: Map<string, FileFlows>;
  /** Problems with the configuration (`settings.fencelint`), reported as configuration notifications. */
  configurationProblems: string[];
}

export function toSarif(results: ESLint.LintResult[], options: SarifOptions): object {
  const root = pathToFileURL(options.cwd.endsWith(path.sep) ? options.cwd : options.cwd + path.sep).href;
  const artifacts: Array<{ location: { uri: string; uriBaseId?: string } }> = [];
  const artifactIndex = new Map<string, number>();
  const artifactLocation = (file: string) => {
    const relative = path.relative(options.cwd, file);
    const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    const location = inside ? { uri: relative.split(path.sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' } : { uri: pathToFileURL(file).href };
    let index = artifactIndex.get(file);
    if (index === undefined) {
      index = artifacts.push({ location }) - 1;
      artifactIndex.set(file, index);
    }
    return { ...location, index };
  };
  const physical = (file: string, region: SarifRegion) => ({ artifactLocation: artifactLocation(file), region });
  const regionOf = (loc: SourceLocation): SarifRegion => ({ startLine: loc.line, startColumn: loc.column, endLine: loc.endLine, endColumn: loc.endColumn });

  const rules = Object.entries(plugin.rules).map(([name, rule]) => {
    const meta = rule.meta as Rule.RuleMetaData;
    const page = docsPage(name);
    const description = meta.docs?.description ?? name;
    return {
      id: `fencelint/${name}`,
      name: name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toUpperCase()),
      shortDescription: { text: description },
      fullDescription: { text: page ? firstParagraph(page) || description : description },
      help: { text: `${description}. See ${meta.docs?.url ?? 'the rule docs'}.`, markdown: page ?? description },
      ...(meta.docs?.url ? { helpUri: meta.docs.url } : {}),
      defaultConfiguration: { level: 'error' as const },
      properties: {
        tags: ['correctness', 'concurrency', 'security', 'external/cwe/cwe-362'],
        precision: 'high',
        'problem.severity': 'error',
        'security-severity': SECURITY_SEVERITY[name] ?? '5.0',
      },
    };
  });
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));

  const sarifResults: object[] = [];
  const executionNotifications: object[] = [];
  for (const result of results) {
    const flows = options.flows.get(result.filePath);
    for (const message of result.messages) {
      const region: SarifRegion = {
        startLine: Math.max(1, message.line),
        startColumn: Math.max(1, message.column),
        ...(message.endLine ? { endLine: message.endLine } : {}),
        ...(message.endColumn ? { endColumn: message.endColumn } : {}),
      };
      if (!message.ruleId || !ruleIndex.has(message.ruleId)) {
        // A parse error or a crash is no finding: it tells why a file has none.
        executionNotifications.push({ level: message.fatal ? 'error' : 'warning', message: { text: message.message }, locations: [{ physicalLocation: physical(result.filePath, region) }] });
        continue;
      }
      const flow: FindingFlow | undefined = flows?.get(`${message.line}:${message.column}`);
      const related: object[] = [];
      if (flow?.acquire) related.push({ id: 1, message: { text: `the lock: ${(flow.acquireLabel ?? 'acquire').replace(/`/g, '')}` }, physicalLocation: physical(flow.acquire.file, regionOf(flow.acquire)) });
      if (flow?.check) related.push({ id: 2, message: { text: 'the separate check' }, physicalLocation: physical(flow.check.file, regionOf(flow.check)) });
      sarifResults.push({
        ruleId: message.ruleId,
        ruleIndex: ruleIndex.get(message.ruleId),
        level: (message.severity as Linter.Severity) === 2 ? 'error' : 'warning',
        message: { text: message.message },
        locations: [{ physicalLocation: physical(result.filePath, region) }],
        ...(related.length > 0 ? { relatedLocations: related } : {}),
        ...(flow && flow.steps.length > 1
          ? {
              codeFlows: [
                {
                  message: { text: 'from the lock to the write' },
                  threadFlows: [
                    {
                      locations: flow.steps.map((step, index) => ({
                        location: { physicalLocation: physical(step.location.file, regionOf(step.location)), message: { text: step.message } },
                        kinds: [step.kind],
                        executionOrder: index + 1,
                        importance: step.kind === 'call' ? 'important' : 'essential',
                      })),
                    },
                  ],
                },
              ],
            }
          : {}),
      });
    }
  }

  return {
    $schema: 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'fencelint',
            version: options.version,
            semanticVersion: options.version,
            informationUri: 'https://www.npmjs.com/package/eslint-plugin-fencelint',
            rules,
          },
        },
        invocations: [
          {
            executionSuccessful: true,
            toolExecutionNotifications: executionNotifications,
            toolConfigurationNotifications: options.configurationProblems.map((text) => ({ level: 'warning', message: { text: `settings.fencelint: ${text}` } })),
          },
        ],
        originalUriBaseIds: { '%SRCROOT%': { uri: root } },
        artifacts,
        results: sarifResults,
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
}
