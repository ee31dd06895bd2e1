/**
 * A record handed in as a parameter typed with one of the project's model classes
 * (`membership: Membership`), where the class extends an ORM's record base directly or through
 * the project's own base class (`Membership extends TimestampedRecord extends Model`): its
 * `update()` / `destroy()` writes the record back exactly as a record the function had read
 * itself would. A parameter typed with any other class, or an interface, is no record.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'package.json': JSON.stringify({ name: 'club', dependencies: { sequelize: '6', ioredis: '5' } }),
  'src/records/connection.ts': `import { Sequelize } from 'sequelize';
export default new Sequelize('postgres://club');
`,
  'src/records/TimestampedRecord.ts': `import { Model } from 'sequelize';
export abstract class TimestampedRecord<A extends object> extends Model<A> {
  declare touchedAt: Date;
}
`,
  'src/records/Membership.ts': `import { DataTypes } from 'sequelize';
import connection from './connection';
import { TimestampedRecord } from './TimestampedRecord';

class Membership extends TimestampedRecord<{ tier: string; perks: Record<string, boolean> }> {
  declare id: number;
  declare tier: string;
  declare perks: Record<string, boolean>;
}
Membership.init({ tier: DataTypes.STRING, perks: DataTypes.JSONB }, { sequelize: connection });
export default Membership;
`,
  'src/records/index.ts': `import Membership from './Membership';
export { Membership };
`,
  'src/turnstile.ts': `import Redis from 'ioredis';
const redis = new Redis();

export async function withLock<T>(name: string, job: () => Promise<T>): Promise<T> {
  const key = 'lock:' + name;
  const token = Math.random().toString(36).slice(2);
  const ok = await redis.set(key, token, 'PX', 15000, 'NX');
  if (ok !== 'OK') throw new Error('busy');
  try {
    return await job();
  } finally {
    await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, key, token);
  }
}
`,
};

describe('a record handed in as a typed parameter', () => {
  it('is written back by update() and destroy() under a lock helper', async () => {
    current = project({
      ...files,
      'src/upgrades.ts': `import { Membership } from './records';
import { withLock } from './turnstile';

declare function priceOf(tier: string): Promise<number>;

export async function upgrade(membership: Membership, tier: string) {
  return withLock('membership:' + membership.id, async () => {
    await membership.reload();
    if ((await priceOf(tier)) < 0) {
      await membership.destroy();
      return;
    }
    await membership.update({ tier, perks: { ...membership.perks, lounge: true } });
  });
}
`,
    });
    const results = await current.lint('src/upgrades.ts');
    expect(findings(results.get('src/upgrades.ts'))).toEqual(['10 fencelint/require-fence-condition', '13 fencelint/require-fence-condition']);
  });

  it('is not assumed for a parameter typed with a class that extends no record base, nor an interface', async () => {
    current = project({
      ...files,
      'src/ledger.ts': `export class Ledger {
  entries: string[] = [];
  update(line: string) { this.entries.push(line); }
}
export interface Board { update(values: object): Promise<void>; }
`,
      'src/notes.ts': `import { Ledger, type Board } from './ledger';
import { withLock } from './turnstile';

export async function note(ledger: Ledger, board: Board, line: string) {
  return withLock('notes', async () => {
    ledger.update(line);
    await board.update({ line });
  });
}
`,
    });
    const results = await current.lint('src/notes.ts');
    expect(findings(results.get('src/notes.ts'))).toEqual([]);
  });
});
