/**
 * Writes through object-shaped query APIs: Prisma, MongoDB/Mongoose, Sequelize, TypeORM,
 * Kysely, Drizzle and DynamoDB. The fence is a token condition in the filter the write
 * itself sends (`{ fenceToken: { lt: token } }`, `{ fence_token: { $lt: token } }`,
 * `.where('fence_token', '<', token)`, `ConditionExpression: 'fence_token < :t'`).
 */
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { calleeName, memberName, objectArgument, propertyKeyName, propertyValue, receiverPath, staticString, unwrap, type Node } from '../ast.js';
import { isCompareAndSetColumnName, isTokenColumnName } from '../models/token-names.js';

export type ObjectApi = 'prisma' | 'mongodb' | 'sequelize' | 'typeorm' | 'kysely' | 'drizzle' | 'dynamodb';

export interface ObjectWrite {
  node: TSESTree.CallExpression | TSESTree.NewExpression;
  api: ObjectApi;
  kind: 'update' | 'delete' | 'upsert' | 'replace';
  /** The filter object the write sends, when it is a literal (where / filter / criteria). */
  filter?: TSESTree.ObjectExpression;
  /** The values object (data / $set / partial), when it is a literal. */
  values?: TSESTree.ObjectExpression;
  /** Every call of a builder chain (Kysely, Drizzle, TypeORM query builder). */
  links: TSESTree.CallExpression[];
}

export interface ObjectVerdict {
  tokenCompared: boolean;
  tokenStored: boolean;
  column?: string;
}

const PRISMA_WRITES: Record<string, ObjectWrite['kind']> = { update: 'update', updateMany: 'update', upsert: 'upsert', delete: 'delete', deleteMany: 'delete' };
const MONGO_WRITES: Record<string, ObjectWrite['kind']> = {
  updateOne: 'update', updateMany: 'update', findOneAndUpdate: 'update', findByIdAndUpdate: 'update',
  replaceOne: 'replace', findOneAndReplace: 'replace', deleteOne: 'delete', deleteMany: 'delete', findOneAndDelete: 'delete',
};
const DYNAMO_COMMANDS: Record<string, ObjectWrite['kind']> = { UpdateCommand: 'update', PutCommand: 'replace', DeleteCommand: 'delete', UpdateItemCommand: 'update', PutItemCommand: 'replace', DeleteItemCommand: 'delete' };


function asObject(node: Node | undefined): TSESTree.ObjectExpression | undefined {
  const n = node && unwrap(node);
  return n?.type === AST_NODE_TYPES.ObjectExpression ? n : undefined;
}

/** Chain links from the outermost call down to the root. */
function chainLinks(call: TSESTree.CallExpression): TSESTree.CallExpression[] {
  const links: TSESTree.CallExpression[] = [call];
  let current: Node = unwrap(call.callee);
  while (current.type === AST_NODE_TYPES.MemberExpression) {
    const object = unwrap(current.object);
    if (object.type !== AST_NODE_TYPES.CallExpression) break;
    links.push(object);
    current = unwrap(object.callee);
  }
  return links;
}

const TERMINAL = /^(?:execute|executeTakeFirst|executeTakeFirstOrThrow|run|then|returning|returningAll|execute\w*)$/;

