/**
 * A registry module that imports the project's model classes and hands them out as one object
 * (`const entities = { Ticket, Seat, ... }; export default entities; export { Ticket }`), with its
 * associations wired at the top level. Asking what `entities.Ticket` is must not summarise the
 * registry: that would summarise every model its top-level code calls, spending the lint's
 * module bounds before the lock helper is read. The name's own module answers (a class), and a
 * registry of classes is project code, never a client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const ENTITY_COUNT = 140;

/** Many small model modules, each wired to the next in the registry's top-level code. */
function registryFiles(registryExtra = ''): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'box-office', dependencies: { sequelize: '6', redis: '4' } }),
    'src/entities/connection.ts': `import { Sequelize } from 'sequelize';
const connection = new Sequelize('postgres://box-office');
export default connection;
`,
    'src/keeper.ts': `import { createClient } from 'redis';

export async function underLock<T>(name: string, job: () => Promise<T>): Promise<T> {
  const client = createClient();
  const key = \`lock:\${name}\`;
  const taken = await client.set(key, 'held', { NX: true, PX: 20000 });
  if (!taken) throw new Error('busy: ' + name);
  try {
    return await job();
  } finally {
    await client.del(key);
  }
}
`,
  };
  const names: string[] = [];
  for (let i = 0; i < ENTITY_COUNT; i++) {
    const name = `Entity${i}`;
    names.push(name);
    files[`src/entities/${name}.ts`] = `import { DataTypes, Model } from 'sequelize';
import connection from './connection';
class ${name} extends Model {
  declare id: number;
  declare state: string;
  static describe() { return '${name}'; }
}
${name}.init({ state: DataTypes.STRING }, { sequelize: connection });
export default ${name};
`;
  }
  names.push('Ticket');
  files['src/entities/Ticket.ts'] = `import { DataTypes, Model } from 'sequelize';
import connection from './connection';
class Ticket extends Model {
  declare id: number;
  declare state: string;
  declare notes: Record<string, unknown>;
}
Ticket.init({ state: DataTypes.STRING, notes: DataTypes.JSONB }, { sequelize: connection });
export default Ticket;
`;
  const imports = names.map((n) => `import ${n} from './${n}';`).join('\n');
  const wiring = names.slice(0, -1).map((n, i) => `${n}.hasMany(${names[i + 1]});`).join('\n');
  files['src/entities/index.ts'] = `import connection from './connection';
${imports}

const entities = {
  ${names.join(',\n  ')},
} as const;

${wiring}
${registryExtra}
export default entities;
export { connection };
export { ${names.join(', ')} };
`;
  return files;
}

describe('a registry of model classes', () => {
  it('lets a write on a record read through the registry be found under a lock helper', async () => {
    current = project({
      ...registryFiles(),
      'src/refunds.ts': `import entities from './entities';
import { underLock } from './keeper';

export async function markRefunded(ticketId: number) {
  return underLock(\`ticket-\${ticketId}\`, async () => applyRefund(ticketId));
}

const applyRefund = async (ticketId: number) => {
  const ticket = await entities.Ticket.findOne({ where: { id: ticketId } });
  if (!ticket) return;
  await ticket.update({ state: 'REFUNDED', notes: { ...ticket.notes, refunded: true } });
};
`,
    });
    const results = await current.lint('src/refunds.ts');
    expect(findings(results.get('src/refunds.ts'))).toEqual(['11 fencelint/require-fence-condition']);
  });

  it('finds the same write when the model is imported by its own name from the registry', async () => {
    current = project({
      ...registryFiles(),
      'src/refunds.ts': `import { Ticket } from './entities';
import { underLock } from './keeper';

export async function markRefunded(ticketId: number) {
  return underLock(\`ticket-\${ticketId}\`, async () => {
    const ticket = await Ticket.findByPk(ticketId);
    if (ticket) await ticket.update({ state: 'REFUNDED' });
  });
}
`,
    });
    const results = await current.lint('src/refunds.ts');
    expect(findings(results.get('src/refunds.ts'))).toEqual(['7 fencelint/require-fence-condition']);
  });

  it('still reads a registry that also holds a client: it is no registry of code', async () => {
    current = project({
      'package.json': JSON.stringify({ name: 'box-office', dependencies: { redis: '4' } }),
      'src/cache.ts': `import { createClient } from 'redis';
export const cache = createClient();
`,
      'src/services.ts': `import { cache } from './cache';
const services = { cache } as const;
export default services;
`,
      'src/board.ts': `import services from './services';

export async function pin(boardId: string, note: string) {
  const taken = await services.cache.set(\`lock:board:\${boardId}\`, 'me', { NX: true, PX: 5000 });
  if (!taken) return;
  await services.cache.set(\`board:\${boardId}:pinned\`, note);
}
`,
    });
    const results = await current.lint('src/board.ts');
    expect(findings(results.get('src/board.ts'))).toEqual(['6 fencelint/require-fence-condition']);
  });
});
