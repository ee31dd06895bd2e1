/**
 * The per-file pass reads a linted file's nodes off ESLint's own traversal instead of walking
 * the tree again: the same nodes, in the same order, as `walk` visits them.
 */
import { Linter, type Rule, type SourceCode } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import { describe, expect, it } from 'vitest';
import { walk, type Node } from '../../../src/core/ast.js';
import { fileNodes } from '../../../src/core/file-nodes.js';

const service = `import { withLock } from './locks';
import type { Pool } from 'pg';

export class Invoices {
  constructor(private readonly pool: Pool) {}

  async settle(id: string, reference: string): Promise<void> {
    await withLock(\`invoice:\${id}\`, async (fenceToken: number) => {
      const { rowCount } = await this.pool.query<{ id: string }>(
        'UPDATE invoices SET reference = $1, fence_token = $3 WHERE id = $2 AND fence_token < $3',
        [reference, id, fenceToken],
      );
      if (rowCount === 0) throw new Error(\`stale \${id}\`);
    });
  }
}

export const label = (n: number) => (n > 1 ? \`\${n} invoices\` : 'one invoice');
`;

/** ESLint's SourceCode as the analysis types it (typescript-eslint's view of the same object). */
type AnalysisSource = Parameters<typeof fileNodes>[0];

/** Lints `text` and hands back the SourceCode a rule sees at `Program:exit`. */
function lintedSourceCode(text: string, parser?: Linter.Parser): AnalysisSource {
  let seen: SourceCode | undefined;
  const capture: Rule.RuleModule = { create: (context) => ({ 'Program:exit': () => void (seen = context.sourceCode) }) };
  const linter = new Linter({ configType: 'flat' });
  linter.verify(text, [{ files: ['**/*.ts'], ...(parser ? { languageOptions: { parser } } : {}), plugins: { test: { rules: { capture } } }, rules: { 'test/capture': 'error' } }], 'service.ts');
  return seen as unknown as AnalysisSource;
}

function walked(sourceCode: AnalysisSource): Node[] {
  const nodes: Node[] = [];
  walk(sourceCode.ast, sourceCode.visitorKeys, (node) => nodes.push(node));
  return nodes;
}

describe("a linted file's nodes", () => {
  it("are the nodes a walk visits, in the walk's order, read off ESLint's traversal", () => {
    const sourceCode = lintedSourceCode(service, tsParser as Linter.Parser);
    const nodes = fileNodes(sourceCode, true);
    const expected = walked(sourceCode);
    expect(nodes.length).toBeGreaterThan(100);
    expect(nodes.length).toBe(expected.length);
    expect(nodes.every((node, i) => node === expected[i])).toBe(true);
  });

  it('are listed once per tree', () => {
    const sourceCode = lintedSourceCode(service, tsParser as Linter.Parser);
    expect(fileNodes(sourceCode, true)).toBe(fileNodes(sourceCode, true));
  });

  it('are walked for a tree ESLint did not lint', () => {
    const sourceCode = lintedSourceCode('const a = 1;\nexport default a;\n');
    const expected = walked(sourceCode);
    const nodes = fileNodes(sourceCode, false);
    expect(nodes.length).toBe(expected.length);
    expect(nodes.every((node, i) => node === expected[i])).toBe(true);
  });
});
