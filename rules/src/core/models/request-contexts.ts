/**
 * Request contexts: frameworks that hand every handler an object a project factory makes per
 * request (`createContext` returning `{ db, usingLocks, ... }`), so `ctx.usingLocks(...)` in a
 * handler is that factory's member. Kept as data: where the framework learns the context's type,
 * and which builder methods take a handler whose first parameter carries it.
 */

export interface RequestContextModel {
  id: string;
  /** Packages the builder is imported from. */
  packages: readonly string[];
  /** The import and the call on it whose type argument is the context type: `initTRPC.context<Context>()`. */
  contextCall: { export: string; method: string };
  /** Builder methods whose argument is a handler (`procedure.mutation(handler)`). */
  handlerMethods: readonly string[];
  /** Steps of a builder chain that keep the context (`t.procedure`, `.use(auth)`, `.input(schema)`): a chain with none is no builder. */
  builderSteps: readonly string[];
  /** The property of the handler's first parameter that is the context (`({ ctx, input }) => ...`). */
  contextProperty: string;
}

export const REQUEST_CONTEXT_MODELS: readonly RequestContextModel[] = [
  {
    // tRPC: `initTRPC.context<Context>().create()`, procedures built from its `.procedure` (through
    // `.use(...)`, `.input(...)`), handlers given to `.query` / `.mutation` / `.subscription`.
    id: 'trpc',
    packages: ['@trpc/server'],
    contextCall: { export: 'initTRPC', method: 'context' },
    handlerMethods: ['query', 'mutation', 'subscription'],
    builderSteps: ['procedure', 'use', 'input', 'output', 'meta', 'concat'],
    contextProperty: 'ctx',
  },
];

/** Type helpers that name what a function returns: `ReturnType<typeof f>`, `Awaited<...>`, tRPC's `inferAsyncReturnType<typeof f>`. */
export const RETURN_TYPE_HELPERS: ReadonlySet<string> = new Set(['ReturnType', 'Awaited', 'inferAsyncReturnType']);
