/**
 * A project's own client of a remote lock authority: its `acquire` POSTs to a lease service,
 * so no lock is visible inside it. Its callers hold a lease when the result carries a fence
 * token, as they would if the client could not be read at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const client = `export interface Lease { leaseId: string; fenceToken: number }
export class FenceClient {
  constructor(private readonly baseUrl: string) {}
  async acquire(resource: string): Promise<Lease> {
    const res = await fetch(\`\${this.baseUrl}/leases\`, { method: 'POST', body: JSON.stringify({ resource }) });
    return (await res.json()) as Lease;
  }
  async release(lease: Lease): Promise<void> {
    await fetch(\`\${this.baseUrl}/leases/\${lease.leaseId}\`, { method: 'DELETE' });
  }
}
export const fence = new FenceClient('http://fence');
`;

const route = (use: string) => `import { Pool } from 'pg';
import { fence } from './fence-client';
const pool = new Pool();
export async function publish(id: string) {
  const lease = await fence.acquire(\`doc:\${id}\`);
  try {
    await pool.query('UPDATE docs SET published = true WHERE id = $1', [id]);
    ${use}
  } finally {
    await fence.release(lease);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe("a project's client of a remote lock authority", () => {
  it('its acquire is a lease when the caller reads a fence token off the result', async () => {
    current = project({ 'fence-client.ts': client, 'publish.ts': route('console.info(lease.fenceToken);') });
    const results = await current.lint('publish.ts');
    expect(findings(results.get('publish.ts'))).toEqual(['7 fencelint/require-fence-condition']);
  });

  it('without a token read off the result, the call takes no lock that can be seen', async () => {
    current = project({ 'fence-client.ts': client, 'publish.ts': route('console.info(lease.leaseId);') });
    const results = await current.lint('publish.ts');
    expect(findings(results.get('publish.ts'))).toEqual([]);
  });
});
