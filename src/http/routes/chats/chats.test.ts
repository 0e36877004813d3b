import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';

function messages(count: number, chatId = 'c1') {
  return Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content:
      index === 0
        ? 'How do I rotate the staging database credentials every quarter without downtime or a maintenance window?'
        : `answer ${index}`,
    timestamp: `2024-07-13T10:00:${String(index % 60).padStart(2, '0')}Z`,
    chat_id: chatId,
  }));
}

describe('chat history', () => {
  let testApp: TestApp;
  let alice: { token: string; userId: number };
  let bob: { token: string; userId: number };
  beforeAll(async () => {
    testApp = await startTestApp({ env: { CHAT_MAX_MESSAGES: '50', CHAT_MAX_MESSAGE_CHARS: '2000' } });
    alice = await registerUser(testApp.app);
    bob = await registerUser(testApp.app);
  });
  afterAll(() => testApp.close());

  const put = (token: string, chatId: string, payload: unknown) =>
    testApp.app.inject({
      method: 'PUT',
      url: `/v1/chats/${encodeURIComponent(chatId)}`,
      headers: bearer(token),
      payload: payload as object,
    });

  it('creates a chat (201, title from the first message), then replaces its messages (200)', async () => {
    const created = await put(alice.token, 'c1', { chat_id: 'c1', messages: messages(2) });
    expect(created.statusCode).toBe(201);
    const chat = created.json();
    expect(chat).toEqual({
      id: expect.any(Number),
      chat_id: 'c1',
      title: 'How do I rotate the staging database credentials every quarter without downtime…',
      messages: messages(2),
      user_id: alice.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const replaced = await put(alice.token, 'c1', { chat_id: 'c1', messages: messages(4) });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ id: chat.id, title: chat.title, created_at: chat.created_at });
    expect(replaced.json().messages).toHaveLength(4);
    const read = await testApp.app.inject({ url: '/v1/chats/c1', headers: bearer(alice.token) });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(replaced.json());
  });

  it('keeps chats per user: the same chat_id from two users is two chats, invisible to each other', async () => {
    await put(alice.token, 'shared-id', {
      chat_id: 'shared-id',
      messages: [{ role: 'user', content: 'alice secret' }],
    });
    expect(
      (await testApp.app.inject({ url: '/v1/chats/shared-id', headers: bearer(bob.token) })).statusCode,
    ).toBe(404);
    const bobs = await put(bob.token, 'shared-id', {
      chat_id: 'shared-id',
      messages: [{ role: 'user', content: 'bob' }],
    });
    expect(bobs.statusCode).toBe(201);
    const alices = await testApp.app.inject({ url: '/v1/chats/shared-id', headers: bearer(alice.token) });
    expect(alices.json().messages[0].content).toBe('alice secret');
    expect(bobs.json().id).not.toBe(alices.json().id);
    const bobDeletesAlice = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/chats/c1',
      headers: bearer(bob.token),
    });
    expect(bobDeletesAlice.statusCode).toBe(404);
    expect((await testApp.app.inject({ url: '/v1/chats/c1', headers: bearer(alice.token) })).statusCode).toBe(
      200,
    );
  });

  it("lists the caller's chats newest first, paginated, with the total in a header", async () => {
    const user = await registerUser(testApp.app);
    for (const id of ['a', 'b', 'c']) {
      await put(user.token, id, { chat_id: id, messages: [{ role: 'user', content: `chat ${id}` }] });
    }
    await put(user.token, 'a', { chat_id: 'a', messages: [{ role: 'user', content: 'chat a again' }] });
    const page = await testApp.app.inject({ url: '/v1/chats/?limit=2', headers: bearer(user.token) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-total-count']).toBe('3');
    expect(page.json().map((chat: { chat_id: string }) => chat.chat_id)).toEqual(['a', 'c']);
    expect(Object.keys(page.json()[0]).sort()).toEqual(['chat_id', 'id', 'title', 'updated_at']);
    const next = await testApp.app.inject({
      url: '/v1/chats/?limit=2&offset=2',
      headers: bearer(user.token),
    });
    expect(next.json().map((chat: { chat_id: string }) => chat.chat_id)).toEqual(['b']);
    const badLimit = await testApp.app.inject({ url: '/v1/chats/?limit=abc', headers: bearer(user.token) });
    expect(badLimit.statusCode).toBe(422);
    expect(badLimit.json().detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'int_parsing' });
    const tooMany = await testApp.app.inject({ url: '/v1/chats/?limit=1000', headers: bearer(user.token) });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' });
  });

  it('deletes a chat', async () => {
    await put(alice.token, 'to-delete', { chat_id: 'to-delete', messages: [] });
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/chats/to-delete',
      headers: bearer(alice.token),
    });
    expect(deleted.statusCode).toBe(204);
    const read = await testApp.app.inject({ url: '/v1/chats/to-delete', headers: bearer(alice.token) });
    expect(read.statusCode).toBe(404);
    expect(read.json()).toEqual({ detail: 'Chat not found' });
  });

  it('rejects a body chat_id that differs from the path at ["body","chat_id"]', async () => {
    const response = await put(alice.token, 'path-id', { chat_id: 'body-id', messages: [] });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([
      {
        loc: ['body', 'chat_id'],
        msg: 'Value error, chat_id must equal the chat_id in the path',
        type: 'value_error',
      },
    ]);
    expect(
      (await testApp.app.inject({ url: '/v1/chats/path-id', headers: bearer(alice.token) })).statusCode,
    ).toBe(404);
  });

  it('validates messages with exact FastAPI errors', async () => {
    const response = await put(alice.token, 'v', {
      chat_id: 'v',
      messages: [{ role: 'user' }, { content: 5, role: 'user' }, 'not an object'],
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'messages', 0, 'content'], msg: 'Field required', type: 'missing' },
        {
          loc: ['body', 'messages', 1, 'content'],
          msg: 'Input should be a valid string',
          type: 'string_type',
        },
        { loc: ['body', 'messages', 2], msg: 'Input should be a valid dictionary', type: 'dict_type' },
      ]),
    );
    const notList = await put(alice.token, 'v', { chat_id: 'v', messages: 'hi' });
    expect(notList.json().detail).toEqual([
      { loc: ['body', 'messages'], msg: 'Input should be a valid list', type: 'list_type' },
    ]);
    const missing = await put(alice.token, 'v', {});
    expect(missing.json().detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'chat_id'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'messages'], msg: 'Field required', type: 'missing' },
      ]),
    );
  });

  it('answers 413 beyond the documented limits and stores nothing', async () => {
    const tooMany = await put(alice.token, 'big', { chat_id: 'big', messages: messages(51, 'big') });
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json()).toEqual({ detail: 'A chat holds at most 50 messages' });
    const tooLong = await put(alice.token, 'big', {
      chat_id: 'big',
      messages: [{ role: 'user', content: 'x'.repeat(2001) }],
    });
    expect(tooLong.statusCode).toBe(413);
    expect(
      (await testApp.app.inject({ url: '/v1/chats/big', headers: bearer(alice.token) })).statusCode,
    ).toBe(404);
  });

  it('requires a valid bearer token on every chat route', async () => {
    for (const [method, url] of [
      ['PUT', '/v1/chats/x'],
      ['GET', '/v1/chats/'],
      ['GET', '/v1/chats/x'],
      ['DELETE', '/v1/chats/x'],
    ] as const) {
      for (const headers of [{}, bearer('kat_wrong'), { authorization: 'Basic abc' }]) {
        const response = await testApp.app.inject({
          method,
          url,
          headers,
          payload: method === 'PUT' ? {} : undefined,
        });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ detail: 'Not authenticated' });
        expect(response.headers['www-authenticate']).toBe('Bearer');
      }
    }
  });
});

