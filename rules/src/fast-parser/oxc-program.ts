/**
 * oxc's TS-ESTree program made into what ESLint and typescript-estree give rules: `loc` on every
 * node, comments with ranges, absent optional children as `undefined` rather than `null`, regular
 * expression flags as written, and the hints the token scanner needs. One walk does all of it.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { visitorKeys } from '@typescript-eslint/visitor-keys';
import { LineIndex, type SourceLocation } from './locations.js';
import { KEYWORD_LIKE, TokenHints } from './tokens.js';

/** Optional children typescript-estree leaves `undefined` where oxc writes `null`. */
const ABSENT_WHEN_NULL = ['typeAnnotation', 'typeArguments', 'typeParameters', 'returnType', 'accessibility', 'directive', 'superTypeArguments'] as const;
/** The same, for keys that are legitimately `null` on other node types. */
const ABSENT_WHEN_NULL_BY_TYPE: Record<string, readonly string[]> = {
  TSTypeParameter: ['default', 'constraint'],
  RestElement: ['value'],
  TSDeclareFunction: ['body'],
  TSEnumMember: ['initializer'],
  TSMappedType: ['readonly', 'optional'],
};
/** Where typescript-estree keeps `null` for a key of `ABSENT_WHEN_NULL`. */
const NULL_KEPT: Record<string, string> = { TSImportType: 'typeArguments' };

/**
 * The keys of `ABSENT_WHEN_NULL*` a node of this type has, found on its first node: oxc gives
 * every node of a type the same keys, and looking up absent keys on every node is slow.
 */
const absentKeysByType = new Map<string, readonly string[]>();
function absentKeysOf(node: RawNode): readonly string[] {
  let keys = absentKeysByType.get(node.type);
  if (!keys) {
    const kept = NULL_KEPT[node.type];
    keys = [...ABSENT_WHEN_NULL, ...(ABSENT_WHEN_NULL_BY_TYPE[node.type] ?? [])].filter((key) => key in node && key !== kept);
    absentKeysByType.set(node.type, keys);
  }
  return keys;
}

export interface OxcComment {
  type: 'Line' | 'Block';
  value: string;
  start: number;
  end: number;
}

export interface EslintComment {
  type: 'Line' | 'Block';
  value: string;
  range: [number, number];
  loc: SourceLocation;
}

interface RawNode {
  type: string;
  range: [number, number];
  loc?: SourceLocation;
  [key: string]: unknown;
}

export interface PreparedProgram {
  program: TSESTree.Program;
  comments: EslintComment[];
  hints: TokenHints;
  lines: LineIndex;
  /** Syntax seen on the walk that `divergences.ts` judges. */
  seen: Set<string>;
}

/**
 * Text between JSX children that no node covers (whitespace with a line break, which neither
 * tree keeps as a child) is still a JSX text token for typescript-estree.
 */
function fixChildGaps(element: RawNode, hints: TokenHints): void {
  const opening = (element.openingElement ?? element.openingFragment) as RawNode | undefined;
  const closing = (element.closingElement ?? element.closingFragment) as RawNode | null | undefined;
  if (!opening || !closing) return;
  let at = opening.range[1];
  for (const child of element.children as RawNode[]) {
    if (child.range[0] > at) hints.fix(at, child.range[0], 'JSXText');
    at = child.range[1];
  }
  if (closing.range[0] > at) hints.fix(at, closing.range[0], 'JSXText');
}

