import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { getChat } from './get-chat.js';
import { saveChat } from './save-chat.js';

describe('saveChat', () => {
  let testApp: TestApp;
  let user: SignedInUser;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { CHAT_MAX_MESSAGES: '4', CHAT_MAX_MESSAGE_CHARS: '50' } });
    user = await signedInUser(testApp);
  });
  afterAll(() => testApp.close());

  it('creates the chat titled by its first message, then replaces its messages, keeping the title', async () => {
    const { deps } = testApp.runtime;
    const first = await saveChat(deps, user.caller, 'trip', {
      chat_id: 'trip',
      messages: [{ role: 'user', content: 'Which   hotels\nmay I book?', extra: 'ignored' } as never],
    });
    expect(first.created).toBe(true);
    expect(first.chat).toMatchObject({
      chat_id: 'trip',
      title: 'Which hotels may I book?',
      user_id: user.caller.userId,
    });
    const second = await saveChat(deps, user.caller, 'trip', {
      chat_id: 'trip',
      messages: [
        { role: 'user', content: 'Trains or flights?', timestamp: '2026-01-05T10:00:00Z' },
        { role: 'assistant', content: 'Trains under four hours.' },
      ],
    });
    expect(second.created).toBe(false);
    expect(second.chat.id).toBe(first.chat.id);
    const stored = await getChat(deps, user.caller, 'trip');
    expect(stored.title).toBe('Which hotels may I book?');
    expect(stored.messages).toEqual([
      { role: 'user', content: 'Trains or flights?', timestamp: '2026-01-05T10:00:00Z', chat_id: null },
      { role: 'assistant', content: 'Trains under four hours.', timestamp: null, chat_id: null },
    ]);
  });

  it('keeps users’ chats of the same id apart', async () => {
    const { deps } = testApp.runtime;
    const other = await signedInUser(testApp);
    await saveChat(deps, user.caller, 'shared-id', {
      chat_id: 'shared-id',
      messages: [{ role: 'user', content: 'Mine' }],
    });
    const theirs = await saveChat(deps, other.caller, 'shared-id', {
      chat_id: 'shared-id',
      messages: [{ role: 'user', content: 'Theirs' }],
    });
    expect(theirs.created).toBe(true);
    expect((await getChat(deps, user.caller, 'shared-id')).messages).toMatchObject([{ content: 'Mine' }]);
    expect((await getChat(deps, other.caller, 'shared-id')).messages).toMatchObject([{ content: 'Theirs' }]);
  });

  it('refuses a body for another chat id, too many messages and too long a message, storing nothing', async () => {
    const { deps } = testApp.runtime;
    const mismatch = await refusal(
      saveChat(deps, user.caller, 'path-id', { chat_id: 'body-id', messages: [] }),
      'validation',
    );
    expect(mismatch.options.issues?.[0]?.loc).toEqual(['body', 'chat_id']);
    const five = Array.from({ length: 5 }, (_, index) => ({ role: 'user', content: `m${index}` }));
    await refusal(
      saveChat(deps, user.caller, 'big', { chat_id: 'big', messages: five }),
      'payload_too_large',
    );
    const long = [{ role: 'user', content: 'x'.repeat(51) }];
    await refusal(
      saveChat(deps, user.caller, 'big', { chat_id: 'big', messages: long }),
      'payload_too_large',
    );
    await refusal(getChat(deps, user.caller, 'big'), 'not_found');
    await refusal(getChat(deps, user.caller, 'path-id'), 'not_found');
  });
});
