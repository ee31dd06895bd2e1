/**
 * A method called through a public field of an instance of a project class
 * (`const orders = new OrderDesk(); orders.ledger.purge()`), where the class gives the field an
 * instance of another project class in its constructor or initializer, is that class's method:
 * its writes run under the caller's lock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const ledger = `import Redis from 'ioredis';
const redis = new Redis();

export class Ledger {
  async purge(desk: string) {
    const entries = JSON.parse((await redis.get('desk:' + desk)) ?? '[]');
    await redis.set('desk:' + desk, JSON.stringify(entries.filter((e: { open: boolean }) => e.open)));
    return entries.length;
  }
}
`;

const job = (call: string) => `import Redlock from 'redlock';
import { OrderDesk } from './order-desk';
const redlock = new Redlock([]);
const desk = new OrderDesk();

export async function nightly() {
  const lock = await redlock.acquire(['lock:desk'], 30000);
  try {
    await ${call};
  } finally {
    await lock.release();
  }
}
`;

describe('methods reached through a field of a project instance', () => {
  it('a public field set in the constructor', async () => {
    current = project({
      'src/ledger.ts': ledger,
      'src/order-desk.ts': `import { Ledger } from './ledger';
export class OrderDesk {
  public ledger: Ledger;
  constructor() {
    this.ledger = new Ledger();
  }
}
`,
      'src/job.ts': job("desk.ledger.purge('main')"),
    });
    const results = await current.lint('src/job.ts');
    expect(findings(results.get('src/job.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('a field initializer, in a JavaScript class', async () => {
    current = project({
      'src/ledger.ts': ledger,
      'src/order-desk.ts': `import { Ledger } from './ledger';
export class OrderDesk {
  ledger = new Ledger();
}
`,
      'src/job.ts': job("desk.ledger.purge('main')"),
    });
    const results = await current.lint('src/job.ts');
    expect(findings(results.get('src/job.ts'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('a private field is not followed', async () => {
    current = project({
      'src/ledger.ts': ledger,
      'src/order-desk.ts': `import { Ledger } from './ledger';
export class OrderDesk {
  private ledger: Ledger;
  constructor() {
    this.ledger = new Ledger();
  }
}
`,
      'src/job.ts': job("(desk as any).ledger.purge('main')"),
    });
    const results = await current.lint('src/job.ts');
    expect(findings(results.get('src/job.ts'))).toEqual([]);
  });
});
