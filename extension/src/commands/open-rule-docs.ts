import * as vscode from 'vscode';
import { RULE_DOCS_INDEX } from '../protocol';

interface RuleDoc {
  rule: string;
  href: vscode.Uri;
}

/** The fencelint rules reported in a document, each with the docs link its diagnostic carries. */
function ruleDocsIn(uri: vscode.Uri, position?: vscode.Position): RuleDoc[] {
  const docs = new Map<string, RuleDoc>();
  for (const diagnostic of vscode.languages.getDiagnostics(uri)) {
    if (diagnostic.source !== 'fencelint' || typeof diagnostic.code !== 'object') continue;
    if (position && !diagnostic.range.contains(position)) continue;
    const rule = String(diagnostic.code.value);
    docs.set(rule, { rule, href: diagnostic.code.target });
  }
  return [...docs.values()];
}

/**
 * Opens the documentation of the fencelint rule under the cursor; with several
 * candidates the user picks one, with none the rule index opens.
 */
export async function openRuleDocumentation(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const atCursor = editor ? ruleDocsIn(editor.document.uri, editor.selection.active) : [];
  const candidates = atCursor.length > 0 ? atCursor : editor ? ruleDocsIn(editor.document.uri) : [];
  let target: vscode.Uri | undefined;
  if (candidates.length === 1) {
    target = candidates[0].href;
  } else if (candidates.length > 1) {
    const picked = await vscode.window.showQuickPick(
      candidates.map((doc) => ({ label: doc.rule, description: doc.href.toString(), doc })),
      { placeHolder: 'Which rule?' },
    );
    target = picked?.doc.href;
    if (!target) return;
  } else {
    target = vscode.Uri.parse(RULE_DOCS_INDEX);
  }
  await vscode.env.openExternal(target);
}
