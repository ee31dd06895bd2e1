/**
 * Parses a project file that the lint reached through an import, the way ESLint would have:
 * the tree typescript-estree gives (the parser typescript-eslint's own parser wraps), the
 * scope manager for scopes, and ESLint's `SourceCode` around both, so every stage of the
 * analysis reads an imported module exactly as it reads the linted file.
 *
 * The tree comes from oxc through the fast parser's program builder when it can (a tenth of
 * typescript-estree's time, and the same tree: `tests/fast-parser/` proves it); a file oxc
 * rejects or holds syntax where the two differ, or a runtime that cannot load oxc, takes
 * typescript-estree. The parser stack is loaded on first use. A file that does not parse
 * gives undefined.
 */
import { createRequire } from 'node:module';
import type { TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import type { OxcModule } from '../../fast-parser/program.js';

type OxcProgram = typeof import('../../fast-parser/program.js').oxcProgram;

interface ParserStack {
  parse: (code: string, options: Record<string, unknown>) => TSESTree.Program;
  analyze: (ast: TSESTree.Program, options: Record<string, unknown>) => unknown;
  visitorKeys: Record<string, readonly string[] | undefined>;
  SourceCode: new (config: { text: string; ast: TSESTree.Program; scopeManager: unknown; visitorKeys: unknown; parserServices: object }) => SourceCode;
  /** oxc and the fast parser's program builder, when both load. */
  fast?: { oxc: OxcModule; program: OxcProgram };
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
      case 'oxc-parser':
        return require('oxc-parser');
      case '../../fast-parser/program.js':
        return require('../../fast-parser/program.js');
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
    stack = { parse: estree.parse, analyze: scopes.analyze, visitorKeys: keys.visitorKeys, SourceCode: eslint.SourceCode, fast: loadFastPath() };
  } catch {
    stack = null;
  }
  return stack;
}

/** oxc is an ES module: a runtime that cannot `require` one (Node before 20.19) parses with typescript-estree. */
function loadFastPath(): ParserStack['fast'] {
  try {
    const oxc = load('oxc-parser') as OxcModule;
    const { oxcProgram } = load('../../fast-parser/program.js') as { oxcProgram: OxcProgram };
    return typeof oxc.parseSync === 'function' && typeof oxcProgram === 'function' ? { oxc, program: oxcProgram } : undefined;
  } catch {
    return undefined;
  }
}

/** The tree from oxc, or undefined where typescript-estree must parse it. */
function fastTree(parser: ParserStack, file: string, text: string, script: boolean): TSESTree.Program | undefined {
  if (!parser.fast) return undefined;
  try {
    // No tokens: the analysis reads an imported module by its nodes, ranges and scopes; only
    // the fixes of a linted file look at tokens.
    const program = parser.fast.program(parser.fast.oxc, text, file, /\.[jt]sx$/i.test(file) || /\.m?js$/i.test(file), script ? 'script' : 'module', false);
    return 'reason' in program ? undefined : program;
  } catch {
    return undefined;
  }
}

function adopt(item: unknown, parent: TSESTree.Node, stackOfNodes: TSESTree.Node[]): void {
  if (item && typeof (item as TSESTree.Node).type === 'string') {
    (item as { parent?: TSESTree.Node }).parent = parent;
    stackOfNodes.push(item as TSESTree.Node);
  }
}

/** ESLint sets `parent` while it traverses; a file parsed here gets it up front. */
function setParents(root: TSESTree.Node, visitorKeys: ParserStack['visitorKeys']): void {
  const stackOfNodes: TSESTree.Node[] = [root];
  while (stackOfNodes.length > 0) {
    const node = stackOfNodes.pop()!;
    for (const key of visitorKeys[node.type] ?? []) {
      const child = (node as unknown as Record<string, unknown>)[key];
      // No array is made for a single child: this runs on every node of every module read.
      if (Array.isArray(child)) {
        for (const item of child) adopt(item, node, stackOfNodes);
      } else {
        adopt(child, node, stackOfNodes);
      }
    }
  }
}

/**
 * An ESLint `SourceCode` for a project file's text, or undefined when it does not parse.
 * `tree`: oxc's tree of this same text from `parseTopLevelTree` (`reusable`), which the module
 * graph keeps when it looked at the exports first: the file is then not parsed a second time.
 */
export function parseProjectFile(file: string, text: string, tree?: TSESTree.Program): SourceCode | undefined {
  const parser = parserStack();
  if (!parser) return undefined;
  try {
    const script = /\.c[jt]s$/i.test(file);
    const ast = tree ?? fastTree(parser, file, text, script) ?? parser.parse(text, {
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

/**
 * The tree of a project file without scopes (a cheap look at its exports): oxc's where it can
 * (`reusable`: the very tree `parseProjectFile` would build), else typescript-estree's.
 */
export function parseTopLevelTree(file: string, text: string): { program: TSESTree.Program; reusable: boolean } | undefined {
  const parser = parserStack();
  if (!parser) return undefined;
  try {
    const fast = fastTree(parser, file, text, /\.c[jt]s$/i.test(file));
    if (fast) return { program: fast, reusable: true };
    return { program: parser.parse(text, { filePath: file, jsx: /\.[jt]sx$/i.test(file) || /\.m?js$/i.test(file), errorOnUnknownASTType: false, suppressDeprecatedPropertyWarnings: true }), reusable: false };
  } catch {
    return undefined;
  }
}

/** The tree of a project file without scopes (`parseTopLevelTree`). */
export function parseTopLevel(file: string, text: string): TSESTree.Program | undefined {
  return parseTopLevelTree(file, text)?.program;
}
