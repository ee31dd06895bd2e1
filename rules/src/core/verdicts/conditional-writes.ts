/**
 * Conditional writes: the writes of a file whose own condition compares a fence token (or the
 * current holder), so that the resource refuses a late one. Inside a critical section they come
 * from the per-file pass; outside one (a repository function that receives the token) they
 * count only on strong evidence: the compared value is a token by provenance, or the column is
 * a token column by name. `require-token-update` asks whether each stores the token it
 * compares; `require-stale-check` whether the refusal reaches the code.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, contains, enclosingFunction, unwrap, type Node } from '../ast.js';
import type { AnyWriteSite, FileAnalysis, WriteReading, WriteSite } from '../file-analysis.js';
import { isTokenColumnByName, sameColumn } from '../sinks/fence-judgement.js';
import type { WriteVerdict } from '../sinks/sql-writes.js';
import { inSection as runsInSection } from '../locks/untaken-branches.js';

export interface ConditionalWrite {
  site: AnyWriteSite;
  /** The compared column (SQL, knex, object APIs) or the Redis key (`KEYS[2]`). */
  column?: string;
  /** Whether the compared token is stored by the same write (or an equality needs nothing stored). */
  stored: boolean;
  /** SQL: the statement that compares without storing, when one does. */
  unstored?: WriteVerdict;
}

/** Words without which a file outside any critical section holds no conditional write. */
const TOKEN_WORD = /fenc|Fenc|FENC|generation|Generation|epoch|Epoch|_token|Token\b/;

const cache = new WeakMap<FileAnalysis, ConditionalWrite[]>();

function judged(site: AnyWriteSite | WriteSite): ConditionalWrite | undefined {
  switch (site.sink) {
    case 'call':
      // Writes inside a project function are judged in their own module.
      return undefined;
    case 'sql': {
      // A set-once claim (`WHERE col IS NULL`) compares no token: nothing a stale check must read.
      const compared = site.verdicts.filter((v) => v.tokenCompared && !v.tokenless);
      if (compared.length === 0) return undefined;
      const unstored = compared.find((v) => !v.tokenStored);
      return { site, column: (unstored ?? compared[0]).column, stored: !unstored, unstored };
    }
    case 'knex':
    case 'object':
      return site.verdict.tokenCompared && !('tokenless' in site.verdict && site.verdict.tokenless) ? { site, column: site.verdict.column, stored: site.verdict.tokenStored } : undefined;
    case 'api':
      if (site.write.script) return site.verdict?.tokenCompared ? { site, column: site.verdict.column, stored: site.verdict.tokenStored } : undefined;
      // An HTTP request that sends the token, an S3 put with a precondition: the resource compares.
      return site.fenced ? { site, stored: true } : undefined;
  }
}

/** Outside a section, the comparison must be a fence on its face: a token value, or a token column by name. */
function strongEvidence(site: WriteReading, analysis: FileAnalysis): boolean {
  const isToken = (n: Node | undefined) => n !== undefined && analysis.tracer.isToken(n);
  switch (site.sink) {
    case 'sql':
      return site.verdicts.some((v) => {
        if (!v.tokenCompared || !v.comparison) return false;
        if (isTokenColumnByName(v.comparison.column, { knownColumn: analysis.tokenColumn })) return true;
        return v.comparison.value.params.some((n) => isToken(site.call.param(n)));
      });
    case 'knex':
    case 'object':
      return site.verdict.tokenCompared && (isToken(site.verdict.value) || (site.verdict.column !== undefined && isTokenColumnByName(site.verdict.column, { knownColumn: analysis.tokenColumn })));
    case 'api':
      // A script that orders an argument against a stored value, or compares a token for equality, is a fence by construction.
      return !!site.write.script && !!site.verdict?.tokenCompared;
  }
}

/** The call a write is sent through, for writes outside sections: `client.send(new UpdateCommand(...))` is read at the command. */
function writeNodes(call: TSESTree.CallExpression): Array<TSESTree.CallExpression | TSESTree.NewExpression> {
  const first = call.arguments[0];
  if (calleeName(call) === 'send' && first && unwrap(first).type === AST_NODE_TYPES.NewExpression) return [unwrap(first) as TSESTree.NewExpression];
  return [call];
}

export function findConditionalWrites(analysis: FileAnalysis, sourceCode: SourceCode): ConditionalWrite[] {
  const cached = cache.get(analysis);
  if (cached) return cached;
  const out: ConditionalWrite[] = [];
  const seen = new Set<Node>();
  for (const site of analysis.writes) {
    seen.add(site.node);
    const found = judged(site);
    if (found) out.push(found);
  }
  // Writes in functions handed a token or lease by their caller.
  for (const site of analysis.receivedWrites) {
    if (seen.has(site.node)) continue;
    seen.add(site.node);
    const found = judged(site);
    if (found) out.push(found);
  }
  if (analysis.calls.length > 0 && TOKEN_WORD.test(sourceCode.text)) {
    const inSection = (node: Node) => analysis.acquires.some((a) => runsInSection(a, node)) || analysis.sectionOf(node) !== undefined;
    const nodes = [...analysis.calls.flatMap(writeNodes), ...analysis.taggedTemplates];
    for (const node of nodes) {
      if (seen.has(node) || inSection(node)) continue;
      const site = analysis.readWrite(node);
      if (!site || seen.has(site.node) || !strongEvidence(site, analysis)) continue;
      seen.add(site.node);
      const found = judged(site);
      if (found) out.push(found);
    }
  }
  out.sort((a, b) => a.site.node.range[0] - b.site.node.range[0]);
  cache.set(analysis, out);
  return out;
}

/**
 * The token a write compares without storing is stored right after, in the same function: a
 * helper named for it (`storeFenceToken(key, token)`, `bumpGeneration(...)`) that receives the
 * token, or another write that assigns the compared column.
 */
export function storedLater(write: ConditionalWrite, analysis: FileAnalysis): boolean {
  const fn = enclosingFunction(write.site.node);
  if (!fn || !write.column) return false;
  const after = (n: Node) => n.range[0] >= write.site.node.range[1] && contains(fn.body, n) && enclosingFunction(n) === fn;
  for (const call of analysis.calls) {
    if (!after(call)) continue;
    const name = calleeName(call) ?? '';
    if (STORE_HELPER.test(name) && call.arguments.some((a) => a.type !== AST_NODE_TYPES.SpreadElement && analysis.tracer.isToken(a))) return true;
    for (const node of writeNodes(call)) {
      const site = analysis.readWrite(node);
      if (site && assigns(site, write.column)) return true;
    }
  }
  for (const tagged of analysis.taggedTemplates) {
    if (!after(tagged)) continue;
    const site = analysis.readWrite(tagged);
    if (site && assigns(site, write.column)) return true;
  }
  return false;
}

const STORE_HELPER = /^(?:store|save|record|persist|write|set|bump|advance|commit|update)\w*(?:Fence|Fencing|Token|Generation|Epoch)\w*$/;

function assigns(site: WriteReading, column: string): boolean {
  switch (site.sink) {
    case 'sql':
      return site.verdicts.some((v) => v.statement.assignments.some((a) => sameColumn(a.column, column)));
    case 'knex':
      return site.write.values?.properties.some((p) => p.type === AST_NODE_TYPES.Property && p.key.type === AST_NODE_TYPES.Identifier && sameColumn(p.key.name, column)) ?? false;
    case 'object':
      return site.write.values?.properties.some((p) => p.type === AST_NODE_TYPES.Property && p.key.type === AST_NODE_TYPES.Identifier && sameColumn(p.key.name, column)) ?? false;
    case 'api':
      return false;
  }
}
