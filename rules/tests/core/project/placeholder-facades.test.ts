/**
 * A client facade that starts as placeholders (`let kv = { set: () => Promise.resolve(null) }`,
 * replaced by the real client's methods once it connects). The placeholder declares no
 * parameters and does nothing, so its summary says nothing about a call handed arguments: such a
 * call is read off its own shape, `kv.set(key, v, { NX: true, PX: ttl })` a lease as on any
 * client. A project method that reads its arguments is still judged by its summary. (The
 * handler names its lock helper with a lock word: files without one are not analysed.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const facade = `import { createClient } from 'redis';
export interface Kv {
  set: (key: string, value: string, options?: object) => Promise<string | null>;
  del: (key: string) => Promise<number>;
}
let kv: Kv = { set: () => Promise.resolve(null), del: () => Promise.resolve(0) };
export function connect() {
  const client = createClient();
  void client.connect();
  kv = { set: (k, v, o) => client.set(k, v, o as never), del: (k) => client.del(k) };
}
export default kv;
`;

const gate = `import kv from './kv';
export type Gate = { open: false } | { open: true; unlock: () => void };
export async function lockBoard(key: string, ms = 15_000): Promise<Gate> {
  const reply = await kv.set(key, '1', { NX: true, PX: ms });
  return reply ? { open: true, unlock: () => void kv.del(key) } : { open: false };
}
`;

const handler = `import { Pool } from 'pg';
import { lockBoard } from './board-lock';
const pool = new Pool();
export async function rename(boardId: string, title: string) {
  const gate = await lockBoard('board:' + boardId);
  if (!gate.open) return;
  await pool.query('UPDATE boards SET title = $1 WHERE id = $2', [title, boardId]);
  gate.unlock();
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

describe('a placeholder client facade', () => {
  it('is read by the call: the SET NX through it opens a section whose write is reported', async () => {
    current = project({ 'kv.ts': facade, 'board-lock.ts': gate, 'handler.ts': handler });
    const results = await current.lint('handler.ts');
    expect(findings(results.get('handler.ts'))).toEqual(['7 fencelint/require-fence-condition']);
  });

  it('a facade method that reads its arguments is judged by what it does', async () => {
    const real = facade.replace("set: () => Promise.resolve(null)", "set: (key: string) => Promise.resolve(key)");
    current = project({ 'kv.ts': real, 'board-lock.ts': gate, 'handler.ts': handler });
    const results = await current.lint('handler.ts');
    expect(findings(results.get('handler.ts'))).toEqual([]);
  });
});
