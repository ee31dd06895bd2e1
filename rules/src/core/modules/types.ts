/**
 * Typed mode: when the user lints with type information (`parserOptions.projectService` or
 * `project`), a receiver that imports, constructors and annotations leave unresolved is
 * resolved through the type checker, as the package and exported name that declare its type
 * (`PrismaClient` from `@prisma/client`, `Pool` from `pg`, an `ioredis` `Redis`), whatever
 * module the value came from. Untyped linting never reaches this module.
 */
import { createRequire } from 'node:module';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import type * as ts from 'typescript';
import type { Node } from '../ast.js';
import type { ImportBinding } from './imports.js';
import type { TypeResolver } from './receivers.js';

interface TypedServices {
  program: ts.Program;
  esTreeNodeToTSNodeMap: { get(node: Node): ts.Node | undefined };
}

function typedServices(sourceCode: SourceCode): TypedServices | undefined {
  const services = (sourceCode as { parserServices?: Partial<TypedServices> }).parserServices;
  if (!services?.program || !services.esTreeNodeToTSNodeMap) return undefined;
  return services as TypedServices;
}

/** `/x/node_modules/@types/pg/index.d.ts` -> `pg`; `/x/node_modules/.prisma/client/index.d.ts` -> `.prisma/client`. */
export function packageOfFile(fileName: string): string | undefined {
  const normalized = fileName.replace(/\\/g, '/');
  const at = normalized.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const parts = normalized.slice(at + '/node_modules/'.length).split('/');
  const name = parts[0].startsWith('@') || parts[0] === '.prisma' ? `${parts[0]}/${parts[1]}` : parts[0];
  if (name.startsWith('@types/')) {
    const bare = name.slice('@types/'.length);
    // `@types/scope__pkg` stands for `@scope/pkg`.
    return bare.includes('__') ? `@${bare.replace('__', '/')}` : bare;
  }
  return name;
}

/** The module a declaration belongs to: its package on disk, or the `declare module 'x'` around it. */
function moduleOfDeclaration(declaration: ts.Declaration, tsModule: typeof ts): string | undefined {
  for (let n: ts.Node | undefined = declaration; n; n = n.parent) {
    if (tsModule.isModuleDeclaration(n) && tsModule.isStringLiteral(n.name)) return n.name.text;
  }
  return packageOfFile(declaration.getSourceFile().fileName);
}

function bindingsOfType(type: ts.Type, tsModule: typeof ts, depth = 0): ImportBinding[] {
  if (depth > 2) return [];
  if (type.isUnion() || type.isIntersection()) return type.types.flatMap((t) => bindingsOfType(t, tsModule, depth + 1));
  const out: ImportBinding[] = [];
  for (const symbol of [type.aliasSymbol, type.getSymbol()]) {
    const declaration = symbol?.declarations?.[0];
    if (!symbol || !declaration) continue;
    const source = moduleOfDeclaration(declaration, tsModule);
    if (source) out.push({ source, exported: symbol.getName() });
  }
  return out;
}

let typescriptModule: typeof ts | null | undefined;

/** TypeScript itself, loaded only in typed mode (the parser that built the program has it installed). */
function loadTypescript(): typeof ts | undefined {
  if (typescriptModule === undefined) {
    try {
      typescriptModule = createRequire(import.meta.url)('typescript') as typeof ts;
    } catch {
      typescriptModule = null;
    }
  }
  return typescriptModule ?? undefined;
}

/**
 * The resolver for a typed file, or undefined for an untyped one. Cached per node; a
 * checker failure on odd input resolves to nothing rather than failing the lint.
 */
export function typeResolverFor(sourceCode: SourceCode, accept: (binding: ImportBinding) => boolean): TypeResolver | undefined {
  const services = typedServices(sourceCode);
  if (!services) return undefined;
  const tsModule = loadTypescript();
  if (!tsModule) return undefined;
  const checker = services.program.getTypeChecker();
  const memo = new Map<Node, ImportBinding | null>();
  return (node) => {
    const cached = memo.get(node);
    if (cached !== undefined) return cached ?? undefined;
    let found: ImportBinding | undefined;
    try {
      const tsNode = services.esTreeNodeToTSNodeMap.get(node);
      if (tsNode) found = bindingsOfType(checker.getTypeAtLocation(tsNode), tsModule).find(accept);
    } catch {
      found = undefined;
    }
    memo.set(node, found ?? null);
    return found;
  };
}
