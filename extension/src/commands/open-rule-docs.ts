import { existsSync } from 'node:fs';
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
 * The page shipped in the extension (dist/docs) for a rule id or a docs URL ending in
 * `/<rule>.md`: the docs of this very version, readable offline.
 */
export function bundledPage(context: vscode.ExtensionContext, ruleOrUrl: string): vscode.Uri | undefined {
  const name = /([a-z0-9-]+)(?:\.md)?$/i.exec(ruleOrUrl.replace(/^fencelint\//, '').replace(/[?#].*$/, ''))?.[1];
  if (!name) return undefined;
  const file = context.asAbsolutePath(`dist/docs/rules/${name}.md`);
  return existsSync(file) ? vscode.Uri.file(file) : undefined;
}

/** Opens the bundled page in the Markdown preview, or the web page when none is bundled. */
export async function openDocs(context: vscode.ExtensionContext, ruleOrUrl: string, web: vscode.Uri): Promise<void> {
  const page = bundledPage(context, ruleOrUrl);
  if (page) await vscode.commands.executeCommand('markdown.showPreview', page);
  else await vscode.env.openExternal(web);
}

/**
 * Opens the documentation of the fencelint rule under the cursor; with several
 * candidates the user picks one, with none the rule index opens.
 */
export async function openRuleDocumentation(context: vscode.ExtensionContext): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const atCursor = editor ? ruleDocsIn(editor.document.uri, editor.selection.active) : [];
  const candidates = atCursor.length > 0 ? atCursor : editor ? ruleDocsIn(editor.document.uri) : [];
  let target: RuleDoc | undefined;
  if (candidates.length === 1) {
    target = candidates[0];
  } else if (candidates.length > 1) {
    const picked = await vscode.window.showQuickPick(
      candidates.map((doc) => ({ label: doc.rule, description: doc.href.toString(), doc })),
      { placeHolder: 'Which rule?' },
    );
    target = picked?.doc;
    if (!target) return;
  }
  if (target) await openDocs(context, target.rule, target.href);
  else await vscode.env.openExternal(vscode.Uri.parse(RULE_DOCS_INDEX));
}
