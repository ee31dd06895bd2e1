/**
 * Redis writes made through a Lua script: `redis.eval(script, numKeys, ...keys, ...args)`
 * (ioredis), `client.eval(script, { keys, arguments })` (node-redis), and commands defined
 * with ioredis `defineCommand(name, { numberOfKeys, lua })` then called by name. The script
 * is the only place a Redis write can compare a fence token, so its facts (lua-script.ts)
 * say whether the write compares the token and whether it stores it.
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, calleeObject, constInitializer, objectArgument, propertyValue, staticString, unwrap, type Node } from '../ast.js';
import { analyzeLuaScript, type LuaScriptFacts } from './lua-script.js';

export interface RedisScript {
  call: TSESTree.CallExpression;
  /** The Lua source and the JS literal (or template without interpolations) that holds it. */
  text: string;
  textNode: TSESTree.StringLiteral | TSESTree.TemplateLiteral;
  facts: LuaScriptFacts;
  /** JS values bound to `KEYS[k]` / `ARGV[n]` (index 0 is `KEYS[1]`), when the call lists them. */
  keys: Array<Node | undefined>;
  args: Array<Node | undefined>;
  /** The command name a `defineCommand` script is called by, when it is one. */
  command?: string;
}

const EVAL = /^(?:eval|EVAL|evalRo|eval_ro)$/;
/** ioredis's generic command call, which takes a `new Command(name, args)`. */
const SEND_COMMAND = /^sendCommand$/;
/** Scripts are recognised by what they run; a cheap text test first. */
const REDIS_CALL = /redis\.p?call\s*\(/;


/** The literal holding a script: inline, or through a `const` (also a class's static/readonly field is not followed). */
function scriptLiteral(node: Node | undefined, sourceCode: SourceCode): TSESTree.StringLiteral | TSESTree.TemplateLiteral | undefined {
  if (!node) return undefined;
  let n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) {
    const init = constInitializer(n, sourceCode);
    if (!init) return undefined;
    n = unwrap(init);
  }
  if (n.type === AST_NODE_TYPES.Literal && typeof n.value === 'string') return n as TSESTree.StringLiteral;
  if (n.type === AST_NODE_TYPES.TemplateLiteral && n.expressions.length === 0) return n;
  return undefined;
}

function literalText(node: TSESTree.StringLiteral | TSESTree.TemplateLiteral): string {
  return node.type === AST_NODE_TYPES.Literal ? node.value : (node.quasis[0].value.cooked ?? '');
}

function plainArgs(args: readonly TSESTree.CallExpressionArgument[]): Array<Node | undefined> {
  return args.map((a) => (a.type === AST_NODE_TYPES.SpreadElement ? undefined : a));
}

function arrayElements(node: Node | undefined): Array<Node | undefined> {
  const n = node && unwrap(node);
  return n?.type === AST_NODE_TYPES.ArrayExpression ? n.elements.map((e) => (e && e.type !== AST_NODE_TYPES.SpreadElement ? e : undefined)) : [];
}

function build(call: TSESTree.CallExpression, literal: TSESTree.StringLiteral | TSESTree.TemplateLiteral, keys: Array<Node | undefined>, args: Array<Node | undefined>, command?: string): RedisScript | undefined {
  const text = literalText(literal);
  if (!REDIS_CALL.test(text)) return undefined;
  const facts = analyzeLuaScript(text);
  return facts ? { call, text, textNode: literal, facts, keys, args, command } : undefined;
}

/** Scripts defined with `defineCommand(name, { numberOfKeys, lua })`, by command name. */
export function definedCommands(calls: readonly TSESTree.CallExpression[], sourceCode: SourceCode): Map<string, { literal: TSESTree.StringLiteral | TSESTree.TemplateLiteral; numberOfKeys?: number }> {
  const out = new Map<string, { literal: TSESTree.StringLiteral | TSESTree.TemplateLiteral; numberOfKeys?: number }>();
  for (const call of calls) {
    if (calleeName(call) !== 'defineCommand') continue;
    const name = call.arguments[0] && staticString(call.arguments[0]);
    const options = objectArgument(call, 1);
    const literal = scriptLiteral(propertyValue(options, 'lua'), sourceCode);
    const keys = propertyValue(options, 'numberOfKeys');
    const numberOfKeys = keys && unwrap(keys).type === AST_NODE_TYPES.Literal ? Number((unwrap(keys) as TSESTree.Literal).value) : undefined;
    if (name && literal) out.set(name, { literal, numberOfKeys });
  }
  return out;
}