export function prepareProgram(text: string, program: RawNode, comments: readonly OxcComment[]): PreparedProgram {
  const lines = new LineIndex(text);
  const hints = new TokenHints();
  const seen = new Set<string>();
  const hasCarriageReturn = text.includes('\r');
  const keysOf = visitorKeys as Record<string, readonly string[] | undefined>;

  // Identifier nodes whose token typescript-estree types by their context rather than by the node.
  const contextTyped = new Set<RawNode>();
  let jsxDepth = 0;

  const visit = (node: RawNode, parent: RawNode | undefined): void => {
    const range = node.range;
    node.loc = lines.location(range[0], range[1]);
    for (const key of absentKeysOf(node)) if (node[key] === null) node[key] = undefined;
    switch (node.type) {
      case 'Identifier':
        if (!contextTyped.has(node) && KEYWORD_LIKE.test(node.name as string)) hints.wordIdentifiers.add(range[0]);
        break;
      case 'MetaProperty':
        // `new.target`, `import.meta`: the first word is a keyword token.
        contextTyped.add(node.meta as RawNode);
        break;
      case 'MemberExpression':
        // Inside JSX, typescript-estree types the names of a dotted access as JSX identifiers.
        if (jsxDepth > 0 && !node.computed) {
          for (const part of [node.object, node.property] as RawNode[]) {
            if (part.type === 'Identifier') {
              hints.fix(part.range[0], part.range[1], 'JSXIdentifier');
              contextTyped.add(part);
            }
          }
        }
        break;
      case 'JSXNamespacedName':
        // `svg:rect`, `xlink:href`: typescript-estree types both names as plain identifier tokens.
        for (const part of [node.namespace, node.name] as RawNode[]) {
          hints.fix(part.range[0], part.range[1], 'Identifier');
          contextTyped.add(part);
        }
        break;
      case 'Literal': {
        const regex = node.regex as { pattern: string; flags: string } | undefined;
        if (regex) {
          // oxc sorts the flags; typescript-estree keeps them as written.
          regex.flags = (node.raw as string).slice((node.raw as string).lastIndexOf('/') + 1);
          hints.fix(range[0], range[1], 'RegularExpression');
        } else if (parent?.type === 'JSXAttribute') {
          hints.fix(range[0], range[1], 'JSXText');
          if ((node.raw as string).includes('&')) seen.add('jsx-character-reference');
        }
        break;
      }
      case 'TemplateElement':
        hints.fix(range[0], range[1], 'Template');
        // oxc turns CRLF in a template's raw text into LF; typescript-estree keeps the text as written.
        if (hasCarriageReturn) (node.value as { raw: string }).raw = text.slice(range[0] + 1, range[1] - (node.tail ? 1 : 2));
        break;
      case 'ImportDeclaration':
      case 'ImportExpression':
        if (node.phase === 'source') seen.add('import-source');
        break;
      case 'TSEnumMember':
        if (node.computed) seen.add('computed-enum-member');
        break;
      case 'JSXText':
        hints.fix(range[0], range[1], 'JSXText');
        if ((node.raw as string).includes('&')) seen.add('jsx-character-reference');
        break;
      case 'JSXElement':
      case 'JSXFragment':
        fixChildGaps(node, hints);
        break;
      case 'JSXIdentifier':
        if (!contextTyped.has(node)) hints.fix(range[0], range[1], 'JSXIdentifier');
        break;
      case 'TSTypeParameterInstantiation':
      case 'TSTypeParameterDeclaration':
        hints.openingAngles.add(range[0]);
        hints.closingAngles.add(range[1] - 1);
        break;
      default:
        break;
    }
    const keys = keysOf[node.type];
    if (!keys) return;
    const jsx = node.type === 'JSXElement' || node.type === 'JSXFragment';
    if (jsx) jsxDepth++;
    for (const key of keys) {
      const child = node[key] as RawNode | RawNode[] | null | undefined;
      if (!child) continue;
      if (Array.isArray(child)) {
        for (const item of child) if (item) visit(item, node);
      } else {
        visit(child, node);
      }
    }
    if (jsx) jsxDepth--;
  };
  visit(program, undefined);
  // typescript-estree reports no hashbang; ESLint reads only `comments`.
  delete program.hashbang;

  const eslintComments = comments.map(
    (c): EslintComment => ({ type: c.type, value: c.value, range: [c.start, c.end], loc: lines.location(c.start, c.end) }),
  );
  return { program: program as unknown as TSESTree.Program, comments: eslintComments, hints, lines, seen };
}
