/**
 * A helper named for doing something once (`claimDeliveryOnce`, `dedupeEvent`) that sets a
 * constant with an expiry only if absent and returns whether it did: an idempotency gate for a
 * duplicate delivery, never released, with no second holder while the first works. What runs
 * after it is no critical section. A helper named only for claiming, with the same body, still
 * takes a lease.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const gate = (name: string) => `import Redis from 'ioredis';
const redis = new Redis();
export const ${name} = async (key: string, ttlSeconds = 60 * 60 * 24) => {
  const result = await redis.set(key, '1', 'EX', ttlSeconds, 'NX');
  return result === 'OK';
};
`;

const handler = (name: string) => `import { Pool } from 'pg';
import { ${name} } from './gate';
const pool = new Pool();
export async function onPaid(eventId: string, orderId: string) {
  if (!(await ${name}('delivery:' + eventId))) return;
  await pool.query("UPDATE orders SET paid = true, paid_event = $2 WHERE id = $1", [orderId, eventId]);
}
`;

describe('set-if-absent helpers named for doing something once', () => {
  it('reads a once-named gate as no lock', async () => {
    current = project({ 'src/gate.ts': gate('claimDeliveryOnce'), 'src/paid.ts': handler('claimDeliveryOnce') });
    const results = await current.lint('src/paid.ts');
    expect(findings(results.get('src/paid.ts'))).toEqual([]);
  });

  it('still reads a claim-named helper with the same body as a lease', async () => {
    current = project({ 'src/gate.ts': gate('claimDelivery'), 'src/paid.ts': handler('claimDelivery') });
    const results = await current.lint('src/paid.ts');
    expect(findings(results.get('src/paid.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});
