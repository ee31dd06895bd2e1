/**
 * What an export is, read off its declaration alone: project code (a function, a class, an
 * instance of a class of the same module) or anything else. A receiver (a database or Redis
 * client, a lock authority) is never project code, so asking whether an imported name is one
 * needs no summary of its module when the declaration already says it is code. In a large
 * project most imported names are services and helpers; summarising each of them to learn
 * that it is no client would spend the module graph's bounds before the locks are reached.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';

/**
 * `code`, `other`, or code on a condition: an object of names imported from other modules
 * (`const models = { Order, User }`, a registry of the project's model classes) is code when each
 * of those exports is, which only their own modules' declarations say (`codeIf`).
 */
export type ExportShape = 'code' | 'other' | { codeIf: ReadonlyArray<ImportedName>; reexport?: ImportedName };

/** A name a module imports: the specifier it is imported from and the name exported there. */
export interface ImportedName {
  source: string;
  name: string;
}

type Declaration = TSESTree.Node;

/** Value imports by local name (a namespace import and a type-only import are no single value). */
function importedNames(program: TSESTree.Program): Map<string, ImportedName> {
  const out = new Map<string, ImportedName>();
  for (const statement of program.body) {
    if (statement.type !== AST_NODE_TYPES.ImportDeclaration || statement.importKind === 'type') continue;
    for (const spec of statement.specifiers) {
      if (spec.type === AST_NODE_TYPES.ImportDefaultSpecifier) out.set(spec.local.name, { source: statement.source.value, name: 'default' });
      else if (spec.type === AST_NODE_TYPES.ImportSpecifier && spec.importKind !== 'type') {
        const name = spec.imported.type === AST_NODE_TYPES.Identifier ? spec.imported.name : String(spec.imported.value);
        out.set(spec.local.name, { source: statement.source.value, name });
      }
    }
  }
  return out;
}

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

/** Most entries an object of imported names may have to be read as a registry of code. */
const MAX_REGISTRY_ENTRIES = 256;

/**
 * `{ Order, User, Invoice: InvoiceModel }`: every property a plain name, each declared here as
 * code or imported (then code if that export is). A spread, a computed key or any other value
 * (a call, a literal, a client) leaves the object 'other'.
 */
function registryShape(node: TSESTree.ObjectExpression, locals: Map<string, Declaration>, imports: Map<string, ImportedName>, depth: number): ExportShape {
  if (node.properties.length === 0 || node.properties.length > MAX_REGISTRY_ENTRIES) return 'other';
  const codeIf: ImportedName[] = [];
  for (const property of node.properties) {
    if (property.type !== AST_NODE_TYPES.Property || property.computed || property.kind !== 'init') return 'other';
    const value = property.value;
    if (value.type !== AST_NODE_TYPES.Identifier) return 'other';
    const local = locals.get(value.name);
    if (local) {
      if (shapeOf(local, locals, depth + 1) !== 'code') return 'other';
      continue;
    }
    const imported = imports.get(value.name);
    if (!imported) return 'other';
    codeIf.push(imported);
  }
  return codeIf.length === 0 ? 'code' : { codeIf };
}

function shapeOf(node: Declaration, locals: Map<string, Declaration>, depth: number, imports?: Map<string, ImportedName>): ExportShape {
  if (depth > 6) return 'other';
  switch (node.type) {
    case AST_NODE_TYPES.ObjectExpression:
      return imports ? registryShape(node, locals, imports, depth) : 'other';
    case AST_NODE_TYPES.FunctionDeclaration:
    case AST_NODE_TYPES.FunctionExpression:
    case AST_NODE_TYPES.ArrowFunctionExpression:
    case AST_NODE_TYPES.ClassDeclaration:
    case AST_NODE_TYPES.ClassExpression:
      return 'code';
    case AST_NODE_TYPES.Identifier: {
      const local = locals.get(node.name);
      if (local) return shapeOf(local, locals, depth + 1, imports);
      // `import Order from './Order'; export { Order }`: what it is there.
      const imported = imports?.get(node.name);
      return imported ? { codeIf: [imported], reexport: imported } : 'other';
    }
    case AST_NODE_TYPES.NewExpression: {
      // `export default new UserService()` of a class declared here: an instance of project code.
      const local = node.callee.type === AST_NODE_TYPES.Identifier ? locals.get(node.callee.name) : undefined;
      return local && (local.type === AST_NODE_TYPES.ClassDeclaration || local.type === AST_NODE_TYPES.ClassExpression) ? 'code' : 'other';
    }
    case AST_NODE_TYPES.TSAsExpression:
    case AST_NODE_TYPES.TSSatisfiesExpression:
    case AST_NODE_TYPES.TSNonNullExpression:
      return shapeOf(node.expression, locals, depth + 1, imports);
    default:
      return 'other';
  }
}