/** Recognises an object-API write; undefined for anything else. */
export function readObjectWrite(node: TSESTree.CallExpression | TSESTree.NewExpression): ObjectWrite | undefined {
  if (node.type === AST_NODE_TYPES.NewExpression) {
    const name = calleeName(node);
    const kind = name ? DYNAMO_COMMANDS[name] : undefined;
    return kind ? { node, api: 'dynamodb', kind, filter: objectArgument(node, 0), links: [] } : undefined;
  }
  const method = calleeName(node);
  if (!method) return undefined;
  const callee = unwrap(node.callee);
  const path = callee.type === AST_NODE_TYPES.MemberExpression ? receiverPath(callee.object) : [];
  const receiver = path[path.length - 1] ?? '';

  // Prisma: prisma.<model>.update({ where, data }).
  if (PRISMA_WRITES[method] && path.length >= 2 && /^(?:prisma|tx|trx|db|client|prismaClient|this)$/i.test(path[path.length - 2] ?? '') && node.arguments.length === 1) {
    const arg = objectArgument(node, 0);
    const where = asObject(propertyValue(arg, 'where'));
    if (arg && (where || propertyValue(arg, 'data') || propertyValue(arg, 'update'))) {
      return { node, api: 'prisma', kind: PRISMA_WRITES[method], filter: where, values: asObject(propertyValue(arg, 'data') ?? propertyValue(arg, 'update')), links: [] };
    }
  }
  // DynamoDB DocumentClient v2: docClient.update({ TableName, Key, ... }).
  if (/^(?:update|put|delete)$/.test(method) && objectArgument(node, 0) && propertyValue(objectArgument(node, 0), 'TableName')) {
    const kind = method === 'update' ? 'update' : method === 'put' ? 'replace' : 'delete';
    return { node, api: 'dynamodb', kind, filter: objectArgument(node, 0), links: [] };
  }
  // MongoDB / Mongoose: coll.updateOne(filter, update).
  if (MONGO_WRITES[method] && node.arguments.length >= 1) {
    const filter = objectArgument(node, 0);
    const update = objectArgument(node, 1);
    const set = MONGO_WRITES[method] === 'replace' ? update : asObject(propertyValue(update, '$set')) ?? (update && !update.properties.some((p) => p.type === AST_NODE_TYPES.Property && (propertyKeyName(p) ?? '').startsWith('$')) ? update : undefined);
    if (filter || update) return { node, api: 'mongodb', kind: MONGO_WRITES[method], filter, values: set, links: [] };
  }
  // Sequelize: Model.update(values, { where }), Model.destroy({ where }).
  if ((method === 'update' || method === 'destroy') && /^[A-Z]/.test(receiver)) {
    const options = objectArgument(node, method === 'update' ? 1 : 0);
    const where = asObject(propertyValue(options, 'where'));
    if (where) return { node, api: 'sequelize', kind: method === 'update' ? 'update' : 'delete', filter: where, values: method === 'update' ? objectArgument(node, 0) : undefined, links: [] };
  }
  // TypeORM repository: repo.update(criteria, partial) / manager.update(Entity, criteria, partial).
  if ((method === 'update' || method === 'delete') && /(?:repo|repository|manager)$/i.test(receiver)) {
    const offset = /manager$/i.test(receiver) ? 1 : 0;
    const criteria = objectArgument(node, offset);
    return { node, api: 'typeorm', kind: method === 'update' ? 'update' : 'delete', filter: criteria, values: method === 'update' ? objectArgument(node, offset + 1) : undefined, links: [] };
  }
  // Builders: Kysely updateTable/deleteFrom, Drizzle update/delete(table), TypeORM createQueryBuilder().update().
  if (TERMINAL.test(method) || method === 'where' || method === 'set') {
    const links = chainLinks(node);
    // Only the outermost link of a chain is the write; inner links are reached from it.
    if (node.parent?.type === AST_NODE_TYPES.MemberExpression && node.parent.object === node && node.parent.parent?.type === AST_NODE_TYPES.CallExpression) return undefined;
    const names = links.map((l) => calleeName(l) ?? '');
    if (names.includes('updateTable')) return { node, api: 'kysely', kind: 'update', links, values: asObject(links.find((l) => calleeName(l) === 'set')?.arguments[0]) };
    if (names.includes('deleteFrom')) return { node, api: 'kysely', kind: 'delete', links };
    const root = links[links.length - 1];
    const rootName = calleeName(root);
    if (names.includes('createQueryBuilder') && (names.includes('update') || names.includes('delete'))) {
      return { node, api: 'typeorm', kind: names.includes('update') ? 'update' : 'delete', links, values: asObject(links.find((l) => calleeName(l) === 'set')?.arguments[0]) };
    }
    if ((rootName === 'update' || rootName === 'delete') && names.includes(rootName === 'update' ? 'set' : 'where') && root.arguments.length === 1 && unwrap(root.arguments[0] as Node).type !== AST_NODE_TYPES.ObjectExpression) {
      return { node, api: 'drizzle', kind: rootName === 'update' ? 'update' : 'delete', links, values: asObject(links.find((l) => calleeName(l) === 'set')?.arguments[0]) };
    }
  }
  return undefined;
}

const LESS = /^(?:lt|lte|\$lt|\$lte|equals|\$eq)$/;

function keyIsToken(key: string, tokenColumn: string): boolean {
  const bare = key.split('.').pop() ?? key;
  return bare === tokenColumn || bare === camel(tokenColumn) || isTokenColumnName(bare) || isTokenColumnName(snake(bare));
}

