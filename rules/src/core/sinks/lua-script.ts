/**
 * What a Redis Lua script does with its arguments, read with a real Lua parser (luaparse):
 * which `ARGV[n]` it compares with a stored value (`tonumber(redis.call('GET', KEYS[2]))`),
 * which it stores with a write command, and where its last write ends (for a suggestion).
 * A script that compares `ARGV[n]` with the stored token and never stores `ARGV[n]` lets a
 * later stale token pass. Never throws: a script that does not parse has no facts.
 */
import luaparse from 'luaparse';

export interface StoredRead {
  /** 1-based `KEYS[k]` the value was read from, when it is a literal index. */
  key?: number;
  /** `get`, `hget`, ... */
  command: string;
  /** The hash field's Lua source, for `HGET key field`. */
  field?: string;
}

export interface ArgComparison {
  /** 1-based `ARGV[n]`. */
  arg: number;
  operator: string;
  stored: StoredRead;
}

export interface LuaScriptFacts {
  /** `<`, `<=`, `>`, `>=` between an argument and a stored value: an ordering (fence) check. */
  ordered: ArgComparison[];
  /** `==`, `~=` between an argument and a stored value: compare-and-set on an owner or version. */
  equal: ArgComparison[];
  /** Arguments the script stores with a write command (`SET`, `HSET`, ...). */
  stored: Set<number>;
  /** Write commands the script runs, lower-case. */
  writes: string[];
  /** Offset in the script just after its last write statement; whether it starts its line, and its indentation. */
  lastWrite?: { end: number; ownLine: boolean; indent: string };
}

const READ_COMMANDS = new Set(['get', 'hget', 'hmget', 'zscore', 'lindex', 'json.get']);
/** Commands that store a value under a key (the argument stored follows the key or the field). */
const STORE_COMMANDS = new Set(['set', 'setex', 'psetex', 'hset', 'hmset', 'hsetnx', 'mset', 'zadd', 'json.set', 'getset']);
const WRITE_COMMANDS = new Set([...STORE_COMMANDS, 'del', 'unlink', 'expire', 'pexpire', 'incr', 'incrby', 'hincrby', 'lpush', 'rpush', 'xadd', 'hdel', 'zrem', 'publish', 'sadd', 'srem']);
const ORDERED = new Set(['<', '<=', '>', '>=']);
const EQUAL = new Set(['==', '~=']);

type LuaNode = { type: string; range?: [number, number]; [key: string]: unknown };

type Value = { arg: number } | { stored: StoredRead } | undefined;