/** The script a call runs, with its facts; undefined for any other call or a script we cannot read. */
export function readRedisScript(call: TSESTree.CallExpression, sourceCode: SourceCode, commands: ReadonlyMap<string, { literal: TSESTree.StringLiteral | TSESTree.TemplateLiteral; numberOfKeys?: number }>): RedisScript | undefined {
  const method = calleeName(call);
  if (!method || !calleeObject(call)) return undefined;
  // ioredis `sendCommand(new Command('EVAL', [script, numKeys, ...keys, ...args]))`: the same eval.
  const sent = sentEval(call);
  if (sent) {
    const literal = scriptLiteral(sent[0], sourceCode);
    const count = sent[1] && sent[1].type !== AST_NODE_TYPES.SpreadElement ? unwrap(sent[1]) : undefined;
    const n = count?.type === AST_NODE_TYPES.Literal ? Number(count.value) : undefined;
    const rest = plainArgs(sent.slice(2));
    if (!literal) return undefined;
    if (n === undefined || !Number.isInteger(n)) return build(call, literal, [], []);
    return build(call, literal, rest.slice(0, n), rest.slice(n));
  }
  if (EVAL.test(method)) {
    const literal = scriptLiteral(call.arguments[0], sourceCode);
    if (!literal) return undefined;
    const second = call.arguments[1];
    // node-redis: eval(script, { keys: [...], arguments: [...] }).
    const options = objectArgument(call, 1);
    if (options) return build(call, literal, arrayElements(propertyValue(options, 'keys')), arrayElements(propertyValue(options, /^(?:arguments|args)$/)));
    // ioredis: eval(script, numKeys, ...keys, ...args).
    const n = second && second.type !== AST_NODE_TYPES.SpreadElement && unwrap(second).type === AST_NODE_TYPES.Literal ? Number((unwrap(second) as TSESTree.Literal).value) : undefined;
    const rest = plainArgs(call.arguments.slice(2));
    if (n === undefined || !Number.isInteger(n)) return build(call, literal, [], []);
    return build(call, literal, rest.slice(0, n), rest.slice(n));
  }
  const defined = commands.get(method);
  if (defined) {
    const rest = plainArgs(call.arguments);
    const n = defined.numberOfKeys ?? 0;
    return build(call, defined.literal, rest.slice(0, n), rest.slice(n), method);
  }
  return undefined;
}

/** The argument list of `client.sendCommand(new Command('EVAL', [...]))`, if the call is that. */
function sentEval(call: TSESTree.CallExpression): TSESTree.CallExpressionArgument[] | undefined {
  if (!SEND_COMMAND.test(calleeName(call) ?? '')) return undefined;
  const command = call.arguments[0] && unwrap(call.arguments[0]);
  if (command?.type !== AST_NODE_TYPES.NewExpression || calleeName(command) !== 'Command') return undefined;
  const name = command.arguments[0] && staticString(command.arguments[0]);
  const list = command.arguments[1] && unwrap(command.arguments[1]);
  if (!name || !EVAL.test(name) || list?.type !== AST_NODE_TYPES.ArrayExpression) return undefined;
  return list.elements.filter((e): e is TSESTree.Expression | TSESTree.SpreadElement => e !== null);
}

export type RedisScriptCommands = ReturnType<typeof definedCommands>;

export interface RedisScriptVerdict {
  tokenCompared: boolean;
  tokenStored: boolean;
  /** The key the compared value was read from (`KEYS[2]`), for messages and the suggestion. */
  column?: string;
  /** 1-based `ARGV[n]` compared as the token. */
  arg?: number;
  /** 1-based `KEYS[k]` the stored token was read from. */
  key?: number;
}

/**
 * A script that compares an argument with a stored value by order (`<`, `>=`) and writes is a
 * fence; it stores the token when it also writes that argument. Equality with an argument the
 * caller fills with a token is compare-and-set: nothing new needs storing.
 */
