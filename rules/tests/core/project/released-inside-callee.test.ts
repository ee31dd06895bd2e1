/**
 * A function that takes a lock and gives it back before it returns (`await using` disposes of the
 * handle where its block ends, a `finally` releases it, a callback helper runs the work) holds
 * nothing for its callers: their writes after calling it are outside any critical section. Only a
 * function that returns with the lock still held (`return handle`) puts its caller inside one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'src/redis.ts': `import Redis from 'ioredis';
export const redis = new Redis();
`,
  'src/db.ts': `import pg from 'pg';
export const db = new pg.Pool();
`,
  'src/gate.ts': `import { randomUUID } from 'node:crypto';
import { redis } from './redis';

const GIVE_BACK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

export class Gate {
  async lock(name: string) {
    const owner = randomUUID();
    const reply = await redis.set('gate:' + name, owner, 'PX', 30000, 'NX');
    if (reply !== 'OK') return undefined;
    return {
      owner,
      release: () => redis.eval(GIVE_BACK, 1, 'gate:' + name, owner),
      [Symbol.asyncDispose]: async () => { await redis.eval(GIVE_BACK, 1, 'gate:' + name, owner); },
    };
  }
}
`,
  'src/shelf.ts': `import { Gate } from './gate';
import { db } from './db';

export class Shelf {
  constructor(private readonly gate: Gate) {}

  async readDisposed(shelfId: string) {
    await using held = await this.gate.lock('shelf:' + shelfId);
    const { rows } = await db.query('SELECT label FROM shelves WHERE id = $1', [shelfId]);
    return rows[0];
  }

  async readReleased(shelfId: string) {
    const held = await this.gate.lock('shelf:' + shelfId);
    try {
      const { rows } = await db.query('SELECT label FROM shelves WHERE id = $1', [shelfId]);
      return rows[0];
    } finally {
      await held?.release();
    }
  }

  async relabelDisposed(shelfId: string, label: string) {
    await using held = await this.gate.lock('shelf:' + shelfId);
    await db.query('UPDATE shelves SET label = $1 WHERE id = $2', [label, shelfId]);
    return label;
  }

  async lockShelf(shelfId: string) {
    const held = await this.gate.lock('shelf:' + shelfId);
    return held;
  }
}
`,
};

describe('a lock released inside the callee', () => {
  it('is not held by a caller of a function that disposes of it with `await using`', async () => {
    current = project({
      ...files,
      'src/visits.ts': `import { Shelf } from './shelf';
import { Gate } from './gate';
import { db } from './db';

export class Visits {
  constructor(private readonly shelf: Shelf, private readonly gate: Gate) {}
  async rename(visitor: string, name: string) {
    await using held = await this.gate.lock('visitor:' + visitor);
    await db.query('UPDATE visitors SET name = $1 WHERE id = $2', [name, visitor]);
  }
  async visit(shelfId: string, visitor: string) {
    const label = await this.shelf.readDisposed(shelfId);
    await db.query('UPDATE visitors SET last_label = $1 WHERE id = $2', [label, visitor]);
  }
}
`,
    });
    const results = await current.lint('src/visits.ts');
    expect(findings(results.get('src/visits.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('is not held by a caller of a function that releases it in `finally`', async () => {
    current = project({
      ...files,
      'src/visits.ts': `import { Shelf } from './shelf';
import { Gate } from './gate';
import { db } from './db';

export class Visits {
  constructor(private readonly shelf: Shelf, private readonly gate: Gate) {}
  async rename(visitor: string, name: string) {
    await using held = await this.gate.lock('visitor:' + visitor);
    await db.query('UPDATE visitors SET name = $1 WHERE id = $2', [name, visitor]);
  }
  async visit(shelfId: string, visitor: string) {
    const label = await this.shelf.readReleased(shelfId);
    await db.query('UPDATE visitors SET last_label = $1 WHERE id = $2', [label, visitor]);
  }
}
`,
    });
    const results = await current.lint('src/visits.ts');
    expect(findings(results.get('src/visits.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('is not held through a chain of callers, nor through a same-file method', async () => {
    current = project({
      ...files,
      'src/labels.ts': `import { Shelf } from './shelf';
export class Labels {
  constructor(private readonly shelf: Shelf) {}
  async labelOf(shelfId: string) {
    const row = await this.shelf.readDisposed(shelfId);
    return row?.label ?? '';
  }
}
`,
      'src/visits.ts': `import { Labels } from './labels';
import { Gate } from './gate';
import { db } from './db';

export class Visits {
  constructor(private readonly labels: Labels, private readonly gate: Gate) {}
  async rename(visitor: string, name: string) {
    await using held = await this.gate.lock('visitor:' + visitor);
    await db.query('UPDATE visitors SET name = $1 WHERE id = $2', [name, visitor]);
  }
  async describe(shelfId: string) {
    return { label: await this.labels.labelOf(shelfId) };
  }
  async visit(shelfId: string, visitor: string) {
    const { label } = await this.describe(shelfId);
    await db.query('UPDATE visitors SET last_label = $1 WHERE id = $2', [label, visitor]);
  }
}
`,
    });
    const results = await current.lint('src/visits.ts');
    expect(findings(results.get('src/visits.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('still covers the writes inside the `await using` block, and a function that returns the handle still hands the lock on', async () => {
    current = project({
      ...files,
      'src/visits.ts': `import { Shelf } from './shelf';
import { db } from './db';

export class Visits {
  constructor(private readonly shelf: Shelf) {}
  async restock(shelfId: string, count: number) {
    const held = await this.shelf.lockShelf(shelfId);
    await db.query('UPDATE shelves SET stock = $1 WHERE id = $2', [count, shelfId]);
    await held?.release();
  }
}
`,
    });
    const results = await current.lint('src/shelf.ts', 'src/visits.ts');
    expect(findings(results.get('src/shelf.ts'))).toEqual(['25 fencelint/require-fence-condition']);
    expect(findings(results.get('src/visits.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });
});
