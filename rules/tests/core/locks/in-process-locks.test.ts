/**
 * In-process locks held by another module's class: a mutex of async-mutex (or the like) cannot
 * lapse under a running process, so writes under it are no late writes, even when a helper
 * named like a lock wrapper runs the callback under it. A lock service of the project's own in
 * the same place is still a lock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const documentModule = (field: string) => `import { Mutex } from 'async-mutex';
import { LeaseService } from './lease-service';

export class OpenDocument {
  ${field}
  constructor(readonly id: string) {}
}
`;

const leaseService = `import Redlock from 'redlock';
const redlock = new Redlock([]);
export class LeaseService {
  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    return redlock.using(['doc'], 5000, fn);
  }
}
`;

const routes = `import { Pool } from 'pg';
import type { OpenDocument } from './document';
const pool = new Pool();

export function routes() {
  const withDocumentLock = (handler: (doc: OpenDocument) => Promise<void>) => async (doc: OpenDocument) => {
    await doc.editLock.runExclusive(() => handler(doc));
  };
  return {
    rename: withDocumentLock(async (doc) => {
      await pool.query('UPDATE documents SET title = $1 WHERE id = $2', ['untitled', doc.id]);
    }),
    touch: async (doc: OpenDocument) => {
      await doc.editLock.runExclusive(async () => {
        await pool.query('UPDATE documents SET touched_at = now() WHERE id = $1', [doc.id]);
      });
    },
  };
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('in-process locks of another module', () => {
  it('an async-mutex field, used directly or through a lock-named wrapper, opens no critical section', async () => {
    current = project({ 'lease-service.ts': leaseService, 'document.ts': documentModule('readonly editLock = new Mutex();'), 'routes.ts': routes });
    const results = await current.lint('routes.ts');
    expect(findings(results.get('routes.ts'))).toEqual([]);
  });

  it('a field typed as the mutex, assigned in the constructor, is the same', async () => {
    current = project({
      'lease-service.ts': leaseService,
      'document.ts': documentModule('readonly editLock: Mutex;\n  init() { }').replace('constructor(readonly id: string) {}', 'constructor(readonly id: string) {\n    this.editLock = new Mutex();\n  }'),
      'routes.ts': routes,
    });
    const results = await current.lint('routes.ts');
    expect(findings(results.get('routes.ts'))).toEqual([]);
  });

  it("a lock service of the project's own in that field is still a lock", async () => {
    current = project({ 'lease-service.ts': leaseService, 'document.ts': documentModule('readonly editLock = new LeaseService();'), 'routes.ts': routes });
    const results = await current.lint('routes.ts');
    expect(findings(results.get('routes.ts'))).toEqual(['11 fencelint/require-fence-condition', '15 fencelint/require-fence-condition']);
  });
});
