import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { signedInUser } from '../../test/helpers/use-case-harness.js';
import { listChats } from './list-chats.js';
import { saveChat } from './save-chat.js';

describe('listChats', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const save = (caller: Parameters<typeof saveChat>[1], chatId: string, content: string) =>
    saveChat(testApp.runtime.deps, caller, chatId, {
      chat_id: chatId,
      messages: [{ role: 'user', content }],
    });

  it('lists the caller’s chats, most recently updated first, a page at a time with the total', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    for (const name of ['a', 'b', 'c', 'd']) await save(caller, name, `Question ${name}`);
    // Saving `b` again makes it the most recent.
    await save(caller, 'b', 'Question b, asked again');
    const first = await listChats(deps, caller, { limit: 3, offset: 0 });
    expect(first.total).toBe(4);
    expect(first.chats.map((chat) => [chat.chat_id, chat.title])).toEqual([
      ['b', 'Question b'],
      ['d', 'Question d'],
      ['c', 'Question c'],
    ]);
    const rest = await listChats(deps, caller, { limit: 3, offset: 3 });
    expect(rest).toMatchObject({ total: 4, chats: [{ chat_id: 'a' }] });
    expect(Date.parse(first.chats[0]?.updated_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(first.chats[1]?.updated_at ?? ''),
    );
  });

  it('shows no other user’s chats', async () => {
    const { deps } = testApp.runtime;
    const ann = await signedInUser(testApp);
    const bo = await signedInUser(testApp);
    await save(ann.caller, 'ann-only', 'Ann asks');
    expect(await listChats(deps, bo.caller, { limit: 10, offset: 0 })).toEqual({ total: 0, chats: [] });
    expect(
      (await listChats(deps, ann.caller, { limit: 10, offset: 0 })).chats.map((chat) => chat.chat_id),
    ).toEqual(['ann-only']);
  });
});
