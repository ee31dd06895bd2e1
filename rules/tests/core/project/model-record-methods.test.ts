/**
 * A model class whose method writes its own record (`this.save()`), declared in another
 * module: a caller that reads the record through the model under a lock and calls that method
 * makes an unfenced write. The module summary says the method writes its record; the caller
 * counts it only on a record a model read returned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const base = `import { Model } from 'sequelize';

export class AppModel extends Model {}
`;

const user = (options: string) => `import { DataTypes, Sequelize } from 'sequelize';
import { AppModel } from './base';

export class Member extends AppModel {
  declare sessionSecret: string;

  rotateSessionSecret = async () => {
    this.sessionSecret = Math.random().toString(36);
    return this.save();
  };
}

Member.init({ sessionSecret: DataTypes.STRING }, { sequelize: new Sequelize('postgres://localhost/app')${options} });
`;

const task = (read: string) => `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Member } from '../models';

const redlock = new Redlock([new Redis()]);

export async function revokeSessions(memberId: string) {
  await redlock.using(['revoke:' + memberId], 5000, async () => {
    const member = ${read};
    await member?.rotateSessionSecret();
  });
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = (options: string, read: string) => ({
  'models/base.ts': base,
  'models/member.ts': user(options),
  'models/index.ts': `export { Member } from './member';\n`,
  'tasks/revoke.ts': task(read),
});

describe('a model method that saves its own record, in another module', () => {
  it('called on a record read through the model under the lock: an unfenced write', async () => {
    current = project(files('', 'await Member.findByPk(memberId)'));
    const results = await current.lint('tasks/revoke.ts');
    expect(findings(results.get('tasks/revoke.ts'))).toEqual(['10 fencelint/require-fence-condition']);
    expect(results.get('tasks/revoke.ts')?.[0]?.message).toContain('`this.save` (member.ts:9)');
  });

  it('called on an instance that no model read returned: not a stored record', async () => {
    current = project(files('', 'new Member()'));
    const results = await current.lint('tasks/revoke.ts');
    expect(findings(results.get('tasks/revoke.ts'))).toEqual([]);
  });

  it('on a model with optimistic locking (version: true), save() compares the version', async () => {
    current = project(files(', version: true', 'await Member.findByPk(memberId)'));
    const results = await current.lint('tasks/revoke.ts');
    expect(findings(results.get('tasks/revoke.ts'))).toEqual([]);
  });

  it('a read through a service object returns data, not that service', async () => {
    current = project({
      ...files('', 'await Member.findByPk(memberId)'),
      'services/members.ts': `import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export const memberService = {
  async findOne(id: string) { return prisma.member.findUnique({ where: { id } }); },
  async rotateSessionSecret() { await prisma.member.updateMany({ where: {}, data: { sessionSecret: null } }); },
};
`,
      'tasks/revoke.ts': task('await memberService.findOne(memberId)').replace("import { Member } from '../models';", "import { memberService } from '../services/members';"),
    });
    const results = await current.lint('tasks/revoke.ts');
    expect(findings(results.get('tasks/revoke.ts'))).toEqual([]);
  });

  it('the model module itself reports nothing: it holds no lock', async () => {
    current = project(files('', 'await Member.findByPk(memberId)'));
    const results = await current.lint('models/member.ts', 'models/base.ts');
    expect(findings(results.get('models/member.ts'))).toEqual([]);
  });
});
