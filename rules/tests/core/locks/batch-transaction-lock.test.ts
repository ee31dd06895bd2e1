/**
 * An xact advisory lock taken as an element of a batch transaction (Prisma's
 * `$transaction([...])`, Neon's `sql.transaction([...])`): the batch runs every element, in order,
 * in one transaction, so the elements after the lock commit while it is held. The lock statement
 * may be written inline or returned, unrun, by a helper of this module or of another one. A
 * write outside that batch (in another batch, or after the lock was awaited on its own) is not
 * held by it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const shelfLock = `import { PrismaClient } from '@prisma/client';
export const db = new PrismaClient();

export function lockShelf(shelfId: string) {
  return db.$queryRaw\`SELECT pg_advisory_xact_lock(4411, hashtext(\${shelfId}))\`;
}
`;

const shelves = (body: string, imports = `import { PrismaClient } from '@prisma/client';
const db = new PrismaClient();

function lockShelf(shelfId: string) {
  return db.$queryRaw\`SELECT pg_advisory_xact_lock(4411, hashtext(\${shelfId}))\`;
}
`) => `${imports}
export async function relabel(shelfId: string, label: string) {
${body}
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('an xact advisory lock as an element of a batch transaction', () => {
  it('a write after a same-file helper that returns the lock statement, in the same batch: no finding', async () => {
    current = project({
      'shelves.ts': shelves(`  const [, moved] = await db.$transaction([
    lockShelf(shelfId),
    db.shelf.updateMany({ where: { id: shelfId }, data: { label } }),
  ]);
  return moved.count;`),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual([]);
  });

  it('the lock helper imported from another module: no finding', async () => {
    current = project({
      'locks.ts': shelfLock,
      'shelves.ts': shelves(
        `  await db.$transaction([lockShelf(shelfId), db.shelf.updateMany({ where: { id: shelfId }, data: { label } })]);`,
        `import { db, lockShelf } from './locks';\n`,
      ),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual([]);
  });

  it('the lock statement written inline as the first element: no finding', async () => {
    current = project({
      'shelves.ts': shelves(`  await db.$transaction([
    db.$executeRaw\`SELECT pg_advisory_xact_lock(4411, hashtext(\${shelfId}))\`,
    db.shelf.update({ where: { id: shelfId }, data: { label } }),
  ]);`),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual([]);
  });

  it('a write returned unrun by a same-file helper, after the lock in the same batch: no finding', async () => {
    current = project({
      'shelves.ts': shelves(`  await db.$transaction([lockShelf(shelfId), renameShelf(shelfId, label)]);
}

function renameShelf(shelfId: string, label: string) {
  return db.shelf.update({ where: { id: shelfId }, data: { label } });`),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual([]);
  });

  it('a write in a second batch, after the batch that took the lock committed, is reported', async () => {
    current = project({
      'shelves.ts': shelves(`  await db.$transaction([lockShelf(shelfId), db.shelf.findUnique({ where: { id: shelfId } })]);
  await db.$transaction([db.shelf.update({ where: { id: shelfId }, data: { label } })]);`),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a write in a batch after the lock was awaited on its own is reported', async () => {
    current = project({
      'shelves.ts': shelves(`  await lockShelf(shelfId);
  await db.$transaction([db.shelf.update({ where: { id: shelfId }, data: { label } })]);`),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a session lock in a batch is not held by the batch: reported', async () => {
    current = project({
      'shelves.ts': shelves(`  await db.$transaction([
    db.$executeRaw\`SELECT pg_advisory_lock(4411, hashtext(\${shelfId}))\`,
    db.shelf.update({ where: { id: shelfId }, data: { label } }),
  ]);`),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });

  it('an async helper sends the lock before it returns, on its own: reported', async () => {
    current = project({
      'shelves.ts': shelves(
        `  await db.$transaction([lockShelf(shelfId), db.shelf.update({ where: { id: shelfId }, data: { label } })]);`,
        `import { PrismaClient } from '@prisma/client';
const db = new PrismaClient();

async function lockShelf(shelfId: string) {
  return db.$queryRaw\`SELECT pg_advisory_xact_lock(4411, hashtext(\${shelfId}))\`;
}
`,
      ),
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it("a batch built as a const and handed to Neon's sql.transaction: no finding", async () => {
    current = project({
      'shelves.ts': `import { neon } from '@neondatabase/serverless';
const sql = neon(process.env.DATABASE_URL!);

export async function relabel(shelfId: string, label: string) {
  const steps = [
    sql\`SELECT pg_advisory_xact_lock(4411, hashtext(\${shelfId}))\`,
    sql\`UPDATE shelves SET label = \${label} WHERE id = \${shelfId}\`,
  ];
  await sql.transaction(steps);
}
`,
    });
    const results = await current.lint('shelves.ts');
    expect(findings(results.get('shelves.ts'))).toEqual([]);
  });
});
