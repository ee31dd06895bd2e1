import { describe, expect, it } from 'vitest';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { disableNextLineEdit, minimalEdit } from '../src/code-actions.js';
import { skipReason } from '../src/lint-engine.js';
import { normalizeSettings } from '../src/settings.js';
import { applyTextEdits } from './lsp-client.js';
const doc = (text) => TextDocument.create('file:///x.ts', 'typescript', 1, text);
describe('disable for this line', () => {
    it('inserts the directive above the line with its indentation', () => {
        const text = 'async function f() {\n    await pool.query(sql);\n}\n';
        const edit = disableNextLineEdit(doc(text), 1, 'fencelint/require-fence-condition');
        expect(applyTextEdits(text, [edit])).toBe('async function f() {\n    // eslint-disable-next-line fencelint/require-fence-condition\n    await pool.query(sql);\n}\n');
    });
    it('appends the rule to a directive already on the line above, before its description', () => {
        const text = '  // eslint-disable-next-line no-console -- reviewed\n  await pool.query(sql);\n';
        const edit = disableNextLineEdit(doc(text), 1, 'fencelint/require-fence-condition');
        expect(applyTextEdits(text, [edit])).toBe('  // eslint-disable-next-line no-console, fencelint/require-fence-condition -- reviewed\n  await pool.query(sql);\n');
    });
    it('keeps CRLF line ends', () => {
        const text = 'a();\r\nb();\r\n';
        const edit = disableNextLineEdit(doc(text), 1, 'fencelint/x');
        expect(applyTextEdits(text, [edit])).toBe('a();\r\n// eslint-disable-next-line fencelint/x\r\nb();\r\n');
    });
});
describe('fix-all edit', () => {
    it('replaces only the span between the common prefix and suffix', () => {
        const before = "query('UPDATE t SET v = $1 WHERE k = $2', [v, k]);";
        const after = "query('UPDATE t SET v = $1 WHERE k = $2 AND fence_token < $3', [v, k, token]);";
        const edit = minimalEdit(doc(before), before, after);
        expect(edit.range.start.character).toBeGreaterThan(30);
        expect(applyTextEdits(before, [edit])).toBe(after);
        expect(minimalEdit(doc(before), before, before)).toBeUndefined();
    });
});
describe('settings', () => {
    it('accepts the documented shapes and names every value it ignores', () => {
        const { settings, problems } = normalizeSettings({
            enable: true,
            run: 'onSave',
            rules: { 'fencelint/require-fence-condition': 'warn', 'no-late-write': 2, other: 'loud' },
            tokenColumn: 'generation',
            models: { locks: [{ id: 'acme', packages: ['@acme/lease'] }] },
            useWorkspaceConfig: 'yes',
            fixAll: { includeSuggestions: true },
        });
        expect(settings).toMatchObject({
            enable: true,
            run: 'onSave',
            rules: { 'require-fence-condition': 'warn', 'no-late-write': 'error' },
            tokenColumn: 'generation',
            models: { locks: [{ id: 'acme', packages: ['@acme/lease'] }] },
            useWorkspaceConfig: false,
            fixAll: { includeSuggestions: true },
        });
        expect(problems).toEqual(['fencelint.rules.other must be "off", "warn" or "error"', 'fencelint.useWorkspaceConfig must be true or false']);
    });
    it('falls back to the defaults for anything that is not an object', () => {
        expect(normalizeSettings('on').settings.enable).toBe(true);
        expect(normalizeSettings('on').problems).toHaveLength(1);
        expect(normalizeSettings(undefined).problems).toEqual([]);
    });
});
describe('what is not linted', () => {
    it('skips text over 2 MB and text with NUL bytes, and nothing else', () => {
        expect(skipReason('x'.repeat(2 * 1024 * 1024 + 1))).toBe('larger than 2 MB');
        expect(skipReason('é'.repeat(1024 * 1024 + 1))).toBe('larger than 2 MB');
        expect(skipReason('\u0000\u0001ELF')).toBe('binary content');
        expect(skipReason('const a = 1;\n'.repeat(10_000))).toBeUndefined();
    });
});
//# sourceMappingURL=code-actions-and-settings.test.js.map