export function camel(column: string): string {
  return column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `{ fenceToken: { lt: t } }`, `{ fence_token: { $lt: t } }`, `{ fenceToken: LessThan(t) }`, `{ fenceToken: { [Op.lt]: t } }`, `{ fenceToken: t }`. */
function filterComparesToken(filter: TSESTree.ObjectExpression | undefined, tokenColumn: string, isToken: (n: Node) => boolean): string | undefined {
  for (const p of filter?.properties ?? []) {
    if (p.type !== AST_NODE_TYPES.Property) continue;
    const key = propertyKeyName(p);
    const value = unwrap(p.value);
    if (key === 'AND' || key === '$and') {
      const list = value.type === AST_NODE_TYPES.ArrayExpression ? value.elements : [value];
      for (const item of list) {
        const found = item && item.type !== AST_NODE_TYPES.SpreadElement ? filterComparesToken(asObject(item), tokenColumn, isToken) : undefined;
        if (found) return found;
      }
      continue;
    }
    if (!key && !p.computed) continue;
    const tokenKey = key !== undefined && keyIsToken(key, tokenColumn);
    if (value.type === AST_NODE_TYPES.ObjectExpression) {
      for (const inner of value.properties) {
        if (inner.type !== AST_NODE_TYPES.Property) continue;
        const op = propertyKeyName(inner) ?? (inner.computed ? memberNameOf(inner.key) : undefined);
        if (op && LESS.test(op) && (tokenKey || isToken(inner.value))) return key;
      }
      continue;
    }
    if (value.type === AST_NODE_TYPES.CallExpression && /^(?:LessThan|LessThanOrEqual|Equal)$/.test(calleeName(value) ?? '')) {
      if (tokenKey || (value.arguments[0] && isToken(value.arguments[0]))) return key;
      continue;
    }
    if (tokenKey || isToken(value) || (key !== undefined && isCompareAndSetColumnName(key))) return key;
  }
  return undefined;
}

function memberNameOf(node: Node): string | undefined {
  return memberName(node);
}

function valuesStore(values: TSESTree.ObjectExpression | undefined, column: string): boolean {
  if (!values) return true; // cannot see the values: do not claim they miss the token
  return values.properties.some((p) => {
    if (p.type !== AST_NODE_TYPES.Property) return p.type === AST_NODE_TYPES.SpreadElement;
    const key = propertyKeyName(p);
    return key === column || (key !== undefined && (snake(key) === snake(column) || camel(key) === camel(column)));
  });
}

/** Kysely/TypeORM/Drizzle builder: a where link comparing a token. */
function chainComparesToken(links: readonly TSESTree.CallExpression[], tokenColumn: string, isToken: (n: Node) => boolean): string | undefined {
  for (const link of links) {
    const name = calleeName(link) ?? '';
    if (!/^(?:where|andWhere|orWhere)$/.test(name)) continue;
    const [a, b, c] = link.arguments;
    const col = a ? staticString(a) : undefined;
    // Kysely: where('fence_token', '<', token).
    if (col !== undefined && c) {
      const op = b ? staticString(b) : undefined;
      if (op && ['<', '<=', '='].includes(op) && (keyIsToken(col, tokenColumn) || (c.type !== AST_NODE_TYPES.SpreadElement && isToken(c)))) return col.split('.').pop();
      continue;
    }
    // TypeORM: where('r.fence_token < :token', { token }).
    if (col !== undefined) {
      const m = /([\w."]+)\s*(<=|<|=)\s*:(\w+)/.exec(col);
      if (m && keyIsToken(m[1].replace(/"/g, ''), tokenColumn)) return m[1].replace(/"/g, '').split('.').pop();
      continue;
    }
    // Drizzle: where(and(eq(t.key, key), lt(t.fenceToken, token))).
    if (a && a.type !== AST_NODE_TYPES.SpreadElement) {
      const found = drizzleCompares(a, tokenColumn, isToken);
      if (found) return found;
    }
  }
  return undefined;
}

function drizzleCompares(node: Node, tokenColumn: string, isToken: (n: Node) => boolean): string | undefined {
  const n = unwrap(node);
  if (n.type !== AST_NODE_TYPES.CallExpression) return undefined;
  const name = calleeName(n) ?? '';
  if (name === 'and') {
    for (const arg of n.arguments) {
      const found = arg.type !== AST_NODE_TYPES.SpreadElement ? drizzleCompares(arg, tokenColumn, isToken) : undefined;
      if (found) return found;
    }
    return undefined;
  }
  if (/^(?:lt|lte|eq)$/.test(name)) {
    const [column, value] = n.arguments;
    const colName = column ? memberName(unwrap(column)) : undefined;
    if ((colName && keyIsToken(colName, tokenColumn)) || (value && value.type !== AST_NODE_TYPES.SpreadElement && isToken(value))) return colName ?? tokenColumn;
  }
  return undefined;
}

function dynamoCompares(input: TSESTree.ObjectExpression | undefined, tokenColumn: string): string | undefined {
  const condition = staticString(propertyValue(input, 'ConditionExpression') ?? ({ type: AST_NODE_TYPES.Literal, value: null } as unknown as Node));
  if (!condition) return undefined;
  const names = asObject(propertyValue(input, 'ExpressionAttributeNames'));
  const m = /([#\w.]+)\s*(<=|<|=)\s*:\w+|:\w+\s*(>=|>|=)\s*([#\w.]+)/.exec(condition);
  if (!m) return undefined;
  let attr = m[1] ?? m[4];
  if (attr.startsWith('#')) attr = staticString(propertyValue(names, attr) ?? ({ type: AST_NODE_TYPES.Literal, value: null } as unknown as Node)) ?? attr;
  return keyIsToken(attr, tokenColumn) ? attr : undefined;
}

export function judgeObjectWrite(write: ObjectWrite, tokenColumn: string, isToken: (n: Node) => boolean): ObjectVerdict {
  let column: string | undefined;
  if (write.api === 'dynamodb') column = dynamoCompares(write.filter, tokenColumn);
  else if (write.links.length > 0) column = chainComparesToken(write.links, tokenColumn, isToken);
  else column = filterComparesToken(write.filter, tokenColumn, isToken);
  if (!column) return { tokenCompared: false, tokenStored: false };
  // Equality on a holder or version column is compare-and-set: nothing new needs storing.
  const cas = isCompareAndSetColumnName(column) && !keyIsToken(column, tokenColumn);
  const stored = cas || write.kind === 'delete' || write.api === 'dynamodb' || valuesStore(write.values, column);
  return { tokenCompared: true, tokenStored: stored, column };
}