export function judgeRedisScript(script: RedisScript, options: { isTokenValue(node: Node): boolean }): RedisScriptVerdict {
  const { facts } = script;
  if (facts.writes.length === 0) return { tokenCompared: false, tokenStored: false };
  const ordered = facts.ordered[0];
  if (ordered) {
    const unstored = facts.ordered.find((c) => !facts.stored.has(c.arg));
    const shown = unstored ?? ordered;
    return { tokenCompared: true, tokenStored: !unstored, column: shown.stored.key ? `KEYS[${shown.stored.key}]` : undefined, arg: shown.arg, key: shown.stored.key };
  }
  const cas = facts.equal.find((c) => {
    const value = script.args[c.arg - 1];
    return value !== undefined && options.isTokenValue(value);
  });
  if (cas) return { tokenCompared: true, tokenStored: true, column: cas.stored.key ? `KEYS[${cas.stored.key}]` : undefined, arg: cas.arg, key: cas.stored.key };
  return { tokenCompared: false, tokenStored: false };
}

/**
 * Whether a condition of the script (`if`, `elseif`, `while`) reads an argument, directly or
 * through a local bound from one (`local owner = ARGV[1]`): a comparison the script facts may
 * not spell out (`tonumber(...)`, string functions). Such a script decides by what the caller
 * passes, so it is not read as a plain write.
 */
export function conditionOnArgument(lua: string): boolean {
  const derived = [...lua.matchAll(/\blocal\s+([A-Za-z_]\w*)\s*=[^\n]*\bARGV\s*\[/g)].map((m) => m[1]);
  const names = new RegExp(`\\bARGV\\s*\\[${derived.map((n) => `|\\b${n}\\b`).join('')}`);
  return lua.split('\n').some((line) => /^\s*(?:if|elseif|while|until)\b|\bthen\s*$/.test(line) && names.test(line));
}

/** Write commands that add only what is absent: a late run adds nothing a newer one wrote. */
const IF_ABSENT_COMMAND = /^(?:setnx|hsetnx|sadd|pfadd)$/i;

/**
 * Whether every write of the script only adds what is not there yet (`HSETNX`, `SET … NX`,
 * `ZADD … NX`, `SADD`): an enqueue-once or set-if-absent script, an idempotent insert that
 * overwrites nothing.
 */
export function onlyAddsIfAbsent(lua: string, writes: readonly string[]): boolean {
  const calls = [...lua.matchAll(/redis\.p?call\s*\(\s*['"]([\w.]+)['"]([^)]*)\)/g)].filter((m) => writes.includes(m[1].toLowerCase()));
  return calls.length > 0 && calls.every((m) => IF_ABSENT_COMMAND.test(m[1]) || /['"]NX['"]/i.test(m[2]));
}

/** `KEYS[2]`, or a local bound to it (`local key = KEYS[2]`): the 1-based key index a Lua name stands for. */
function keyIndexOf(lua: string, expression: string): number | undefined {
  const direct = /^KEYS\s*\[\s*(\d+)\s*\]$/.exec(expression.trim());
  if (direct) return Number(direct[1]);
  if (!/^[A-Za-z_]\w*$/.test(expression.trim())) return undefined;
  const bound = new RegExp(`\\blocal\\s+${expression.trim()}\\s*=\\s*KEYS\\s*\\[\\s*(\\d+)\\s*\\]`).exec(lua);
  return bound ? Number(bound[1]) : undefined;
}

/**
 * The key a script claims for a while, as the JS value bound to it: `SETNX key v` then
 * `EXPIRE key ttl` (or `PEXPIRE`), or `SET key v NX` with `EX`/`PX`. A set-if-absent with an
 * expiry is a lease, whatever the script returns (the value set, or the holder's).
 */
export function claimedKey(script: RedisScript): Node | undefined {
  const calls = [...script.text.matchAll(/redis\.p?call\s*\(\s*['"]([\w.]+)['"]\s*,\s*([^,)]+)([^)]*)\)/g)].map((m) => ({ command: m[1].toLowerCase(), key: m[2].trim(), rest: m[3] }));
  for (const call of calls) {
    const nx = call.command === 'setnx' || (call.command === 'set' && /['"]NX['"]/i.test(call.rest));
    if (!nx) continue;
    const expires = (call.command === 'set' && /['"][EP]X['"]/i.test(call.rest)) || calls.some((c) => (c.command === 'expire' || c.command === 'pexpire') && c.key === call.key);
    const index = expires ? keyIndexOf(script.text, call.key) : undefined;
    if (index !== undefined) return script.keys[index - 1];
  }
  return undefined;
}

