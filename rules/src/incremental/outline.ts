/**
 * The top-level statements of a file, and the names through which one can change what the
 * analysis finds in another. The analysis keys several tables by name, file-wide (same-file
 * functions and methods, receiver kinds, members read on a handle), so two statements are tied
 * when they share a name that either declares in a way those tables record, and not only
 * when one calls the other. Read from oxc's tree without scopes: a shadowed name ties too,
 * which costs reuse, never correctness.
 */
type OxcModule = typeof import('oxc-parser');

let oxc: OxcModule | undefined;
try {
  oxc = await import('oxc-parser');
} catch {
  // No oxc binding for this platform: no outline, every lint is a whole-file lint.
}

interface AnyNode {
  type: string;
  range: [number, number];
  [key: string]: unknown;
}

export interface Statement {
  range: [number, number];
  /** Holds a function or class, or names one that does: its findings are its own group's. */
  unit: boolean;
  /** Names declared at the top level. */
  declares: Set<string>;
  /** Variables declared inside in a way the analysis records by name (bound to a call, typed parameters, loop variables): tie by identifier. */
  keyed: Set<string>;
  /** Members declared inside (methods, fields, function-valued properties, assigned members): tie by identifier or member name. */
  keyedMembers: Set<string>;
  /** Every identifier in the statement. */
  mentions: Set<string>;
  /** Every member and property name in the statement, and identifier-like strings. */
  members: Set<string>;
  /**
   * Runs nothing: no call but `super()`, no `new`, `await`, tagged template, increment or
   * compound assignment (an error class, a type guard). It can make no write, acquire or token,
   * so statements that name it are not tied through it; each slice that names it holds it.
   */
  passive: boolean;
  /** A top-level `let`/`var`, or a `const` holding state (a `new Map()`, an object): statements that name it share it. */
  shared: Set<string>;
}

