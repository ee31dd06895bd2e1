/**
 * A critical section kept in a variable before it is handed to the lock
 * (`const settle = async () => {...}; await lockOf().withLock(key, settle)`), with the lock object
 * handed out by a function of the same module that makes it once and keeps it at the top of the
 * module. The closure runs under the lock; the getter's instance is the imported lock class's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const lockClass = `import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export class TicketLock {
  constructor(private readonly redis: Redis) {}
  async take(name: string): Promise<string> {
    const me = randomUUID();
    if (!(await this.redis.set('lock:' + name, me, 'PX', 20000, 'NX'))) throw new Error('busy');
    return me;
  }
  async give(name: string, me: string): Promise<void> {
    await this.redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, 'lock:' + name, me);
  }
  async withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const me = await this.take(name);
    try {
      return await fn();
    } finally {
      await this.give(name, me);
    }
  }
}
`;

describe('a critical section kept in a variable, under a lock from a module-level getter', () => {
  it('follows the closure and the getter typed as the lock class', async () => {
    current = project({
      'src/ticket-lock.ts': lockClass,
      'src/refunds.ts': `import Redis from 'ioredis';
import { Pool } from 'pg';
import { TicketLock } from './ticket-lock';

const pool = new Pool();
let made: TicketLock | null = null;
function ticketLock(): TicketLock {
  if (!made) made = new TicketLock(new Redis());
  return made;
}

export async function refund(ticketId: string) {
  const settle = async () => {
    await pool.query("UPDATE tickets SET state = 'refunded' WHERE id = $1", [ticketId]);
  };
  const lock = ticketLock();
  await lock.withLock('ticket:' + ticketId, settle);
}
`,
    });
    const results = await current.lint('src/refunds.ts');
    expect(findings(results.get('src/refunds.ts'))).toEqual(['14 fencelint/require-fence-condition']);
  });

  it('follows an untyped getter that returns the instance kept at the top of the module, called inline', async () => {
    current = project({
      'src/ticket-lock.ts': lockClass,
      'src/refunds.ts': `import Redis from 'ioredis';
import { Pool } from 'pg';
import { TicketLock } from './ticket-lock';

const pool = new Pool();
let made;
function ticketLock() {
  if (made) return made;
  made = new TicketLock(new Redis());
  return made;
}

export async function refund(ticketId: string) {
  const settle = async () => {
    await pool.query("UPDATE tickets SET state = 'refunded' WHERE id = $1", [ticketId]);
  };
  await ticketLock().withLock('ticket:' + ticketId, settle);
}
`,
    });
    const results = await current.lint('src/refunds.ts');
    expect(findings(results.get('src/refunds.ts'))).toEqual(['15 fencelint/require-fence-condition']);
  });

  it('a lock-named helper of no module we read runs a closure named in the same scope', async () => {
    current = project({
      'src/refunds.ts': `import { Pool } from 'pg';
import { withTicketLock } from 'some-lock-package';

const pool = new Pool();

export async function refund(ticketId: string) {
  const settle = async () => {
    await pool.query("UPDATE tickets SET state = 'refunded' WHERE id = $1", [ticketId]);
  };
  await withTicketLock('ticket:' + ticketId, settle);
}
`,
    });
    const results = await current.lint('src/refunds.ts');
    expect(findings(results.get('src/refunds.ts'))).toEqual(['8 fencelint/require-fence-condition']);
  });

  it('an update of exactly the rows a query builder has just inserted, by their ids, writes its own rows', async () => {
    current = project({
      'src/ticket-lock.ts': lockClass,
      'src/seats.ts': `import type { Repository } from 'typeorm';
export class SeatWriter {
  constructor(private readonly seats: Repository<{ id: string; held: boolean }>) {}
  async hold(rows: Array<{ row: string; number: number }>) {
    const result = await this.seats.createQueryBuilder().insert().values(rows).orIgnore().returning('id').execute();
    const ids = (result.identifiers || []).map((r) => r.id).filter(Boolean);
    if (ids.length > 0) await this.seats.createQueryBuilder().update().set({ held: true }).whereInIds(ids).execute();
  }
}
`,
      'src/holds.ts': `import Redis from 'ioredis';
import { TicketLock } from './ticket-lock';
import { SeatWriter } from './seats';

const lock = new TicketLock(new Redis());

export async function holdSeats(writer: SeatWriter, showId: string, rows: Array<{ row: string; number: number }>) {
  await lock.withLock('show:' + showId, () => writer.hold(rows));
}
`,
    });
    const results = await current.lint('src/holds.ts');
    expect(findings(results.get('src/holds.ts'))).toEqual([]);
  });
});
