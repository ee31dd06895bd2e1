/**
 * ESLint tokens for a program oxc parsed. oxc returns no tokens, so TypeScript's own scanner
 * reads the text, and the tree settles what a scanner alone cannot know: where a `/` starts a
 * regular expression, where a `}` continues a template, what is JSX text, whether `>>` is one
 * shift operator or two closing type brackets, and whether `static` or `true` is a name or a
 * keyword. The token types follow typescript-estree's, so rules see the same tokens with
 * either parser.
 */
import ts from 'typescript';
import type { LineIndex, SourceLocation } from './locations.js';

export type TokenType =
  | 'Boolean' | 'Identifier' | 'JSXIdentifier' | 'JSXText' | 'Keyword' | 'Null' | 'Numeric'
  | 'Punctuator' | 'RegularExpression' | 'String' | 'Template' | 'PrivateIdentifier';

export interface Token {
  type: TokenType;
  value: string;
  range: [number, number];
  loc: SourceLocation;
  regex?: { pattern: string; flags: string };
}

/** What the tree tells the scanner, gathered while the tree is walked once. */
export class TokenHints {
  /** Tokens whose extent and type come from a node: regular expressions, template parts, JSX text and names. */
  readonly fixed: Array<{ start: number; end: number; type: TokenType }> = [];
  /** Offsets of a `<` that opens type parameters or arguments: never part of `<<`. */
  readonly openingAngles = new Set<number>();
  /** Offsets of a `>` that closes type parameters or arguments: never part of `>>` or `>=`. */
  readonly closingAngles = new Set<number>();
  /** Offsets where a word the scanner reads as a keyword (`delete`, `static`, `true`, `as`) is an identifier node. */
  readonly wordIdentifiers = new Set<number>();

  fix(start: number, end: number, type: TokenType): void {
    this.fixed.push({ start, end, type });
  }
}

/** Names that may be keywords to the scanner (every keyword is lower-case ASCII). */
export const KEYWORD_LIKE = /^[a-z]+$/;

const K = ts.SyntaxKind;

function typeOfKind(kind: ts.SyntaxKind, start: number, hints: TokenHints): TokenType {
  if (kind === K.Identifier) return 'Identifier';
  if (kind >= K.FirstKeyword && kind <= K.LastKeyword && hints.wordIdentifiers.has(start)) return 'Identifier';
  if (kind === K.NullKeyword) return 'Null';
  if (kind === K.TrueKeyword || kind === K.FalseKeyword) return 'Boolean';
  if (kind >= K.FirstReservedWord && kind <= K.LastFutureReservedWord) return 'Keyword';
  // Contextual keywords (`async`, `type`, `as`, `of`, `readonly`, ...) are identifiers to ESLint.
  if (kind > K.LastFutureReservedWord && kind <= K.LastKeyword) return 'Identifier';
  if (kind >= K.FirstPunctuation && kind <= K.LastPunctuation) return 'Punctuator';
  switch (kind) {
    case K.NumericLiteral:
    case K.BigIntLiteral:
      return 'Numeric';
    case K.StringLiteral:
      return 'String';
    case K.PrivateIdentifier:
      return 'PrivateIdentifier';
    case K.RegularExpressionLiteral:
      return 'RegularExpression';
    case K.NoSubstitutionTemplateLiteral:
    case K.TemplateHead:
    case K.TemplateMiddle:
    case K.TemplateTail:
      return 'Template';
    default:
      return 'Punctuator';
  }
}

const scanner = ts.createScanner(ts.ScriptTarget.Latest, /* skipTrivia */ true, ts.LanguageVariant.Standard);

function makeToken(text: string, start: number, end: number, type: TokenType, lines: LineIndex): Token {
  const value = text.slice(start, end);
  const token: Token = { type, value, range: [start, end], loc: lines.location(start, end) };
  if (type === 'RegularExpression') {
    const slash = value.lastIndexOf('/');
    token.regex = { pattern: value.slice(1, slash), flags: value.slice(slash + 1) };
  } else if (type === 'PrivateIdentifier') {
    token.value = value.slice(1);
  }
  return token;
}

export function scanTokens(text: string, hints: TokenHints, lines: LineIndex): Token[] {
  const fixed = hints.fixed.sort((a, b) => a.start - b.start);
  const tokens: Token[] = [];
  let next = 0;
  let previousEnd = 0;
  scanner.setText(text);
  try {
    for (;;) {
      let kind = scanner.scan();
      const start = scanner.getTokenStart();
      while (next < fixed.length && fixed[next].start < previousEnd) next++;
      const hint = fixed[next];
      // A fixed token may start in what the scanner skipped as trivia (JSX text that begins with spaces).
      if (hint && hint.start <= start) {
        tokens.push(makeToken(text, hint.start, hint.end, hint.type, lines));
        scanner.resetTokenState(hint.end);
        previousEnd = hint.end;
        next++;
        continue;
      }
      if (kind === K.EndOfFileToken) break;
      if (kind === K.GreaterThanToken && !hints.closingAngles.has(start)) kind = scanner.reScanGreaterToken();
      let end = scanner.getTokenEnd();
      if ((kind === K.LessThanLessThanToken || kind === K.LessThanLessThanEqualsToken) && hints.openingAngles.has(start)) {
        kind = K.LessThanToken;
        end = start + 1;
        scanner.resetTokenState(end);
      }
      if (hint && hint.start < end) {
        // A token never runs into one the tree fixes (JSX text right after a `>`).
        end = hint.start;
        scanner.resetTokenState(end);
      }
      tokens.push(makeToken(text, start, end, typeOfKind(kind, start, hints), lines));
      previousEnd = end;
    }
  } finally {
    scanner.setText(undefined);
  }
  return tokens;
}
