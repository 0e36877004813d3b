import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';

/** Where app.inject's requests go by default (Host: localhost:80): the service's own origin. */
const OWN_ORIGIN = 'http://localhost';
const PASSWORD = 'a long passphrase';

const CONVERSATION = [
  { role: 'user', content: 'How many days of holiday do we get?', timestamp: null, chat_id: 'c' },
  { role: 'assistant', content: 'Twenty-five days a year [1].', timestamp: null, chat_id: 'c' },
  { role: 'user', content: 'Do unused days carry over?', timestamp: null, chat_id: 'c' },
  { role: 'assistant', content: 'Until the end of March [1].', timestamp: null, chat_id: 'c' },
];

interface StoredMessage {
  role: string;
  content: string;
  feedback?: string;
}

describe('PUT /v1/chats/{chat_id}/messages/{message_index}/feedback', () => {
  let testApp: TestApp;
  let alice: Awaited<ReturnType<typeof registerUser>>;
  let bob: Awaited<ReturnType<typeof registerUser>>;
  beforeAll(async () => {
    testApp = await startTestApp();
    alice = await registerUser(testApp.app);
    bob = await registerUser(testApp.app);
  });
  afterAll(() => testApp.close());

  const save = (token: string, chatId: string, messages: unknown[]) =>
    testApp.app.inject({
      method: 'PUT',
      url: `/v1/chats/${encodeURIComponent(chatId)}`,
      headers: bearer(token),
      payload: { chat_id: chatId, messages },
    });

  const rate = (headers: Record<string, string>, chatId: string, index: number | string, payload: unknown) =>
    testApp.app.inject({
      method: 'PUT',
      url: `/v1/chats/${encodeURIComponent(chatId)}/messages/${index}/feedback`,
      headers,
      payload: payload as object,
    });

  const messagesOf = async (token: string, chatId: string): Promise<StoredMessage[]> => {
    const response = await testApp.app.inject({
      url: `/v1/chats/${encodeURIComponent(chatId)}`,
      headers: bearer(token),
    });
    expect(response.statusCode).toBe(200);
    return response.json().messages;
  };

  it('rates an answer up, then down, then clears it; the chat history returns the rating', async () => {
    await save(alice.token, 'rated', CONVERSATION);
    const up = await rate(bearer(alice.token), 'rated', 1, { rating: 'up' });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toEqual({ chat_id: 'rated', message_index: 1, rating: 'up' });
    let messages = await messagesOf(alice.token, 'rated');
    expect(messages[1]).toEqual({ ...CONVERSATION[1], feedback: 'up' });
    // Only the rated answer carries it: absent, not null, elsewhere.
    expect(messages.filter((message) => 'feedback' in message)).toHaveLength(1);

    const down = await rate(bearer(alice.token), 'rated', 3, { rating: 'down' });
    expect(down.json()).toEqual({ chat_id: 'rated', message_index: 3, rating: 'down' });
    expect((await rate(bearer(alice.token), 'rated', 1, { rating: 'down' })).statusCode).toBe(200);
    messages = await messagesOf(alice.token, 'rated');
    expect(messages.map((message) => message.feedback)).toEqual([undefined, 'down', undefined, 'down']);

    const cleared = await rate(bearer(alice.token), 'rated', 1, { rating: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toEqual({ chat_id: 'rated', message_index: 1, rating: null });
    messages = await messagesOf(alice.token, 'rated');
    expect(messages[1]).toEqual(CONVERSATION[1]);
    expect(messages[3]?.feedback).toBe('down');
    // Clearing what is not rated is fine too (idempotent).
    expect((await rate(bearer(alice.token), 'rated', 1, { rating: null })).statusCode).toBe(200);
  });

  it('does not move the chat up the list: a rating is not conversation', async () => {
    const user = await registerUser(testApp.app);
    await save(user.token, 'older', CONVERSATION);
    await save(user.token, 'newer', CONVERSATION);
    const before = await testApp.app.inject({ url: '/v1/chats/', headers: bearer(user.token) });
    expect((await rate(bearer(user.token), 'older', 1, { rating: 'up' })).statusCode).toBe(200);
    const after = await testApp.app.inject({ url: '/v1/chats/', headers: bearer(user.token) });
    expect(after.json()).toEqual(before.json());
  });

  it('rates a fresh answer of the web chat at the message_index its done line gives', async () => {
    const asked = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      headers: bearer(alice.token),
      payload: { content: 'What is the espresso machine descaling interval?' },
    });
    const lines = asked.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const done = lines.at(-1) as { done: boolean; chat_id: string; message_index: number };
    expect(done).toMatchObject({ done: true, message_index: 1 });
    const rated = await rate(bearer(alice.token), done.chat_id, done.message_index, { rating: 'up' });
    expect(rated.statusCode).toBe(200);
    const messages = await messagesOf(alice.token, done.chat_id);
    expect(messages[1]).toMatchObject({ role: 'assistant', feedback: 'up' });
  });

  it('answers 404 for a chat that is not the caller’s, and leaves it as it was', async () => {
    await save(alice.token, 'private', CONVERSATION);
    for (const chatId of ['private', 'no-such-chat']) {
      const response = await rate(bearer(bob.token), chatId, 1, { rating: 'down' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: 'Chat not found' });
    }
    expect((await messagesOf(alice.token, 'private'))[1]).toEqual(CONVERSATION[1]);
  });

  it('refuses to rate a question or a message past the end: 422 at ["path","message_index"]', async () => {
    await save(alice.token, 'bounds', CONVERSATION);
    const question = await rate(bearer(alice.token), 'bounds', 2, { rating: 'up' });
    expect(question.statusCode).toBe(422);
    expect(question.json()).toEqual({
      detail: [
        {
          loc: ['path', 'message_index'],
          msg: 'Value error, message 2 is not an answer (its role is "user"): only the assistant\'s answers can be rated',
          type: 'value_error',
        },
      ],
    });
    const past = await rate(bearer(alice.token), 'bounds', 4, { rating: 'up' });
    expect(past.statusCode).toBe(422);
    expect(past.json().detail).toEqual([
      {
        loc: ['path', 'message_index'],
        msg: 'Value error, the chat has no message 4 (it holds 4, counted from 0)',
        type: 'value_error',
      },
    ]);
    const negative = await rate(bearer(alice.token), 'bounds', -1, { rating: 'up' });
    expect(negative.statusCode).toBe(422);
    expect(negative.json().detail[0]).toMatchObject({
      loc: ['path', 'message_index'],
      type: 'greater_than_equal',
    });
    const notNumber = await rate(bearer(alice.token), 'bounds', 'last', { rating: 'up' });
    expect(notNumber.statusCode).toBe(422);
    expect(notNumber.json().detail[0]).toMatchObject({ loc: ['path', 'message_index'], type: 'int_parsing' });
    const huge = await rate(bearer(alice.token), 'bounds', '99999999999', { rating: 'up' });
    expect(huge.statusCode).toBe(422);
    expect(huge.json().detail[0]).toMatchObject({ loc: ['path', 'message_index'], type: 'less_than_equal' });
    expect(
      (await messagesOf(alice.token, 'bounds')).filter((message) => message.feedback !== undefined),
    ).toEqual([]);
  });

  it('validates the body: rating is required, and "up", "down" or null', async () => {
    await save(alice.token, 'body', CONVERSATION);
    const missing = await rate(bearer(alice.token), 'body', 1, {});
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toEqual([
      { loc: ['body', 'rating'], msg: 'Field required', type: 'missing' },
    ]);
    const wrong = await rate(bearer(alice.token), 'body', 1, { rating: 'sideways' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail).toEqual([
      {
        loc: ['body', 'rating'],
        msg: "Input should be 'up', 'down' or 'null'",
        type: 'enum',
      },
    ]);
    const number = await rate(bearer(alice.token), 'body', 1, { rating: 1 });
    expect(number.statusCode).toBe(422);
    expect(number.json().detail[0]).toMatchObject({ loc: ['body', 'rating'] });
  });

  it('keeps a rating through a save of the same chat one turn longer, and drops it with a changed answer', async () => {
    await save(alice.token, 'resaved', CONVERSATION);
    await rate(bearer(alice.token), 'resaved', 1, { rating: 'up' });
    const longer = [
      ...CONVERSATION,
      { role: 'user', content: 'And sick days?', timestamp: null, chat_id: 'c' },
      { role: 'assistant', content: 'Ask HR.', timestamp: null, chat_id: 'c' },
    ];
    const saved = await save(alice.token, 'resaved', longer);
    expect(saved.statusCode).toBe(200);
    // The save's answer is the chat as stored, rating included, as the history returns it.
    expect(saved.json().messages[1]).toEqual({ ...CONVERSATION[1], feedback: 'up' });
    const history = await testApp.app.inject({ url: '/v1/chats/resaved', headers: bearer(alice.token) });
    expect(history.json()).toEqual(saved.json());

    const rewritten = longer.map((message, index) =>
      index === 1 ? { ...message, content: 'Thirty days a year.' } : message,
    );
    await save(alice.token, 'resaved', rewritten);
    expect((await messagesOf(alice.token, 'resaved')).map((message) => message.feedback)).toEqual(
      Array(6).fill(undefined),
    );
  });

  it('takes the session cookie with the service’s Origin, and refuses it from elsewhere', async () => {
    const email = `feedback-${Date.now()}@example.com`;
    const user = await registerUser(testApp.app, { email, password: PASSWORD });
    await save(user.token, 'cookie', CONVERSATION);
    const session = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/session',
      payload: { email, password: PASSWORD },
    });
    const token = /^ka_session=([^;]*);/.exec(String(session.headers['set-cookie']))?.[1];
    const cookie = `ka_session=${token}`;
    const forged = await rate({ cookie, origin: 'https://evil.example' }, 'cookie', 1, { rating: 'down' });
    expect(forged.statusCode).toBe(403);
    const own = await rate({ cookie, origin: OWN_ORIGIN }, 'cookie', 1, { rating: 'down' });
    expect(own.statusCode).toBe(200);
    expect((await messagesOf(user.token, 'cookie'))[1]?.feedback).toBe('down');
  });

  it('requires a signed-in caller', async () => {
    for (const headers of [{}, bearer('kat_wrong')]) {
      const response = await rate(headers, 'rated', 1, { rating: 'up' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ detail: 'Not authenticated' });
    }
  });

  it('describes the endpoint and the stored rating in the OpenAPI document', async () => {
    const openapi = (await testApp.app.inject({ url: '/openapi.json' })).json();
    const operation = openapi.paths['/v1/chats/{chat_id}/messages/{message_index}/feedback'].put;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '404', '422']));
    const chat = openapi.paths['/v1/chats/{chat_id}'].get.responses['200'].content['application/json'].schema;
    expect(chat.properties.messages.items.properties.feedback).toMatchObject({
      type: 'string',
      enum: ['up', 'down'],
    });
    expect(operation.requestBody.content['application/json'].schema.required).toEqual(['rating']);
  });
});
