/**
 * NestJS lock decorators made of metadata: `@DistributedLock(...)` written as `SetMetadata(KEY,
 * options)` (alone, composed with `applyDecorators`, or applied by hand inside a decorator
 * function), with the lock taken by an interceptor or start-up hook the decorated file never
 * imports. The decorated method is the section; a metadata decorator named for something else,
 * or one that turns locking off, holds nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from '../project/project-helpers.js';

const decorators = `import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';

export const LOCK_OPTIONS = 'distributed-lock:options';

export function DistributedLock(options: { resource: string; ttlMs?: number }) {
  return SetMetadata(LOCK_OPTIONS, { ttlMs: 5000, ...options });
}

export const RedisLock = (resource: string) => applyDecorators(SetMetadata(LOCK_OPTIONS, { resource }), UseGuards());

export function JobLock(resource: string) {
  return function (target: object, key: string | symbol, descriptor: PropertyDescriptor) {
    SetMetadata(LOCK_OPTIONS, { resource })(target, key, descriptor);
    return descriptor;
  };
}

export const SkipLock = () => SetMetadata('distributed-lock:skip', true);
export const Roles = (...roles: string[]) => SetMetadata('roles', roles);
`;

const service = `import { Pool } from 'pg';
import { DistributedLock, JobLock, RedisLock, Roles, SkipLock } from './decorators';

const pool = new Pool();

export class InvoiceService {
  @DistributedLock({ resource: 'invoices:close' })
  async close(id: string) {
    await pool.query("UPDATE invoices SET status = 'closed' WHERE id = $1", [id]);
  }

  @RedisLock('invoices:total')
  async retotal(id: string, total: number) {
    await pool.query('UPDATE invoices SET total = $1 WHERE id = $2', [total, id]);
  }

  @JobLock('invoices:remind')
  async remind(id: string) {
    await pool.query('UPDATE invoices SET reminded_at = now() WHERE id = $1', [id]);
  }

  @SkipLock()
  async annotate(id: string, note: string) {
    await pool.query('UPDATE invoices SET note = $1 WHERE id = $2', [note, id]);
  }

  @Roles('admin')
  async reopen(id: string) {
    await pool.query("UPDATE invoices SET status = 'open' WHERE id = $1", [id]);
  }
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a lock decorator that records metadata', () => {
  it('reports the writes of the methods it decorates, in each of its three shapes', async () => {
    current = project({ 'decorators.ts': decorators, 'invoices.ts': service });
    const results = await current.lint('invoices.ts', 'decorators.ts');
    expect(findings(results.get('invoices.ts'))).toEqual(['9 fencelint/require-fence-condition', '14 fencelint/require-fence-condition', '19 fencelint/require-fence-condition']);
    expect(findings(results.get('decorators.ts'))).toEqual([]);
  });

  it('names the decorator and where it is defined', async () => {
    current = project({ 'decorators.ts': decorators, 'invoices.ts': service });
    const results = await current.lint('invoices.ts');
    const message = results.get('invoices.ts')?.[0]?.message ?? '';
    expect(message).toContain('under `DistributedLock` (decorators.ts:5)');
  });

  it("takes nothing from a SetMetadata that is not the framework's", async () => {
    const own = decorators.replace("import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';", "import { applyDecorators, UseGuards } from '@nestjs/common';\nconst SetMetadata = (key: string, value: unknown) => (..._args: unknown[]) => undefined;");
    current = project({ 'decorators.ts': own, 'invoices.ts': service });
    const results = await current.lint('invoices.ts');
    expect(findings(results.get('invoices.ts'))).toEqual([]);
  });

  it('holds nothing for a decorator that records metadata and is named for something else', async () => {
    const renamed = decorators.replaceAll('DistributedLock', 'AuditTrail').replaceAll('RedisLock', 'CacheKey').replaceAll('JobLock', 'JobName');
    current = project({ 'decorators.ts': renamed, 'invoices.ts': service.replaceAll('DistributedLock', 'AuditTrail').replaceAll('RedisLock', 'CacheKey').replaceAll('JobLock', 'JobName') });
    const results = await current.lint('invoices.ts');
    expect(findings(results.get('invoices.ts'))).toEqual([]);
  });
});
