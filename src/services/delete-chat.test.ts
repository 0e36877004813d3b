import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { deleteChat } from './delete-chat.js';
import { getChat } from './get-chat.js';
import { listChats } from './list-chats.js';
import { saveChat } from './save-chat.js';

describe('deleteChat', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('deletes the caller’s chat and only that one; a second delete is not_found', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    for (const chatId of ['keep', 'drop']) {
      await saveChat(deps, caller, chatId, {
        chat_id: chatId,
        messages: [{ role: 'user', content: chatId }],
      });
    }
    await deleteChat(deps, caller, 'drop');
    await refusal(getChat(deps, caller, 'drop'), 'not_found');
    expect(
      (await listChats(deps, caller, { limit: 10, offset: 0 })).chats.map((chat) => chat.chat_id),
    ).toEqual(['keep']);
    await refusal(deleteChat(deps, caller, 'drop'), 'not_found');
    // The id is free again: saving it makes a new chat.
    const again = await saveChat(deps, caller, 'drop', {
      chat_id: 'drop',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(again.created).toBe(true);
  });

  it('cannot delete another user’s chat', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    await saveChat(deps, owner.caller, 'mine', {
      chat_id: 'mine',
      messages: [{ role: 'user', content: 'Mine' }],
    });
    await refusal(deleteChat(deps, stranger.caller, 'mine'), 'not_found');
    expect((await getChat(deps, owner.caller, 'mine')).messages).toMatchObject([{ content: 'Mine' }]);
  });
});
