#!/usr/bin/env node
// Syntax the fast parser must hand ESLint exactly as typescript-estree does.
/* a block comment */
import type { Readable } from 'node:stream';
import fs, { readFileSync as read, type Stats } from 'node:fs';
import * as path from 'node:path';
import json from './data.json' with { type: 'json' };
import assert = require('node:assert');
export * as helpers from './helpers.js';
export { read };
export type { Stats };

declare const process: { env: Record<string, string | undefined> };
declare module 'untyped-lib' {
  export function run(): void;
}
declare global {
  interface Window { fencelint?: boolean }
}
namespace Inner.Deep {
  export const depth = 2;
}

enum Colour { Red = 1, Green, Blue = Red << 2 }
const enum Flags { None = 0, A = 1 << 0, B = 1 >> 1, C = 1 >>> 2 }

type Box<T = unknown> = { value: T };
type Nested = Array<Array<Map<string, Set<number>>>>;
type Keys<T> = { readonly [K in keyof T as `get${Capitalize<string & K>}`]-?: () => T[K] };
type Loose<T> = { -readonly [K in keyof T]+?: T[K] };
type Unwrap<T> = T extends Promise<infer U extends object> ? U : never;
type Fn = new (...args: any[]) => object;
type Tuple = [first: string, second?: number, ...rest: boolean[]];
type Guard = (x: unknown) => x is string;
type Asserts = (x: unknown) => asserts x is number;
type Template = `${number}px` | `${string}-${string}`;
type Unique = { readonly tag: unique symbol };
type Access = Box<string>['value'];
type Query = typeof import('./helpers.js');
type Abstract = abstract new () => object;

interface Shape<T extends object = {}> extends Box<T>, Readonly<T> {
  (call: number): string;
  new (make: string): Shape;
  readonly [index: string]: unknown;
  method?<U>(this: Shape, u: U): U;
  get size(): number;
  set size(value: number);
}

abstract class Base<T> implements Shape<object> {
  [index: string]: unknown;
  static #count = 0;
  static { Base.#count++; }
  declare readonly brand: 'base';
  protected abstract make(): T;
  private field?: string = undefined;
  public accessor label = 'x';
  value!: number;
  constructor(private readonly pool: object, public name = 'n', protected override = 1) {}
  get size(): number { return Base.#count; }
  set size(value: number) { Base.#count = value; }
  #secret() { return #count in Base; }
  override toString(): string { return `${this.name}:${this.value}`; }
  static create<T>(this: void): Base<T> | undefined { return undefined; }
}

function overloaded(a: string): string;
function overloaded(a: number): number;
function overloaded(a: string | number): string | number { return a; }

export default async function* generator<const T extends readonly unknown[]>(items: T, ...rest: number[]): AsyncGenerator<T[number]> {
  for await (const item of items) yield item;
  for (const [i, v] of items.entries()) if (i > 1 && v) continue;
  for (const key in { a: 1 }) void key;
  label: for (let i = 0, j = 10; i < j; i++, j--) { if (i === 3) break label; else continue label; }
  yield* [] as never[];
  rest.length >>= 1;
  rest.length >>>= 1;
  rest.length **= 2;
  rest.length ??= 0;
}

const regexes = [/a[/]b/gimsuyd, /(?<year>\d{4})-\k<year>/u, /[\p{L}--\p{N}]/v, / x/];
const numbers = [0x1f, 0o17, 0b101, 1_000_000, .5, 5., 1e-7, 10n, 0xffn];
const strings = ['single', "double", `plain`, `a${1}b${`nested ${2}`}c`, String.raw`\n${3}`];
const objects = { a, b: 2, [`c${1}`]: 3, 'd-e': 4, 5: 5, get f() { return 6; }, set f(v) { void v; }, async *g() {}, ...rest, if: 1, static: 2, true: 3, null: 4, let: 5, yield: 6 };
const chained = objects?.a?.[0]?.(1)!.b ?? objects.if ?? objects.static;
const asserted = <Box<string>>(objects as unknown) satisfies object;
const nonNull = chained!;
const arrow = async <T,>(x: T): Promise<T> => x;
const types = arrow<Array<number>>([1]) as Array<Array<string>>;
let shifted = 1 >> 2 >>> 3 << 4, compared = 1 >= 2, gen: Array<number>= [];
const tagged = String.raw<unknown>`x`;
const classExpr = class Named<T> extends Base<T> { protected make(): T { return null as T; } };
function Made(this: unknown) { return new.target; }
const meta = [import.meta.url, Made, typeof json, void 0, delete objects.a, -(+1), !~2];
const { a: [x = 1, , ...others] = [], ...restProps }: { a?: number[] } = {};
try { throw new Error('x'); } catch { /* nothing */ } finally { debugger; }
try { read; } catch (error: unknown) { void error; }
switch (Colour.Red) { case Colour.Red: break; default: }
do { shifted--; } while (shifted > 0);
while (compared) compared = false;
with_: { const using_ = 1; void using_; }
let a: number, b, rest: object, others2;
export const enumLike = { A: 'a' } as const;