function stringValue(node: LuaNode | undefined): string | undefined {
  if (node?.type !== 'StringLiteral') return undefined;
  const raw = String(node.raw ?? '');
  const m = /^(['"])(.*)\1$/s.exec(raw) ?? /^\[=*\[(.*)\]=*\]$/s.exec(raw);
  return m ? m[m.length - 1] : undefined;
}

/** `ARGV[2]` -> 2, `KEYS[1]` -> 1 (for `table` = 'ARGV' / 'KEYS'). */
function indexOf(node: LuaNode | undefined, table: 'ARGV' | 'KEYS'): number | undefined {
  if (node?.type !== 'IndexExpression') return undefined;
  const base = node.base as LuaNode;
  const index = node.index as LuaNode;
  if (base.type !== 'Identifier' || base.name !== table || index.type !== 'NumericLiteral') return undefined;
  return Number(index.value);
}

/** `redis.call('GET', ...)` / `redis.pcall(...)`: the command, lower-case, and its arguments. */
function redisCall(node: LuaNode | undefined): { command: string; args: LuaNode[] } | undefined {
  if (node?.type !== 'CallExpression') return undefined;
  const base = node.base as LuaNode;
  if (base.type !== 'MemberExpression') return undefined;
  const object = base.base as LuaNode;
  const member = base.identifier as LuaNode;
  if (object.type !== 'Identifier' || object.name !== 'redis' || (member.name !== 'call' && member.name !== 'pcall')) return undefined;
  const args = node.arguments as LuaNode[];
  const command = stringValue(args[0])?.toLowerCase();
  return command ? { command, args: args.slice(1) } : undefined;
}

export function analyzeLuaScript(script: string): LuaScriptFacts | undefined {
  let chunk: LuaNode;
  try {
    chunk = luaparse.parse(script, { ranges: true, luaVersion: '5.1', comments: false }) as unknown as LuaNode;
  } catch {
    return undefined;
  }
  const facts: LuaScriptFacts = { ordered: [], equal: [], stored: new Set(), writes: [] };
  const aliases = new Map<string, Value>();

  // What an expression carries: an argument or a stored value, through tonumber(), `or '0'` and locals.
  const valueOf = (node: LuaNode | undefined, depth = 0): Value => {
    if (!node || depth > 6) return undefined;
    const arg = indexOf(node, 'ARGV');
    if (arg !== undefined) return { arg };
    if (node.type === 'Identifier') return aliases.get(String(node.name));
    if (node.type === 'LogicalExpression' && node.operator === 'or') return valueOf(node.left as LuaNode, depth + 1);
    const call = redisCall(node);
    if (call && READ_COMMANDS.has(call.command)) {
      const key = indexOf(call.args[0], 'KEYS');
      const field = call.command === 'hget' && call.args[1]?.range ? script.slice(call.args[1].range[0], call.args[1].range[1]) : undefined;
      return { stored: { key, command: call.command, field } };
    }
    if (node.type === 'CallExpression') {
      const base = node.base as LuaNode;
      const args = node.arguments as LuaNode[];
      if (base.type === 'Identifier' && (base.name === 'tonumber' || base.name === 'tostring') && args.length >= 1) return valueOf(args[0], depth + 1);
    }
    return undefined;
  };

  const visit = (node: LuaNode): void => {
    switch (node.type) {
      case 'LocalStatement':
      case 'AssignmentStatement': {
        const vars = node.variables as LuaNode[];
        const inits = node.init as LuaNode[];
        vars.forEach((v, i) => {
          if (v.type === 'Identifier') aliases.set(String(v.name), valueOf(inits[i]));
        });
        break;
      }
      case 'BinaryExpression': {
        const operator = String(node.operator);
        if (ORDERED.has(operator) || EQUAL.has(operator)) {
          const left = valueOf(node.left as LuaNode);
          const right = valueOf(node.right as LuaNode);
          const arg = left && 'arg' in left ? left : right && 'arg' in right ? right : undefined;
          const stored = left && 'stored' in left ? left : right && 'stored' in right ? right : undefined;
          if (arg && stored) (ORDERED.has(operator) ? facts.ordered : facts.equal).push({ arg: arg.arg, operator, stored: stored.stored });
        }
        break;
      }
      case 'CallStatement': {
        const call = redisCall(node.expression as LuaNode);
        if (call && WRITE_COMMANDS.has(call.command) && node.range) {
          const lineStart = script.lastIndexOf('\n', node.range[0] - 1) + 1;
          const indent = /^[ \t]*/.exec(script.slice(lineStart))![0];
          facts.lastWrite = { end: node.range[1], ownLine: lineStart === node.range[0] - indent.length, indent };
        }
        break;
      }
      case 'CallExpression': {
        const call = redisCall(node);
        if (call && WRITE_COMMANDS.has(call.command)) {
          facts.writes.push(call.command);
          if (STORE_COMMANDS.has(call.command)) {
            for (const a of call.args.slice(1)) {
              const v = valueOf(a);
              if (v && 'arg' in v) facts.stored.add(v.arg);
            }
          }
        }
        break;
      }
      default:
        break;
    }
    for (const key of Object.keys(node)) {
      if (key === 'range' || key === 'loc') continue;
      const child = node[key];
      if (Array.isArray(child)) {
        for (const c of child) if (c && typeof c === 'object' && typeof (c as LuaNode).type === 'string') visit(c as LuaNode);
      } else if (child && typeof child === 'object' && typeof (child as LuaNode).type === 'string') visit(child as LuaNode);
    }
  };
  visit(chunk);
  return facts;
}
