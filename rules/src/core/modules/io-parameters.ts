/**
 * Parameters that hold a connection, a response or a stream (`res: Response` from express, a
 * `NodeJS.WritableStream`): their `end()` closes I/O, so a function that calls it releases no lock.
 * Read off the parameter's type annotation; a parameter without one, or typed with anything of the
 * project's own, may still be a lock handle.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import type { FunctionNode } from '../ast.js';
import { IO_OBJECT_GLOBALS, IO_OBJECT_PACKAGES } from '../models/locks.js';

function annotationOf(param: TSESTree.Parameter | undefined): TSESTree.TypeNode | undefined {
  if (!param) return undefined;
  if (param.type === AST_NODE_TYPES.TSParameterProperty) return annotationOf(param.parameter);
  if (param.type === AST_NODE_TYPES.AssignmentPattern) return annotationOf(param.left as TSESTree.Parameter);
  if (param.type === AST_NODE_TYPES.Identifier) return param.typeAnnotation?.typeAnnotation;
  return undefined;
}

function rootName(name: TSESTree.EntityName): TSESTree.Identifier | undefined {
  if (name.type === AST_NODE_TYPES.Identifier) return name;
  if (name.type === AST_NODE_TYPES.TSQualifiedName) return rootName(name.left);
  return undefined;
}

/** Whether a type names only I/O objects: every member of a union but `null` and `undefined`. */
function ioType(type: TSESTree.TypeNode, sourceCode: SourceCode): boolean {
  if (type.type === AST_NODE_TYPES.TSUnionType) {
    const members = type.types.filter((t) => t.type !== AST_NODE_TYPES.TSUndefinedKeyword && t.type !== AST_NODE_TYPES.TSNullKeyword);
    return members.length > 0 && members.every((t) => ioType(t, sourceCode));
  }
  if (type.type !== AST_NODE_TYPES.TSTypeReference) return false;
  const root = rootName(type.typeName);
  if (!root) return false;
  const variable = ASTUtils.findVariable(sourceCode.getScope(root), root.name);
  const def = variable?.defs[0];
  // Declared nowhere in the file and not imported: a global type of the platform.
  if (!def) return IO_OBJECT_GLOBALS.has(root.name);
  if (def.type !== 'ImportBinding' || def.parent?.type !== AST_NODE_TYPES.ImportDeclaration) return false;
  return IO_OBJECT_PACKAGES.has(def.parent.source.value);
}

/** Whether `fn`'s parameter at `index` is typed as a response, a connection or a stream. */
export function isIoParameter(fn: FunctionNode, index: number, sourceCode: SourceCode): boolean {
  const type = annotationOf(fn.params[index]);
  return !!type && ioType(type, sourceCode);
}
