/**
 * Functions that receive a fence token or a lease from their caller: the acquire happens
 * elsewhere (a caller, perhaps another module), so the writes such a function makes run under
 * that lease and must carry the token in their condition. A parameter is a token when callers
 * pass one (or, with nobody in sight, when its name says so); it is a lease when callers pass
 * an acquire's handle, when its type is a lock handle, or when it is called a lease (a `lock`
 * or `grant` only when the function reads a token off it).
 */
import { AST_NODE_TYPES, ASTUtils, type TSESTree } from '@typescript-eslint/utils';
import type { SourceCode } from '@typescript-eslint/utils/ts-eslint';
import { memberName, type FunctionNode } from '../ast.js';
import { isHandleTokenName } from '../models/token-names.js';
import type { ReceiverTable } from '../modules/receivers.js';
import type { TokenTracer } from './token-tracer.js';
import { functionName } from './value-flow.js';

export interface ReceivedLease {
  id: number;
  /** The function that receives it. */
  fn: FunctionNode;
  /** How messages name that function. */
  fnName: string;
  /** The parameter (the binding inside a destructuring pattern). */
  param: TSESTree.Identifier;
  kind: 'token' | 'lease';
  /** The token it carries as source text (`fenceToken`, `lease.fenceToken`), when there is one. */
  token?: string;
}

/** Names of a lease parameter on their own. */
const LEASE_NAME = /^(?:lease|leaseHandle|lockHandle|lockLease)$|[a-z]Lease$/;
/** Names that are a lease only when the function reads a token off them. */
const HANDLE_NAME = /^(?:lock|grant|handle|ownership|fence|fencing)$|[a-z](?:Lock|Grant)$/;
/** Declared types of lock handles and leases (`Lease`, `Lock` from redlock, `FenceGrant`). */
const HANDLE_TYPE = /^(?:\w*(?:Lease|Lock|Grant|Fence|Fencing)(?:Handle|Info|Record|State|Grant)?)$/;
/** Functions that keep a lease itself (acquire, renew, release): their writes are lease upkeep, not data. */
const UPKEEP_FUNCTION = /^(?:acquire|tryAcquire|renew|extend|release|unlock|lock|tryLock|heartbeat|refresh|keepAlive|revoke|expire|touch|claim|steal|takeOver|takeover)/i;

function typeName(annotation: TSESTree.TypeNode | undefined): string | undefined {
  if (annotation?.type !== AST_NODE_TYPES.TSTypeReference) return undefined;
  const name = annotation.typeName;
  return name.type === AST_NODE_TYPES.Identifier ? name.name : name.type === AST_NODE_TYPES.TSQualifiedName ? name.right.name : undefined;
}

/** The bindings a parameter declares: `x`, `x = 1`, `{ fenceToken }`, a constructor's `private x`. */
function bindings(param: TSESTree.Parameter): TSESTree.Identifier[] {
  const out: TSESTree.Identifier[] = [];
  const visit = (node: TSESTree.Node | null | undefined): void => {
    if (!node) return;
    switch (node.type) {
      case AST_NODE_TYPES.Identifier:
        out.push(node);
        return;
      case AST_NODE_TYPES.AssignmentPattern:
        visit(node.left);
        return;
      case AST_NODE_TYPES.TSParameterProperty:
        visit(node.parameter);
        return;
      case AST_NODE_TYPES.ObjectPattern:
        for (const p of node.properties) if (p.type === AST_NODE_TYPES.Property) visit(p.value);
        return;
      case AST_NODE_TYPES.ArrayPattern:
        for (const e of node.elements) visit(e);
        return;
      default:
        return;
    }
  };
  visit(param);
  return out;
}

/** A token-like member the function reads off `id`: `lease.fenceToken`, `lock.token`. */
function tokenMemberRead(id: TSESTree.Identifier, sourceCode: SourceCode): string | undefined {
  const variable = ASTUtils.findVariable(sourceCode.getScope(id), id.name);
  for (const ref of variable?.references ?? []) {
    const member = ref.identifier.parent;
    if (member?.type !== AST_NODE_TYPES.MemberExpression || member.object !== ref.identifier) continue;
    const name = memberName(member);
    if (name && isHandleTokenName(name)) return name;
  }
  return undefined;
}

export function findReceivedLeases(functions: readonly FunctionNode[], tracer: TokenTracer, receivers: ReceiverTable, sourceCode: SourceCode): ReceivedLease[] {
  const found: ReceivedLease[] = [];
  for (const fn of functions) {
    if (fn.params.length === 0) continue;
    const fnName = functionName(fn) ?? 'this function';
    if (UPKEEP_FUNCTION.test(fnName)) continue;
    for (const param of fn.params) {
      for (const id of bindings(param)) {
        const received = classify(id, tracer, receivers, sourceCode);
        if (received) found.push({ id: found.length, fn, fnName, param: id, ...received });
      }
    }
  }
  return found;
}

function classify(id: TSESTree.Identifier, tracer: TokenTracer, receivers: ReceiverTable, sourceCode: SourceCode): Pick<ReceivedLease, 'kind' | 'token'> | undefined {
  if (tracer.isToken(id)) return { kind: 'token', token: id.name };
  const type = id.typeAnnotation?.typeAnnotation;
  const byOrigin = tracer.isHandleByOrigin(id);
  const typed = (typeName(type) !== undefined && HANDLE_TYPE.test(typeName(type)!)) || receivers.kindOfType(type)?.type === 'lockObject';
  const leaseLike = byOrigin || typed || LEASE_NAME.test(id.name);
  const handleNamed = HANDLE_NAME.test(id.name);
  // Most parameters are neither: their references are not searched for a token member.
  if (!leaseLike && !handleNamed) return undefined;
  const member = tokenMemberRead(id, sourceCode);
  if (!leaseLike && member === undefined) return undefined;
  return { kind: 'lease', token: member === undefined ? undefined : `${id.name}.${member}` };
}
