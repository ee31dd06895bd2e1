/**
 * Redis keys that are locks: taken with `SET key value NX` somewhere in the file, or named as a
 * lock (`lockKey`, `lock:cart:${id}`). Lets the release and check rules tell a lock key from a
 * cache key without a second walk of the file.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { calleeName, staticString, unwrap, type Node } from '../ast.js';
import { isRedisSetNx } from './acquires.js';
import { LOCK_KEY_NAME } from '../models/locks.js';

export interface SetNxSite {
  call: TSESTree.CallExpression;
  key: Node;
  /** The value written: the owner's id, which a safe release compares. */
  value?: Node;
  /** node-redis style options object (`{ NX: true, PX }`) rather than ioredis positional flags. */
  optionsObject: boolean;
}

/** `set(key, value, ...)`, `setnx(key, value)`, `call('SET', key, value, ...)`, `sendCommand(['SET', key, value, ...])`. */
export function readSetNx(call: TSESTree.CallExpression): SetNxSite | undefined {
  if (!isRedisSetNx(call)) return undefined;
  const args = call.arguments.filter((a): a is TSESTree.Expression => a.type !== AST_NODE_TYPES.SpreadElement);
  const method = calleeName(call) ?? '';
  if (/^(?:call|sendCommand|send_command)$/.test(method)) {
    const first = args[0];
    if (first?.type === AST_NODE_TYPES.ArrayExpression) {
      const [, key, value] = first.elements;
      if (!key || key.type === AST_NODE_TYPES.SpreadElement) return undefined;
      return { call, key, value: value && value.type !== AST_NODE_TYPES.SpreadElement ? value : undefined, optionsObject: false };
    }
    return args[1] ? { call, key: args[1], value: args[2], optionsObject: false } : undefined;
  }
  if (!args[0]) return undefined;
  return { call, key: args[0], value: args[1], optionsObject: args.slice(2).some((a) => unwrap(a).type === AST_NODE_TYPES.ObjectExpression) };
}

/** Source text of a key, with a `const` identifier replaced by the text it is initialised with. */
export function keyText(node: Node, sourceCode: SourceCode): string {
  const n = unwrap(node);
  if (n.type === AST_NODE_TYPES.Identifier) {
    const variable = ASTUtils.findVariable(sourceCode.getScope(n), n.name);
    const def = variable?.defs[0];
    if (def?.type === 'Variable' && def.parent?.kind === 'const' && def.node.type === AST_NODE_TYPES.VariableDeclarator && def.node.init && def.node.id.type === AST_NODE_TYPES.Identifier) {
      return sourceCode.getText(def.node.init).replace(/\s+/g, '');
    }
  }
  return sourceCode.getText(n).replace(/\s+/g, '');
}

/** Whether a key expression names a lock by what it says: `lockKey`, `'lock:' + id`, `LOCK_PREFIX`. */
export function isLockNamedKey(node: Node, sourceCode: SourceCode): boolean {
  const text = sourceCode.getText(unwrap(node));
  if (LOCK_KEY_NAME.test(text)) return true;
  const literal = staticString(node);
  return literal !== undefined && LOCK_KEY_NAME.test(literal);
}

export class RedisLockKeys {
  readonly sites: SetNxSite[] = [];
  private readonly byText = new Map<string, SetNxSite>();

  constructor(
    calls: readonly TSESTree.CallExpression[],
    private readonly sourceCode: SourceCode,
  ) {
    for (const call of calls) {
      const site = readSetNx(call);
      if (!site) continue;
      this.sites.push(site);
      this.byText.set(keyText(site.key, sourceCode), site);
    }
  }

  /** The SET NX that took this key, when the key is written the same way (directly or through a const). */
  setNxOf(key: Node): SetNxSite | undefined {
    return this.byText.get(keyText(key, this.sourceCode));
  }

  /** A key taken with SET NX in this file, or a lock-named key. */
  isLockKey(key: Node): boolean {
    return this.setNxOf(key) !== undefined || isLockNamedKey(key, this.sourceCode);
  }
}
