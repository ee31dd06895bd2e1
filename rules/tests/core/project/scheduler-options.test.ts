/**
 * A shared scheduler package: `init({ name, runFunc })` defines a `run` function that takes a
 * redlock lease and calls the `runFunc` option under it, now and on a timer. Other packages of
 * the monorepo hand their job in as that option, so the job's writes are under the lease.
 * The package is plain JavaScript with a hand-written `index.d.ts` beside `index.js`, and its
 * entry gathers its modules with `module.exports = { ...require('./lib') }`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clearResolutions } from '../../../src/core/modules/module-resolution.js';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
  clearResolutions();
});

const scheduler = {
  'package.json': '{ "name": "mono", "private": true, "workspaces": ["packages/*"] }',
  'packages/cron/package.json': '{ "name": "@mono/cron", "main": "index.js", "types": "index.d.ts" }',
  'packages/cron/index.d.ts': 'export declare const every: { start(options: unknown): Promise<void> };\n',
  'packages/cron/index.js': "module.exports = {\n  ...require('./src'),\n};\n",
  'packages/cron/src/index.js': "module.exports = {\n  every: require('./every'),\n};\n",
  'packages/cron/src/every.js': `const Redlock = require('redlock');

const start = async ({ name, store, job, lockTtlSecs }) => {
  const redlock = new Redlock([store]);
  const tick = async () => {
    const lock = await redlock.lock('locks:' + name, lockTtlSecs * 1000);
    try {
      await job({ name });
    } finally {
      await lock.unlock();
    }
    setTimeout(tick, lockTtlSecs * 1000).unref();
  };
  await tick();
};

const stop = async (options) => {
  await options.onStop();
};

module.exports = { start, stop };
`,
  'packages/billing/package.json': '{ "name": "@mono/billing" }',
};

describe('a lock taken by a shared scheduler around a job passed as an option', () => {
  it('the job written inline in the options runs under the lease, in another package', async () => {
    current = project({
      ...scheduler,
      'packages/billing/lib/jobs.js': `const { every } = require('@mono/cron');

const schedule = async (context) => {
  await every.start({
    name: 'expire-trials',
    store: context.redis,
    lockTtlSecs: 600,
    job: async () => {
      await context.pg.query("UPDATE accounts SET plan = 'free' WHERE trial_ends < now()");
    },
  });
  await context.pg.query("UPDATE settings SET scheduled = true WHERE id = 1");
};

module.exports = { schedule };
`,
    });
    const results = await current.lint('packages/billing/lib/jobs.js');
    expect(findings(results.get('packages/billing/lib/jobs.js'))).toEqual(['9 fencelint/require-fence-condition']);
  });

  it('a job of another module handed over by name is reported where it is handed to the scheduler', async () => {
    current = project({
      ...scheduler,
      'packages/billing/lib/trials.js': `const expireTrials = async () => {
  await pg.query("UPDATE accounts SET plan = 'free' WHERE trial_ends < now()");
};
const remindTrials = async () => {
  console.log('mails only');
};
module.exports = { expireTrials, remindTrials };
`,
      'packages/billing/lib/jobs.js': `const { every } = require('@mono/cron');
const { expireTrials, remindTrials } = require('./trials');

const schedule = async (context) => {
  await every.start({ name: 'expire-trials', store: context.redis, lockTtlSecs: 600, job: expireTrials });
  await every.start({ name: 'remind-trials', store: context.redis, lockTtlSecs: 600, job: remindTrials });
};

module.exports = { schedule };
`,
    });
    const results = await current.lint('packages/billing/lib/jobs.js');
    expect(findings(results.get('packages/billing/lib/jobs.js'))).toEqual(['5 fencelint/require-fence-condition']);
  });

  it('an option the scheduler calls outside any lock opens no section', async () => {
    current = project({
      ...scheduler,
      'packages/billing/lib/jobs.js': `const { every } = require('@mono/cron');

const shutdown = async (context) => {
  await every.stop({
    onStop: async () => {
      await context.pg.query("UPDATE settings SET scheduled = false WHERE id = 1");
    },
  });
};

module.exports = { shutdown };
`,
    });
    const results = await current.lint('packages/billing/lib/jobs.js');
    expect(findings(results.get('packages/billing/lib/jobs.js'))).toEqual([]);
  });
});
