import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import { getChat } from './get-chat.js';
import { rateAnswer } from './rate-answer.js';
import { saveChat } from './save-chat.js';

const TURN = [
  { role: 'user', content: 'Where is the spare key?' },
  { role: 'assistant', content: 'In the top drawer of reception [1].' },
];

describe('rateAnswer', () => {
  let testApp: TestApp;
  let caller: Caller;
  beforeAll(async () => {
    testApp = await startTestApp();
    const user = await registerUser(testApp.app);
    caller = {
      userId: user.userId,
      teamId: user.teamId,
      email: 'owner@example.com',
      emailVerified: false,
      role: 'owner',
      tokenHash: 'unused',
    };
  });
  afterAll(() => testApp.close());

  it('stores the rating with the answer, where getChat returns it, and clears it with null', async () => {
    const { deps } = testApp.runtime;
    await saveChat(deps, caller, 'key', { chat_id: 'key', messages: TURN });
    expect(await rateAnswer(deps, caller, 'key', 1, 'down')).toEqual({
      chat_id: 'key',
      message_index: 1,
      rating: 'down',
    });
    expect((await getChat(deps, caller, 'key')).messages[1]).toMatchObject({ feedback: 'down' });
    expect(await rateAnswer(deps, caller, 'key', 1, null)).toEqual({
      chat_id: 'key',
      message_index: 1,
      rating: null,
    });
    expect((await getChat(deps, caller, 'key')).messages[1]).not.toHaveProperty('feedback');
  });

  it('refuses a question, a missing message and another user’s chat with the errors the route sends', async () => {
    const { deps } = testApp.runtime;
    await saveChat(deps, caller, 'errors', { chat_id: 'errors', messages: TURN });
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );
    const question = await failure(rateAnswer(deps, caller, 'errors', 0, 'up'));
    expect(question).toBeInstanceOf(ServiceError);
    expect(question).toMatchObject({
      code: 'validation',
      options: { issues: [{ type: 'value_error', loc: ['path', 'message_index'], input: 0 }] },
    });
    const missing = await failure(rateAnswer(deps, caller, 'errors', 9, 'up'));
    expect(missing).toMatchObject({
      code: 'validation',
      options: { issues: [{ loc: ['path', 'message_index'], msg: expect.stringContaining('no message 9') }] },
    });
    const stranger = await registerUser(testApp.app);
    const notTheirs = await failure(
      rateAnswer(deps, { ...caller, userId: stranger.userId, teamId: stranger.teamId }, 'errors', 1, 'up'),
    );
    expect(notTheirs).toMatchObject({ code: 'not_found', message: 'Chat not found' });
  });

  it('keeps the rating when a save of the same chat goes through the chatWrites batcher with it', async () => {
    const { deps } = testApp.runtime;
    const longer = [
      ...TURN,
      { role: 'user', content: 'And the van?' },
      { role: 'assistant', content: 'Ask Sam.' },
    ];
    for (let round = 0; round < 10; round += 1) {
      const chatId = `batched-${round}`;
      await saveChat(deps, caller, chatId, { chat_id: chatId, messages: TURN });
      const [, saved] = await Promise.all([
        rateAnswer(deps, caller, chatId, 1, 'up'),
        saveChat(deps, caller, chatId, { chat_id: chatId, messages: longer }),
      ]);
      const stored = await getChat(deps, caller, chatId);
      expect(stored.messages[1]).toMatchObject({ feedback: 'up' });
      expect(stored.messages).toHaveLength(4);
      // The save's own answer shows the rating when the save came second; never a different one.
      expect([undefined, 'up']).toContain(saved.chat.messages[1]?.feedback);
    }
  });
});