describe('concurrent chat saves', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('creates a chat once when many saves race, and keeps one of them whole', async () => {
    const user = await registerUser(testApp.app);
    const saves = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        testApp.app.inject({
          method: 'PUT',
          url: '/v1/chats/race',
          headers: bearer(user.token),
          payload: { chat_id: 'race', messages: [{ role: 'user', content: `version ${index}` }] },
        }),
      ),
    );
    const statuses = saves.map((save) => save.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(39);
    expect(new Set(saves.map((save) => save.json().id)).size).toBe(1);
    const stored = await testApp.app.inject({ url: '/v1/chats/race', headers: bearer(user.token) });
    const content = stored.json().messages[0].content as string;
    expect(content).toMatch(/^version \d+$/);
    expect(saves.some((save) => save.json().messages[0].content === content)).toBe(true);
    const list = await testApp.app.inject({ url: '/v1/chats/', headers: bearer(user.token) });
    expect(list.json()).toHaveLength(1);
  });

  it("saves many users' chats together without mixing them", async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => registerUser(testApp.app)));
    await Promise.all(
      users.flatMap((user, userIndex) =>
        Array.from({ length: 6 }, (_, chatIndex) =>
          testApp.app.inject({
            method: 'PUT',
            url: `/v1/chats/chat-${chatIndex}`,
            headers: bearer(user.token),
            payload: {
              chat_id: `chat-${chatIndex}`,
              messages: [{ role: 'user', content: `u${userIndex} c${chatIndex}` }],
            },
          }),
        ),
      ),
    );
    for (const [userIndex, user] of users.entries()) {
      const list = await testApp.app.inject({ url: '/v1/chats/', headers: bearer(user.token) });
      expect(list.json()).toHaveLength(6);
      const one = await testApp.app.inject({ url: '/v1/chats/chat-3', headers: bearer(user.token) });
      expect(one.json().messages[0].content).toBe(`u${userIndex} c3`);
    }
  });
});