export interface Outline {
  statements: Statement[];
  /** Comments the linter reads (directives, annotations): kept in every slice. */
  directives: Array<[number, number]>;
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassDeclaration', 'ClassExpression', 'TSDeclareFunction']);
const IDENTIFIER_LIKE = /^[A-Za-z_$#][\w$]*$/;
/** Statements whose first character could join them to the one before once the statements between are blanked. */
const ASI_HAZARD = /^[([`+\-/<]/;
const DIRECTIVE_COMMENT = /eslint|global|exported|fencelint|@ts-/i;

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as AnyNode).type === 'string' && Array.isArray((value as AnyNode).range);
}

function children(node: AnyNode): AnyNode[] {
  const out: AnyNode[] = [];
  for (const key in node) {
    if (key === 'range' || key === 'type' || key === 'start' || key === 'end' || key === 'parent') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) out.push(item);
    } else if (isNode(value)) {
      out.push(value);
    }
  }
  return out;
}

function patternNames(pattern: unknown, into: Set<string>): void {
  if (!isNode(pattern)) return;
  switch (pattern.type) {
    case 'Identifier':
      into.add(pattern.name as string);
      return;
    case 'ObjectPattern':
      for (const prop of pattern.properties as AnyNode[]) patternNames(prop.type === 'RestElement' ? prop.argument : prop.value, into);
      return;
    case 'ArrayPattern':
      for (const element of pattern.elements as unknown[]) patternNames(element, into);
      return;
    case 'AssignmentPattern':
      patternNames(pattern.left, into);
      return;
    case 'RestElement':
      patternNames(pattern.argument, into);
      return;
    case 'TSParameterProperty':
      patternNames(pattern.parameter, into);
      return;
    default:
      return;
  }
}

/** A value no table keeps: a literal, a template without expressions, arithmetic on those. */
function isPlainValue(node: unknown): boolean {
  if (!isNode(node)) return false;
  switch (node.type) {
    case 'Literal':
      return true;
    case 'TemplateLiteral':
      return (node.expressions as unknown[]).length === 0;
    case 'UnaryExpression':
      return isPlainValue(node.argument);
    case 'BinaryExpression':
      return isPlainValue(node.left) && isPlainValue(node.right);
    default:
      return false;
  }
}

function hasTypeReference(node: unknown): boolean {
  if (!isNode(node)) return false;
  if (node.type === 'TSTypeReference' || node.type === 'TSTypeQuery' || node.type === 'TSImportType') return true;
  return children(node).some(hasTypeReference);
}

function memberKeyName(node: AnyNode): string | undefined {
  const key = node.key as AnyNode | undefined;
  if (!key) return undefined;
  if (key.type === 'Identifier' || key.type === 'PrivateIdentifier') return key.name as string;
  if (key.type === 'Literal' && typeof key.value === 'string') return key.value;
  return undefined;
}

function lastMemberName(node: AnyNode): string | undefined {
  let target = node;
  while (target.type === 'TSNonNullExpression' || target.type === 'TSAsExpression') target = target.expression as AnyNode;
  if (target.type === 'Identifier') return target.name as string;
  if (target.type === 'MemberExpression') {
    const property = target.property as AnyNode;
    if (property.type === 'Identifier' || property.type === 'PrivateIdentifier') return property.name as string;
    if (property.type === 'Literal' && typeof property.value === 'string') return property.value;
  }
  return undefined;
}

/** Names inside a statement: every one mentioned, and those declared in a way the analysis records by name. */
function readNames(root: AnyNode, statement: Statement): void {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.type) {
      case 'Identifier':
      case 'JSXIdentifier':
        statement.mentions.add(node.name as string);
        break;
      case 'PrivateIdentifier':
        statement.members.add(node.name as string);
        break;
      case 'MemberExpression':
        if (node.computed !== true && isNode(node.property)) {
          statement.members.add((node.property as AnyNode).name as string);
          // The property is a name, not a reference: read the object only.
          stack.push(node.object as AnyNode);
          continue;
        }
        break;
      case 'CallExpression':
        if ((node.callee as AnyNode).type !== 'Super') statement.passive = false;
        break;
      case 'NewExpression':
      case 'TaggedTemplateExpression':
      case 'AwaitExpression':
      case 'UpdateExpression':
      case 'YieldExpression':
      case 'ImportExpression':
        statement.passive = false;
        break;
      case 'Literal':
        // `obj['save']()`: a string can name a member.
        if (typeof node.value === 'string' && IDENTIFIER_LIKE.test(node.value)) statement.members.add(node.value);
        break;
      case 'VariableDeclarator':
        if (!isPlainValue(node.init)) patternNames(node.id, statement.keyed);
        break;
      case 'AssignmentExpression': {
        if (node.operator !== '=') statement.passive = false;
        if (isPlainValue(node.right)) break;
        const left = node.left as AnyNode;
        const name = lastMemberName(left);
        if (name) statement.keyedMembers.add(name);
        patternNames(left, statement.keyed);
        break;
      }
      case 'MethodDefinition':
      case 'PropertyDefinition':
      case 'AccessorProperty':
      case 'TSAbstractMethodDefinition':
      case 'TSAbstractPropertyDefinition': {
        const name = memberKeyName(node);
        if (name) statement.keyedMembers.add(name);
        break;
      }
      case 'Property': {
        // Object literals record functions by key (`{ save() {} }`, `{ save: async () => {} }`).
        const name = memberKeyName(node);
        const value = node.value as AnyNode;
        if (name && (node.method === true || value.type === 'FunctionExpression' || value.type === 'ArrowFunctionExpression')) statement.keyedMembers.add(name);
        break;
      }
      case 'TSParameterProperty':
        patternNames(node.parameter, statement.keyed);
        patternNames(node.parameter, statement.keyedMembers);
        break;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
      case 'TSDeclareFunction':
        if (isNode(node.id)) statement.keyed.add(node.id.name as string);
        for (const param of (node.params as AnyNode[]) ?? []) {
          const typed = param.type === 'TSParameterProperty' || hasTypeReference(param) || (param.type === 'AssignmentPattern' && !isPlainValue(param.right));
          if (typed) patternNames(param, statement.keyed);
        }
        break;
      case 'ClassDeclaration':
      case 'ClassExpression':
        if (isNode(node.id)) statement.keyed.add(node.id.name as string);
        break;
      case 'CatchClause':
      case 'ForOfStatement':
      case 'ForInStatement':
        // A loop variable or caught error can be recorded with its element's kind.
        if (node.type === 'CatchClause') patternNames(node.param, statement.keyed);
        break;
      default:
        break;
    }
    // A key that is not computed names a member; it refers to nothing.
    const key = node.key as AnyNode | undefined;
    const namedKey = node.computed !== true && node.shorthand !== true && isNode(key) && (key.type === 'Identifier' || key.type === 'PrivateIdentifier');
    if (namedKey) statement.members.add(key.name as string);
    for (const child of children(node)) if (!(namedKey && child === key)) stack.push(child);
  }
}

function containsFunction(node: AnyNode): boolean {
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (FUNCTION_TYPES.has(next.type)) return true;
    for (const child of children(next)) stack.push(child);
  }
  return false;
}

function unwrapExport(node: AnyNode): AnyNode | undefined {
  if (node.type === 'ExportNamedDeclaration' || node.type === 'ExportDefaultDeclaration') return isNode(node.declaration) ? node.declaration : undefined;
  return node;
}

function topLevelDeclarations(node: AnyNode, statement: Statement, imported: Set<string>): void {
  if (node.type === 'ImportDeclaration') {
    for (const specifier of (node.specifiers as AnyNode[]) ?? []) patternNames(specifier.local, imported);
    return;
  }
  if (node.type === 'TSImportEqualsDeclaration') {
    patternNames(node.id, imported);
    return;
  }
  const declaration = unwrapExport(node);
  if (!declaration) return;
  if (declaration.type === 'VariableDeclaration') {
    for (const declarator of declaration.declarations as AnyNode[]) {
      const names = new Set<string>();
      patternNames(declarator.id, names);
      for (const name of names) statement.declares.add(name);
      const init = declarator.init;
      const fixed = declaration.kind === 'const' && (isPlainValue(init) || isLibraryClient(init, imported));
      if (!fixed) for (const name of names) statement.shared.add(name);
    }
    return;
  }
  if (isNode(declaration.id) && typeof declaration.id.name === 'string') statement.declares.add(declaration.id.name);
}

/** `new Pool()`, `postgres()`, `knex({...})`: a client made by an imported library, which no statement of the file changes. */
function isLibraryClient(init: unknown, imported: Set<string>): boolean {
  if (!isNode(init)) return false;
  if (init.type !== 'NewExpression' && init.type !== 'CallExpression') return false;
  let callee = init.callee as AnyNode;
  while (callee.type === 'MemberExpression') callee = callee.object as AnyNode;
  return callee.type === 'Identifier' && imported.has(callee.name as string);
}

/** The outline of `text`, or undefined when it cannot be split safely (a syntax error, a statement that starts like a continuation). */
export function outlineOf(text: string, filename: string): Outline | undefined {
  if (!oxc) return undefined;
  const lang = /\.[cm]?tsx$|\.jsx$/i.test(filename) ? 'tsx' : /\.[cm]?js$/i.test(filename) ? 'js' : 'ts';
  let parsed: ReturnType<OxcModule['parseSync']>;
  try {
    parsed = oxc.parseSync(filename, text, { lang, astType: 'ts', range: true, preserveParens: false });
  } catch {
    return undefined;
  }
  if (parsed.errors.length > 0) return undefined;
  const program = parsed.program as unknown as { body: AnyNode[] };
  const imported = new Set<string>();
  const statements: Statement[] = [];
  for (const node of program.body) {
    if (ASI_HAZARD.test(text.slice(node.range[0], node.range[0] + 1))) return undefined;
    const statement: Statement = {
      range: node.range, unit: containsFunction(node), declares: new Set(), keyed: new Set(), keyedMembers: new Set(), mentions: new Set(), members: new Set(), shared: new Set(), passive: true,
    };
    topLevelDeclarations(node, statement, imported);
    readNames(node, statement);
    statements.push(statement);
  }
  // A statement that names a unit's declaration (`export { save }`, `main().catch(...)`) is part of it.
  for (let changed = true; changed; ) {
    changed = false;
    const unitNames = new Set<string>();
    for (const s of statements) if (s.unit) for (const name of s.declares) unitNames.add(name);
    for (const s of statements) {
      if (s.unit) continue;
      for (const name of s.mentions) {
        if (unitNames.has(name) && !s.declares.has(name)) {
          s.unit = true;
          changed = true;
          break;
        }
      }
    }
  }
  const directives: Array<[number, number]> = [];
  for (const comment of parsed.comments as Array<{ start: number; end: number; value: string }>) {
    if (DIRECTIVE_COMMENT.test(comment.value)) directives.push([comment.start, comment.end]);
  }
  return { statements, directives };
}
