import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { indexTexts, refusal, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { NOT_FOUND_ANSWER } from '../answering/extractive-answerer.js';
import { startWebChat, type WebChatEvent, type WebChatInput } from './answer-web-chat.js';
import { getChat } from './get-chat.js';
import { getUserContext } from './get-user-context.js';

describe('startWebChat', () => {
  let testApp: TestApp;
  let owner: SignedInUser;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    owner = await signedInUser(testApp);
    await indexTexts(testApp, owner.caller, [
      {
        external_id: 'travel',
        title: 'Travel policy',
        url: 'https://intranet/travel',
        text: 'Hotel stays are reimbursed up to 150 euros a night. Trains are preferred for trips under four hours.',
      },
    ]);
  });
  afterAll(() => testApp.close());

  async function ask(user: SignedInUser, input: WebChatInput) {
    const chat = await startWebChat(testApp.runtime.deps, user.caller, input);
    const events: WebChatEvent[] = [];
    for await (const event of chat.events(new AbortController().signal)) events.push(event);
    const answer = events.flatMap((event) => (event.type === 'answer' ? [event.text] : [])).join('');
    const sources = events.flatMap((event) => (event.type === 'sources' ? event.sources : []));
    return { chatId: chat.chatId, events, answer, sources, done: events.at(-1) };
  }

  it('answers from the team’s documents, cites them, and saves the turn in a new chat', async () => {
    const turn = await ask(owner, { content: 'How much is a hotel night reimbursed?' });
    expect(turn.answer).toContain('150 euros');
    expect(turn.sources.map((source) => source.file_path)).toEqual(['https://intranet/travel']);
    expect(turn.done).toEqual({ type: 'done', chatId: turn.chatId, messageIndex: 1 });
    const chat = await getChat(testApp.runtime.deps, owner.caller, turn.chatId);
    expect(chat.title).toBe('How much is a hotel night reimbursed?');
    expect(chat.messages).toMatchObject([
      { role: 'user', content: 'How much is a hotel night reimbursed?', chat_id: turn.chatId },
      { role: 'assistant', content: turn.answer, sources: [{ file_path: 'https://intranet/travel' }] },
    ]);
  });

  it('continues a chat: the next turn is appended after the earlier ones', async () => {
    const first = await ask(owner, { content: 'Are trains preferred?', chat_id: 'travel-chat' });
    const second = await ask(owner, { content: 'And hotels?', chat_id: 'travel-chat' });
    expect(first.done).toMatchObject({ chatId: 'travel-chat', messageIndex: 1 });
    expect(second.done).toMatchObject({ chatId: 'travel-chat', messageIndex: 3 });
    const chat = await getChat(testApp.runtime.deps, owner.caller, 'travel-chat');
    expect(chat.messages.map((message) => message.content)).toEqual([
      'Are trains preferred?',
      first.answer,
      'And hotels?',
      second.answer,
    ]);
  });

  it('answers another team from its own documents only', async () => {
    const stranger = await signedInUser(testApp);
    const turn = await ask(stranger, { content: 'How much is a hotel night reimbursed?' });
    expect(turn.answer).toBe(NOT_FOUND_ANSWER);
    expect(turn.sources).toEqual([]);
  });

  it('refuses a user_context that is not the caller’s before anything is answered or saved', async () => {
    const { deps } = testApp.runtime;
    const stranger = await signedInUser(testApp);
    const ownerContext = await getUserContext(deps, owner.caller);
    await refusal(
      startWebChat(deps, stranger.caller, {
        content: 'Hotels?',
        chat_id: 'stolen',
        user_context: ownerContext,
      }),
      'forbidden',
    );
    await refusal(getChat(deps, stranger.caller, 'stolen'), 'not_found');
    const own = await ask(owner, { content: 'Hotels?', chat_id: 'own-context', user_context: ownerContext });
    expect(own.done).toMatchObject({ messageIndex: 1 });
  });
});
