/**
 * Classes a dependency-injection container binds in place of another: `{ provide: Locker,
 * useClass: RedisLocker }` (NestJS, Angular, tsyringe). The binding usually sits far from both
 * classes (a plugin module overriding a core provider), so no import leads to it: the package's
 * source files are read once for the word `useClass`, and only those that hold it are parsed.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TSESTree } from '@typescript-eslint/utils';
import { resolveImport } from './module-resolution.js';
import { parseTopLevel } from './project-source.js';

/** A class bound in place of another: the module that exports it and its exported name. */
export interface BoundClass {
  file: string;
  name: string;
}

export interface ContainerBindings {
  /** By the name of the class provided: the classes bound in its place. */
  byProvided: Map<string, BoundClass[]>;
  /** The modules that hold a binding (a change to one changes the answer). */
  files: Set<string>;
}

/** Source files read per package, and their bytes: a bound on the look, by work. */
const MAX_FILES = 5000;
const MAX_BYTES = 32 * 1024 * 1024;
const SOURCE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;
const NOT_SOURCE = /\.d\.[cm]?ts$|\.(?:spec|test|e2e-spec)\.[^.]+$/;
const SKIPPED_DIR = /^(?:node_modules|dist|build|out|coverage|tests?|__tests__|e2e|fixtures)$|^\./;
const BINDING_WORD = 'useClass';

/** The folder of the nearest `package.json` above `file` (the package a class belongs to). */
export function packageRootOf(file: string): string | undefined {
  for (let dir = path.dirname(file); ; ) {
    if (path.basename(dir) === 'node_modules') return undefined;
    try {
      if (statSync(path.join(dir, 'package.json')).isFile()) return dir;
    } catch {
      // no package.json here: look further up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Every `provide: X, useClass: Y` of the package at `root`, with Y resolved to the module that exports it. */
export function readContainerBindings(root: string, read: (file: string) => string | undefined): ContainerBindings {
  const bindings: ContainerBindings = { byProvided: new Map(), files: new Set() };
  let files = 0;
  let bytes = 0;
  const visit = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (files >= MAX_FILES || bytes >= MAX_BYTES) return;
      const full = path.join(dir, name);
      let stat;
      try {
        stat = statSync(full);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (!SKIPPED_DIR.test(name)) visit(full);
        continue;
      }
      if (!SOURCE.test(name) || NOT_SOURCE.test(name) || stat.size > 512 * 1024) continue;
      files++;
      bytes += stat.size;
      const text = read(full);
      if (!text?.includes(BINDING_WORD)) continue;
      const program = parseTopLevel(full, text);
      if (program) addBindings(full, program, bindings);
    }
  };
  visit(root);
  return bindings;
}

/** The `{ provide: X, useClass: Y }` objects of one module, Y resolved through its imports. */
function addBindings(file: string, program: TSESTree.Program, bindings: ContainerBindings): void {
  const imported = new Map<string, { source: string; name: string }>();
  for (const statement of program.body) {
    if (statement.type !== 'ImportDeclaration') continue;
    for (const spec of statement.specifiers) {
      if (spec.type === 'ImportSpecifier') imported.set(spec.local.name, { source: statement.source.value, name: spec.imported.type === 'Identifier' ? spec.imported.name : String(spec.imported.value) });
      else if (spec.type === 'ImportDefaultSpecifier') imported.set(spec.local.name, { source: statement.source.value, name: 'default' });
    }
  }
  const identifierOf = (object: TSESTree.ObjectExpression, key: string): string | undefined => {
    for (const p of object.properties) {
      if (p.type === 'Property' && !p.computed && p.key.type === 'Identifier' && p.key.name === key && p.value.type === 'Identifier') return p.value.name;
    }
    return undefined;
  };
  const stringOf = (object: TSESTree.ObjectExpression, key: string): string | undefined => {
    for (const p of object.properties) {
      if (p.type === 'Property' && !p.computed && p.key.type === 'Identifier' && p.key.name === key && p.value.type === 'Literal' && typeof p.value.value === 'string') return p.value.value;
    }
    return undefined;
  };
  const stack: unknown[] = [program];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const n = node as { type?: string };
    if (n.type === 'ObjectExpression') {
      const object = n as TSESTree.ObjectExpression;
      // `provide: AccountRepositoryToken` or, as often, a string token: `provide: 'AccountRepository'`.
      const provided = identifierOf(object, 'provide') ?? stringOf(object, 'provide');
      const bound = identifierOf(object, 'useClass');
      const from = bound ? imported.get(bound) : undefined;
      const boundFile = from && resolveImport(file, from.source);
      if (provided && boundFile && from) {
        const list = bindings.byProvided.get(provided) ?? [];
        list.push({ file: boundFile, name: from.name });
        bindings.byProvided.set(provided, list);
        bindings.files.add(file);
      }
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'parent' && key !== 'loc' && key !== 'range' && value && typeof value === 'object') stack.push(value);
  }
}
