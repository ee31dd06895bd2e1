/**
 * What an export is, read off its declaration alone: project code (a function, a class, an
 * instance of a class of the same module) or anything else. A receiver (a database or Redis
 * client, a lock authority) is never project code, so asking whether an imported name is one
 * needs no summary of its module when the declaration already says it is code. In a large
 * project most imported names are services and helpers; summarising each of them to learn
 * that it is no client would spend the module graph's bounds before the locks are reached.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';

export type ExportShape = 'code' | 'other';

type Declaration = TSESTree.Node;

/** Top-level declarations by name, and the exports by exported name. */
function declarations(program: TSESTree.Program): { locals: Map<string, Declaration>; exports: Map<string, Declaration | 'other'> } {
  const locals = new Map<string, Declaration>();
  const exports = new Map<string, Declaration | 'other'>();
  const declare = (decl: TSESTree.Node | null | undefined, exported: boolean) => {
    if (!decl) return;
    if ((decl.type === AST_NODE_TYPES.FunctionDeclaration || decl.type === AST_NODE_TYPES.ClassDeclaration) && decl.id) {
      locals.set(decl.id.name, decl);
      if (exported) exports.set(decl.id.name, decl);
    } else if (decl.type === AST_NODE_TYPES.VariableDeclaration) {
      for (const d of decl.declarations) {
        if (d.id.type !== AST_NODE_TYPES.Identifier) continue;
        locals.set(d.id.name, d.init ?? d);
        if (exported) exports.set(d.id.name, d.init ?? 'other');
      }
    }
  };
  for (const statement of program.body) {
    if (statement.type === AST_NODE_TYPES.ExportNamedDeclaration) {
      declare(statement.declaration, true);
      for (const spec of statement.specifiers) {
        const name = spec.exported.type === AST_NODE_TYPES.Identifier ? spec.exported.name : String(spec.exported.value);
        // `export { x } from './y'` is another module's export: not read here.
        exports.set(name, statement.source || spec.local.type !== AST_NODE_TYPES.Identifier ? 'other' : spec.local);
      }
    } else if (statement.type === AST_NODE_TYPES.ExportDefaultDeclaration) {
      declare(statement.declaration, false);
      exports.set('default', statement.declaration);
    } else {
      declare(statement, false);
    }
  }
  return { locals, exports };
}

function shapeOf(node: Declaration, locals: Map<string, Declaration>, depth: number): ExportShape {
  if (depth > 6) return 'other';
  switch (node.type) {
    case AST_NODE_TYPES.FunctionDeclaration:
    case AST_NODE_TYPES.FunctionExpression:
    case AST_NODE_TYPES.ArrowFunctionExpression:
    case AST_NODE_TYPES.ClassDeclaration:
    case AST_NODE_TYPES.ClassExpression:
      return 'code';
    case AST_NODE_TYPES.Identifier: {
      const local = locals.get(node.name);
      return local ? shapeOf(local, locals, depth + 1) : 'other';
    }
    case AST_NODE_TYPES.NewExpression: {
      // `export default new UserService()` of a class declared here: an instance of project code.
      const local = node.callee.type === AST_NODE_TYPES.Identifier ? locals.get(node.callee.name) : undefined;
      return local && (local.type === AST_NODE_TYPES.ClassDeclaration || local.type === AST_NODE_TYPES.ClassExpression) ? 'code' : 'other';
    }
    case AST_NODE_TYPES.TSAsExpression:
    case AST_NODE_TYPES.TSSatisfiesExpression:
    case AST_NODE_TYPES.TSNonNullExpression:
      return shapeOf(node.expression, locals, depth + 1);
    default:
      return 'other';
  }
}

/** The shape of every export a parsed module declares itself; a name it does not declare is 'other'. */
export function exportShapes(program: TSESTree.Program): Map<string, ExportShape> {
  const { locals, exports } = declarations(program);
  const out = new Map<string, ExportShape>();
  for (const [name, target] of exports) out.set(name, target === 'other' ? 'other' : shapeOf(target, locals, 0));
  return out;
}
