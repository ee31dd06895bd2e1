import type { TSESTree } from '@typescript-eslint/utils';

/**
 * Where a finding on a call or tagged template is underlined: from its start to the end of
 * the callee or tag, so a multi-line query is not painted from end to end.
 */
export function callHeadLoc(node: TSESTree.CallExpression | TSESTree.NewExpression | TSESTree.TaggedTemplateExpression): TSESTree.SourceLocation {
  const head = node.type === 'TaggedTemplateExpression' ? node.tag : node.callee;
  // A command sent as it is made (`ddb.send(\n new PutCommand({...}))`): the write starts at the send.
  const sender = node.type === 'NewExpression' && node.parent?.type === 'CallExpression' && node.parent.arguments[0] === node ? node.parent : undefined;
  return { start: (sender ?? node).loc.start, end: head.loc.end };
}

/** Source text folded to one line and shortened, for quoting code inside a message. */
export function oneLine(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
