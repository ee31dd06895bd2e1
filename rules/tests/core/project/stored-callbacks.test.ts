/**
 * A function handed to a constructor is kept by the new object for its own later use
 * (`new Draft(state, async (s) => this.save(s))` saves when the draft is committed, not when it is
 * made), also as a member of an options object (`new Proxy(target, { get: ... })`): its writes are
 * not the writes of the method that builds the object. A promise's executor is the exception: it
 * runs at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const drafts = (open: string) => `import type { PrismaClient } from '@prisma/client';

export class Draft {
  constructor(readonly text: string, private readonly onCommit: (text: string) => Promise<void>) {}
  commit() {
    return this.onCommit(this.text);
  }
}

export class DraftService {
  constructor(private readonly db: PrismaClient) {}

  async open(id: string) {
    const row = await this.db.draft.findUnique({ where: { id } });
    ${open}
  }
}
`;

const editor = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { DraftService } from './drafts';

const redlock = new Redlock([new Redis()]);

export async function preview(service: DraftService, id: string) {
  const lock = await redlock.acquire(['draft:' + id], 5000);
  try {
    return await service.open(id);
  } finally {
    await lock.release();
  }
}
`;

describe('a function handed to a constructor', () => {
  it('does not make the method that builds the object a write', async () => {
    current = project({
      'src/drafts.ts': drafts("return row && new Draft(row.text, async (text) => { await this.db.draft.update({ where: { id }, data: { text } }); });"),
      'src/editor.ts': editor,
    });
    const results = await current.lint('src/editor.ts');
    expect(findings(results.get('src/editor.ts'))).toEqual([]);
  });

  it('nor does a function in an options object handed to a constructor (a proxy trap)', async () => {
    current = project({
      'src/drafts.ts': drafts("return new Proxy({}, { get: (_target, field: string) => async () => { await this.db.draft.update({ where: { id }, data: { text: field } }); } });"),
      'src/editor.ts': editor,
    });
    const results = await current.lint('src/editor.ts');
    expect(findings(results.get('src/editor.ts'))).toEqual([]);
  });

  it('still counts a promise executor, which runs at once', async () => {
    current = project({
      'src/drafts.ts': drafts("return new Promise((resolve) => { resolve(this.db.draft.update({ where: { id }, data: { text: row?.text ?? '' } })); });"),
      'src/editor.ts': editor,
    });
    const results = await current.lint('src/editor.ts');
    expect(findings(results.get('src/editor.ts'))).toEqual(['10 fencelint/require-fence-condition']);
  });
});
