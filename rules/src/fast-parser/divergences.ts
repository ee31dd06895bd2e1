/**
 * Syntax where oxc's tree is known to differ from typescript-estree's in what rules could see.
 * A file that holds any of it is parsed by `@typescript-eslint/parser` instead. The equivalence
 * test (rules/tests/fast-parser/) finds new entries for this list.
 */
import type { PreparedProgram } from './oxc-program.js';

const REASONS: Record<string, string> = {
  // typescript-estree decodes `&amp;` and friends in JSX text and attribute values; oxc keeps them raw.
  'jsx-character-reference': 'JSX text with character references (&amp;), which the two parsers decode differently',
  // Syntax oxc accepts and typescript-estree rejects: the fallback reports the syntax error.
  'import-source': '`import source`, which typescript-estree does not accept',
  'computed-enum-member': 'a computed enum member name, which typescript-estree does not accept',
};

export function divergenceIn(prepared: PreparedProgram): string | undefined {
  for (const feature of prepared.seen) {
    const reason = REASONS[feature];
    if (reason) return reason;
  }
  return undefined;
}
