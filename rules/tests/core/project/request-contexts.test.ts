/**
 * A request context made by a project factory: tRPC handlers get `ctx`, the object the factory
 * named by `initTRPC.context<Context>()` returns (`Context` an alias of `Awaited<ReturnType<typeof
 * makeContext>>`, or that type inline), through the procedures built from the instance
 * (`t.procedure.use(...)`, `.input(...)`, the file's own consts). So `ctx.usingLocks(...)` is the
 * project's lock helper and `ctx.books.rename(...)` the method of the store the factory puts there.
 * A `ctx` of a handler given to a builder that no context call made resolves to nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/locking.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);

export function usingLocks<T>(keys: string[], body: () => Promise<T>) {
  return redlock.using(keys, 7000, () => body());
}
`,
  'src/books.ts': `import { Pool } from 'pg';
const pool = new Pool();

export class Books {
  async rename(id: string, title: string) {
    await pool.query('UPDATE books SET title = $1 WHERE id = $2', [title, id]);
  }
}

export const books = () => new Books();
`,
  'src/context.ts': `import { usingLocks } from './locking';
import { books } from './books';

export async function makeContext({ req }: { req: { headers: Record<string, string> } }) {
  return { req, usingLocks, books: books() };
}

export type Context = Awaited<ReturnType<typeof makeContext>>;
`,
  'src/trpc.ts': `import { initTRPC } from '@trpc/server';
import type { Context } from './context';

export const t = initTRPC.context<Context>().create();
`,
  'src/procedures.ts': `import { t } from './trpc';

export const signedIn = t.procedure.use(t.middleware(async (opts) => opts.next()));
`,
};

describe('a tRPC request context', () => {
  it('resolves ctx to the object the context factory returns, for named and inline handlers', async () => {
    current = project({
      ...files,
      'src/routes/rename-book.ts': `import { signedIn } from '../procedures';

const base = signedIn.input((raw: unknown) => raw as { id: string; title: string });

export const renameBook = base.mutation(renameHandler);

export async function renameHandler({ ctx, input }: { ctx: any; input: { id: string; title: string } }) {
  return ctx.usingLocks(['book:' + input.id], async () => {
    await ctx.books.rename(input.id, input.title);
  });
}

export const retitleBook = base.mutation(async ({ ctx, input }: { ctx: any; input: { id: string; title: string } }) => {
  await ctx.usingLocks(['book:' + input.id], async () => {
    await ctx.books.rename(input.id, input.title.trim());
  });
});
`,
    });
    const results = await current.lint('src/routes/rename-book.ts');
    const messages = results.get('src/routes/rename-book.ts') ?? [];
    expect(findings(messages)).toEqual(['9 fencelint/require-fence-condition', '15 fencelint/require-fence-condition']);
    // The lock is the project's helper, read in its module, not guessed from the name.
    for (const m of messages) expect(m.message).toMatch(/UPDATE books.*locking\.ts/);
  });

  it('follows a builder made in the same module as the context call, with the type inline', async () => {
    current = project({
      ...files,
      'src/context.ts': `import { usingLocks } from './locking';
import { books } from './books';
import { initTRPC } from '@trpc/server';

export async function makeContext() {
  return { usingLocks, books: books() };
}

const t = initTRPC.context<Awaited<ReturnType<typeof makeContext>>>().create();
export const open = t.procedure;
`,
      'src/routes/shelve.ts': `import { open } from '../context';

export const shelve = open.mutation(async ({ ctx, input }: { ctx: any; input: { id: string } }) => {
  await ctx.usingLocks(['book:' + input.id], async () => {
    await ctx.books.rename(input.id, 'shelved');
  });
});
`,
    });
    const results = await current.lint('src/routes/shelve.ts');
    expect(findings(results.get('src/routes/shelve.ts'))).toEqual(['5 fencelint/require-fence-condition']);
  });

  it('resolves nothing for a handler of a builder no context call made', async () => {
    current = project({
      ...files,
      'src/routes/other.ts': `import { makeRouter } from 'rpc-kit';

const router = makeRouter();

export const retitle = router.mutation(async ({ ctx, input }: { ctx: any; input: { id: string; title: string } }) => {
  await ctx.usingLocks(['book:' + input.id], async () => {
    await ctx.books.rename(input.id, input.title);
  });
});
`,
    });
    const results = await current.lint('src/routes/other.ts');
    expect(findings(results.get('src/routes/other.ts'))).toEqual([]);
  });
});
