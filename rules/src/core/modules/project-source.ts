/**
 * Parses a project file that the lint reached through an import, the way ESLint would have:
 * typescript-estree for the AST (the parser typescript-eslint's own parser wraps), the
 * scope manager for scopes, and ESLint's `SourceCode` around both, so every stage of the
 * analysis reads an imported module exactly as it reads the linted file.
 *
 * The parser stack is loaded on first use. A file that does not parse gives undefined.
 */
import { createRequire } from 'node:module';
import type { TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';

interface ParserStack {
  parse: (code: string, options: Record<string, unknown>) => TSESTree.Program;
  analyze: (ast: TSESTree.Program, options: Record<string, unknown>) => unknown;
  visitorKeys: Record<string, readonly string[] | undefined>;
  SourceCode: new (config: { text: string; ast: TSESTree.Program; scopeManager: unknown; visitorKeys: unknown; parserServices: object }) => SourceCode;
}

let stack: ParserStack | null | undefined;

function load(id: string): unknown {
  // Literal requires let a bundler include these modules; plain ES modules have no `require`.
  if (typeof require === 'function') {
    switch (id) {
      case '@typescript-eslint/typescript-estree':
        return require('@typescript-eslint/typescript-estree');
      case '@typescript-eslint/scope-manager':
        return require('@typescript-eslint/scope-manager');
      case '@typescript-eslint/visitor-keys':
        return require('@typescript-eslint/visitor-keys');
      default:
        return require('eslint');
    }
  }
  return createRequire(import.meta.url)(id);
}

function parserStack(): ParserStack | null {
  if (stack !== undefined) return stack;
  try {
    const estree = load('@typescript-eslint/typescript-estree') as { parse: ParserStack['parse'] };
    const scopes = load('@typescript-eslint/scope-manager') as { analyze: ParserStack['analyze'] };
    const keys = load('@typescript-eslint/visitor-keys') as { visitorKeys: ParserStack['visitorKeys'] };
    const eslint = load('eslint') as { SourceCode: ParserStack['SourceCode'] };
    stack = { parse: estree.parse, analyze: scopes.analyze, visitorKeys: keys.visitorKeys, SourceCode: eslint.SourceCode };
  } catch {
    stack = null;
  }
  return stack;
}

/** ESLint sets `parent` while it traverses; a file parsed here gets it up front. */
function setParents(root: TSESTree.Node, visitorKeys: ParserStack['visitorKeys']): void {
  const stackOfNodes: TSESTree.Node[] = [root];
  while (stackOfNodes.length > 0) {
    const node = stackOfNodes.pop()!;
    for (const key of visitorKeys[node.type] ?? []) {
      const child = (node as unknown as Record<string, unknown>)[key];
      const children = Array.isArray(child) ? child : [child];
      for (const item of children) {
        if (item && typeof (item as TSESTree.Node).type === 'string') {
          (item as { parent?: TSESTree.Node }).parent = node;
          stackOfNodes.push(item as TSESTree.Node);
        }
      }
    }
  }
}

/** An ESLint `SourceCode` for a project file's text, or undefined when it does not parse. */
export function parseProjectFile(file: string, text: string): SourceCode | undefined {
  const parser = parserStack();
  if (!parser) return undefined;
  try {
    const script = /\.c[jt]s$/i.test(file);
    const ast = parser.parse(text, {
      filePath: file,
      jsx: /\.[jt]sx$/i.test(file) || /\.m?js$/i.test(file),
      range: true,
      loc: true,
      tokens: true,
      comment: true,
      // One file at a time, no type information: the same cost as ESLint's own parse.
      errorOnUnknownASTType: false,
      suppressDeprecatedPropertyWarnings: true,
    });
    setParents(ast, parser.visitorKeys);
    const scopeManager = parser.analyze(ast, { sourceType: script ? 'script' : 'module', childVisitorKeys: parser.visitorKeys });
    return new parser.SourceCode({ text, ast, scopeManager, visitorKeys: parser.visitorKeys, parserServices: {} });
  } catch {
    return undefined;
  }
}

/** The top-level statements of a project file, parsed without scopes, tokens or locations (a cheap look at its exports). */
export function parseTopLevel(file: string, text: string): TSESTree.Program | undefined {
  const parser = parserStack();
  if (!parser) return undefined;
  try {
    return parser.parse(text, { filePath: file, jsx: /\.[jt]sx$/i.test(file) || /\.m?js$/i.test(file), errorOnUnknownASTType: false, suppressDeprecatedPropertyWarnings: true });
  } catch {
    return undefined;
  }
}
