/**
 * A helper that makes an id itself (`randomUUID()`), inserts a record under it and returns the id:
 * the caller's later write picked by that id, under a lock, is of a record no other holder knows
 * yet. An id the helper took from its caller, or one it wrote with an upsert that may land on
 * someone else's row, is not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const receipts = `import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';

const pool = new Pool();

export async function startReceipt(till: string) {
  const receiptId = 'rcpt-' + randomUUID();
  await pool.query("INSERT INTO receipts (id, till, state) VALUES ($1, $2, 'open')", [receiptId, till]);
  return receiptId;
}

export async function startNamedReceipt(receiptId: string, till: string) {
  await pool.query("INSERT INTO receipts (id, till, state) VALUES ($1, $2, 'open')", [receiptId, till]);
  return receiptId;
}

export async function claimTillReceipt(till: string) {
  const receiptId = 'rcpt-' + randomUUID();
  await pool.query('INSERT INTO receipts (id, till) VALUES ($1, $2) ON CONFLICT (till) DO UPDATE SET id = EXCLUDED.id', [receiptId, till]);
  return receiptId;
}

export async function settleReceipt(receiptId: string, total: number) {
  await pool.query("UPDATE receipts SET state = 'settled', total = $2 WHERE id = $1", [receiptId, total]);
}
`;

const till = (start: string) => `import Redis from 'ioredis';
import { claimTillReceipt, settleReceipt, startNamedReceipt, startReceipt } from './receipts';

const redis = new Redis();

export async function ringUp(till: string, total: number, givenId: string) {
  if ((await redis.set('lock:till:' + till, '1', 'PX', 5000, 'NX')) !== 'OK') return;
  try {
    const receipt = await ${start};
    await settleReceipt(receipt, total);
  } finally {
    await redis.del('lock:till:' + till);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a record inserted under an id the helper made', () => {
  it("is the holder's own: settling it by that id is no late write", async () => {
    current = project({ 'src/receipts.ts': receipts, 'src/till.ts': till('startReceipt(till)') });
    const results = await current.lint('src/till.ts');
    expect(findings(results.get('src/till.ts'))).not.toContain('10 fencelint/require-fence-condition');
  });

  it("an id handed in by the caller is anybody's", async () => {
    current = project({ 'src/receipts.ts': receipts, 'src/till.ts': till('startNamedReceipt(givenId, till)') });
    const results = await current.lint('src/till.ts');
    expect(findings(results.get('src/till.ts'))).toContain('10 fencelint/require-fence-condition');
  });

  it("an id written with an upsert may name another holder's row", async () => {
    current = project({ 'src/receipts.ts': receipts, 'src/till.ts': till('claimTillReceipt(till)') });
    const results = await current.lint('src/till.ts');
    expect(findings(results.get('src/till.ts'))).toContain('10 fencelint/require-fence-condition');
  });

  it("holds in one file too: the helpers beside the section, every call of the write's helper handed such an id", async () => {
    const oneFile = `import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Pool } from 'pg';

const pool = new Pool();
const redis = new Redis();

async function startRun(batch: string) {
  const id = 'run_' + randomUUID().replace(/-/g, '');
  await pool.query("INSERT INTO runs (id, batch, state) VALUES ($1, $2, 'busy')", [id, batch]);
  return id;
}

async function endRun(runId: string, state: string) {
  await pool.query('UPDATE runs SET state = $2 WHERE id = $1', [runId, state]);
}

export async function process(batch: string, other: string) {
  if ((await redis.set('lock:batch:' + batch, '1', 'PX', 5000, 'NX')) !== 'OK') return;
  try {
    let run: string | null = null;
    run = await startRun(batch);
    await endRun(run, 'done');
    OTHER
  } finally {
    await redis.del('lock:batch:' + batch);
  }
}
`;
    current = project({ 'src/runs.ts': oneFile.replace('OTHER', '') });
    let results = await current.lint('src/runs.ts');
    expect(findings(results.get('src/runs.ts')).filter((f) => f.endsWith('require-fence-condition'))).toEqual([]);
    current.remove();
    current = project({ 'src/runs.ts': oneFile.replace('OTHER', "await endRun(other, 'stale');") });
    results = await current.lint('src/runs.ts');
    expect(findings(results.get('src/runs.ts')).filter((f) => f.endsWith('require-fence-condition'))).not.toEqual([]);
  });
});
