/**
 * A project function whose write runs only when an optional argument is given
 * (`if (patch) { ...; await record.save(); }`): a call under a lock that leaves that argument out
 * (fewer arguments, or `undefined`) does not make the write, so the call is no late write. A call
 * that passes the argument, whatever its value, still is; so is a write behind a parameter with a
 * default or one the function reassigns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

const model = `import mongoose from 'mongoose';

const schema = new mongoose.Schema({ orderId: String, buyerId: String, shopId: String, notes: Object });
export const Conversation = mongoose.model('Conversation', schema);
`;

/** A repository whose find-or-create saves the found record only when it is handed notes. */
const repository = (guard: string, signature = 'notes?: Record<string, unknown>') => `import { Conversation } from './conversation';

export class ConversationRepository {
  async findOrOpen(orderId: string, buyerId: string, shopId: string, ${signature}) {
    const found = await Conversation.findOne({ orderId });
    if (found) {
${guard}
      return found;
    }
    return new Conversation({ orderId, buyerId, shopId, notes: notes ?? {} }).save();
  }
}
`;

const saveIf = (test: string) => `      if (${test}) {
        found.notes = { ...found.notes, ...notes };
        await found.save();
      }`;

const handler = (call: string) => `import Redlock from 'redlock';
import Redis from 'ioredis';
import { ConversationRepository } from '../data/conversation-repository';

const redlock = new Redlock([new Redis()]);
const conversations = new ConversationRepository();

export async function onOrderMessage(orderId: string, buyerId: string, shopId: string, notes: Record<string, unknown>) {
  await redlock.using(['conversation:' + orderId], 5000, async () => {
    await ${call};
  });
}
`;

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

async function lintHandler(guard: string, call: string, signature?: string): Promise<string[]> {
  current = project({
    'data/conversation.ts': model,
    'data/conversation-repository.ts': repository(guard, signature),
    'handlers/order-message.ts': handler(call),
  });
  const results = await current.lint('handlers/order-message.ts');
  return findings(results.get('handlers/order-message.ts'));
}

describe('a callee write behind an optional argument the call leaves out', () => {
  it('called without the argument, the save of the found record does not run', async () => {
    expect(await lintHandler(saveIf('notes'), 'conversations.findOrOpen(orderId, buyerId, shopId)')).toEqual([]);
  });

  it('an explicit undefined leaves it out too', async () => {
    expect(await lintHandler(saveIf('notes'), 'conversations.findOrOpen(orderId, buyerId, shopId, undefined)')).toEqual([]);
  });

  it('tests written as `!== undefined`, `!= null`, `typeof`, `&&`, and an early return', async () => {
    const call = 'conversations.findOrOpen(orderId, buyerId, shopId)';
    expect(await lintHandler(saveIf('notes !== undefined'), call)).toEqual([]);
    expect(await lintHandler(saveIf('notes != null && Object.keys(notes).length > 0'), call)).toEqual([]);
    expect(await lintHandler(saveIf("typeof notes !== 'undefined'"), call)).toEqual([]);
    expect(await lintHandler('      notes && (await found.save());', call)).toEqual([]);
    expect(await lintHandler('      if (!notes) return found;\n      found.notes = notes;\n      await found.save();', call)).toEqual([]);
  });

  it('a call that passes the argument still makes the write, whatever its value', async () => {
    expect(await lintHandler(saveIf('notes'), 'conversations.findOrOpen(orderId, buyerId, shopId, notes)')).toEqual(['10 fencelint/require-fence-condition']);
    expect(await lintHandler(saveIf('notes'), 'conversations.findOrOpen(orderId, buyerId, shopId, {})')).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a test that an omitted argument passes (`!== null`, `!notes`) does not keep the write out', async () => {
    const call = 'conversations.findOrOpen(orderId, buyerId, shopId)';
    expect(await lintHandler(saveIf('notes !== null'), call)).toEqual(['10 fencelint/require-fence-condition']);
    expect(await lintHandler(saveIf('!notes'), call)).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('a parameter with a default, or one the function reassigns, is not left out', async () => {
    const call = 'conversations.findOrOpen(orderId, buyerId, shopId)';
    expect(await lintHandler(saveIf('notes'), call, 'notes: Record<string, unknown> = {}')).toEqual(['10 fencelint/require-fence-condition']);
    expect(await lintHandler(`      notes = notes ?? { reopened: true };\n${saveIf('notes')}`, call)).toEqual(['10 fencelint/require-fence-condition']);
  });

  it('through a service in between: the guard on its own parameter carries to its callers', async () => {
    current = project({
      'data/conversation.ts': model,
      'data/conversation-repository.ts': repository(saveIf('notes')),
      'services/conversations.ts': `import { ConversationRepository } from '../data/conversation-repository';

const repository = new ConversationRepository();

export async function openConversation(orderId: string, buyerId: string, shopId: string, notes?: Record<string, unknown>) {
  return repository.findOrOpen(orderId, buyerId, shopId, notes);
}
`,
      'handlers/order-message.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { openConversation } from '../services/conversations';

const redlock = new Redlock([new Redis()]);

export async function onOrderMessage(orderId: string, buyerId: string, shopId: string, notes: Record<string, unknown>) {
  await redlock.using(['conversation:' + orderId], 5000, async () => {
    await openConversation(orderId, buyerId, shopId);
  });
  await redlock.using(['conversation:' + orderId], 5000, async () => {
    await openConversation(orderId, buyerId, shopId, notes);
  });
}
`,
    });
    const results = await current.lint('handlers/order-message.ts');
    expect(findings(results.get('handlers/order-message.ts'))).toEqual(['12 fencelint/require-fence-condition']);
  });
});