/** The shape of every export a parsed module declares itself; a name it does not declare is 'other'. */
export function exportShapes(program: TSESTree.Program): Map<string, ExportShape> {
  const { locals, exports } = declarations(program);
  const imports = importedNames(program);
  const out = new Map<string, ExportShape>();
  for (const [name, target] of exports) out.set(name, target === 'other' ? 'other' : shapeOf(target, locals, 0, imports));
  return out;
}

/** The class an expression declares, past `as` casts and local names (`export default Order`). */
function classDeclared(node: Declaration | undefined, locals: Map<string, Declaration>, depth = 0): TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined {
  if (!node || depth > 6) return undefined;
  if (node.type === AST_NODE_TYPES.ClassDeclaration || node.type === AST_NODE_TYPES.ClassExpression) return node;
  if (node.type === AST_NODE_TYPES.Identifier) return classDeclared(locals.get(node.name), locals, depth + 1);
  if (node.type === AST_NODE_TYPES.TSAsExpression || node.type === AST_NODE_TYPES.TSSatisfiesExpression || node.type === AST_NODE_TYPES.TSNonNullExpression) return classDeclared(node.expression, locals, depth + 1);
  return undefined;
}

/**
 * The imported base of each exported class: `class Order extends Model<A, B>` with `Model` from
 * 'sequelize', or `extends ModelWithPublicId<...>` from './ModelWithPublicId' (a project base
 * class, whose own module says what it extends). A base declared in the same module is followed
 * to the import it extends in turn; a class with no imported base is left out.
 */
export function exportedClassBases(program: TSESTree.Program): Map<string, ImportedName> {
  const { locals, exports } = declarations(program);
  const imports = importedNames(program);
  const out = new Map<string, ImportedName>();
  for (const [name, target] of exports) {
    let cls = target === 'other' ? undefined : classDeclared(target, locals);
    // A TypeORM entity (`@Entity()` from 'typeorm') is a record class whatever it extends.
    const entity = cls && entityDecorator(cls, imports);
    if (entity) {
      out.set(name, entity);
      continue;
    }
    for (let hops = 0; cls && hops < 4; hops++) {
      const base = cls.superClass;
      if (!base) break;
      if (base.type === AST_NODE_TYPES.Identifier) {
        const imported = imports.get(base.name);
        if (imported) {
          out.set(name, imported);
          break;
        }
        cls = classDeclared(locals.get(base.name), locals);
      } else if (base.type === AST_NODE_TYPES.MemberExpression && !base.computed && base.object.type === AST_NODE_TYPES.Identifier && base.property.type === AST_NODE_TYPES.Identifier) {
        // `extends Sequelize.Model` of `import * as Sequelize from 'sequelize'`.
        const namespace = namespaceImport(program, base.object.name);
        if (namespace) out.set(name, { source: namespace, name: base.property.name });
        break;
      } else break;
    }
  }
  return out;
}

/** The ORM decorator that makes a class a record class (`@Entity('orders')` imported from 'typeorm'), as its import. */
function entityDecorator(cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression, imports: Map<string, ImportedName>): ImportedName | undefined {
  for (const decorator of cls.decorators ?? []) {
    const expression = decorator.expression.type === AST_NODE_TYPES.CallExpression ? decorator.expression.callee : decorator.expression;
    if (expression.type !== AST_NODE_TYPES.Identifier) continue;
    const imported = imports.get(expression.name);
    if (imported && imported.source === 'typeorm' && imported.name === 'Entity') return imported;
  }
  return undefined;
}

/** The specifier a namespace import of `local` reads (`import * as local from 'x'`). */
function namespaceImport(program: TSESTree.Program, local: string): string | undefined {
  for (const statement of program.body) {
    if (statement.type !== AST_NODE_TYPES.ImportDeclaration) continue;
    if (statement.specifiers.some((s) => s.type === AST_NODE_TYPES.ImportNamespaceSpecifier && s.local.name === local)) return statement.source.value;
  }
  return undefined;
}
