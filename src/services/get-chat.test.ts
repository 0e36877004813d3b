import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { getChat } from './get-chat.js';
import { saveChat } from './save-chat.js';

describe('getChat', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('answers the caller’s chat with its messages as saved', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const messages = [
      {
        role: 'user',
        content: 'Where is the spare key?',
        timestamp: '2026-02-01T09:00:00Z',
        chat_id: 'keys',
      },
      { role: 'assistant', content: 'In the top drawer [1].', timestamp: null, chat_id: 'keys' },
    ];
    const saved = await saveChat(deps, caller, 'keys', { chat_id: 'keys', messages });
    const chat = await getChat(deps, caller, 'keys');
    expect(chat).toEqual(saved.chat);
    expect(chat).toMatchObject({
      chat_id: 'keys',
      title: 'Where is the spare key?',
      messages,
      user_id: caller.userId,
    });
  });

  it('answers an id with unusual characters exactly as asked', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const chatId = '\uFEFFchat/with spaces?é';
    await saveChat(deps, caller, chatId, { chat_id: chatId, messages: [{ role: 'user', content: 'Hi' }] });
    expect((await getChat(deps, caller, chatId)).chat_id).toBe(chatId);
  });

  it('is not_found for an unknown id and for another user’s chat, even in the same team', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    await saveChat(deps, owner.caller, 'private', {
      chat_id: 'private',
      messages: [{ role: 'user', content: 'Secret' }],
    });
    const missing = await refusal(getChat(deps, owner.caller, 'no-such-chat'), 'not_found');
    expect(missing.message).toBe('Chat not found');
    await refusal(getChat(deps, stranger.caller, 'private'), 'not_found');
    // A teammate (same team, another user) does not see it either.
    await refusal(getChat(deps, { ...stranger.caller, teamId: owner.caller.teamId }, 'private'), 'not_found');
  });
});
