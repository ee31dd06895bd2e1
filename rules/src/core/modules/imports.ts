/** Which local names come from which package: the first step of resolving a receiver. */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { memberName, staticString, unwrap, type Node } from '../ast.js';

export interface ImportBinding {
  source: string;
  /** 'default', '*' for a namespace object, or the exported name. */
  exported: string;
}

export type ImportTable = Map<string, ImportBinding>;

/**
 * `require('x')`, `require('x').default`, `require('x').Name` -> the binding it yields; so does
 * `await import('x')`, whose module object is destructured as a `require` is.
 */
function requireBinding(init: Node): ImportBinding | undefined {
  const node = unwrap(init);
  if (node.type === AST_NODE_TYPES.ImportExpression) {
    const source = staticString(node.source);
    return source !== undefined ? { source, exported: '*' } : undefined;
  }
  if (node.type === AST_NODE_TYPES.CallExpression) {
    const callee = unwrap(node.callee);
    if (callee.type === AST_NODE_TYPES.Identifier && callee.name === 'require' && node.arguments[0]) {
      const source = staticString(node.arguments[0]);
      if (source !== undefined) return { source, exported: '*' };
    }
    return undefined;
  }
  if (node.type === AST_NODE_TYPES.MemberExpression) {
    const inner = requireBinding(node.object);
    const name = memberName(node);
    if (inner && inner.exported === '*' && name) return { source: inner.source, exported: name === 'default' ? 'default' : name };
  }
  return undefined;
}

/** Records one import-like statement into the table. */
export function recordImport(node: Node, table: ImportTable): void {
  if (node.type === AST_NODE_TYPES.ImportDeclaration) {
    const source = node.source.value;
    for (const spec of node.specifiers) {
      if (spec.type === AST_NODE_TYPES.ImportDefaultSpecifier) table.set(spec.local.name, { source, exported: 'default' });
      else if (spec.type === AST_NODE_TYPES.ImportNamespaceSpecifier) table.set(spec.local.name, { source, exported: '*' });
      else {
        const imported = spec.imported.type === AST_NODE_TYPES.Identifier ? spec.imported.name : String(spec.imported.value);
        table.set(spec.local.name, { source, exported: imported });
      }
    }
    return;
  }
  if (node.type === AST_NODE_TYPES.TSImportEqualsDeclaration) {
    const ref = node.moduleReference;
    if (ref.type === AST_NODE_TYPES.TSExternalModuleReference && ref.expression.type === AST_NODE_TYPES.Literal) {
      table.set(node.id.name, { source: String(ref.expression.value), exported: '*' });
    }
    return;
  }
  if (node.type === AST_NODE_TYPES.VariableDeclarator && node.init) {
    const binding = requireBinding(node.init);
    if (!binding) return;
    if (node.id.type === AST_NODE_TYPES.Identifier) {
      // CommonJS packages often export the class itself: `const Redlock = require('redlock')`.
      table.set(node.id.name, binding.exported === '*' ? { source: binding.source, exported: '*' } : binding);
    } else if (node.id.type === AST_NODE_TYPES.ObjectPattern) {
      for (const prop of node.id.properties) {
        if (prop.type !== AST_NODE_TYPES.Property || prop.key.type !== AST_NODE_TYPES.Identifier) continue;
        const value = prop.value.type === AST_NODE_TYPES.AssignmentPattern ? prop.value.left : prop.value;
        if (value.type === AST_NODE_TYPES.Identifier) table.set(value.name, { source: binding.source, exported: prop.key.name });
      }
    }
  }
}

/**
 * What an expression names in terms of imports: `Redlock` -> redlock default,
 * `pg.Pool` -> pg Pool, `Redis.Cluster` -> ioredis Cluster.
 */
export function resolveImported(node: Node, table: ImportTable): ImportBinding | undefined {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) return table.get(n.name);
  if (n.type === AST_NODE_TYPES.MemberExpression) {
    const inner = resolveImported(n.object, table);
    const name = memberName(n);
    if (!inner || !name) return undefined;
    if (inner.exported === '*' || inner.exported === 'default') return { source: inner.source, exported: name === 'default' ? 'default' : name };
  }
  return undefined;
}

/** A type annotation's referenced name resolved through imports (`pool: Pool`, `lock: Redlock`). */
export function resolveTypeAnnotation(annotation: TSESTree.TypeNode | undefined, table: ImportTable): ImportBinding | undefined {
  if (!annotation || annotation.type !== AST_NODE_TYPES.TSTypeReference) return undefined;
  const name = annotation.typeName;
  if (name.type === AST_NODE_TYPES.Identifier) return table.get(name.name);
  if (name.type === AST_NODE_TYPES.TSQualifiedName && name.left.type === AST_NODE_TYPES.Identifier) {
    const inner = table.get(name.left.name);
    if (inner) return { source: inner.source, exported: name.right.name };
  }
  return undefined;
}

/** Whether a binding names a package export, accepting both the named and the CommonJS namespace form. */
export function bindingMatches(binding: ImportBinding, packages: readonly string[], exports: readonly string[]): boolean {
  if (!packages.includes(binding.source)) return false;
  return exports.includes(binding.exported) || (binding.exported === '*' && exports.includes('default'));
}
