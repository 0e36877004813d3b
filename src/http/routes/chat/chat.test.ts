import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeOpenAiServer } from '../../../../test/fakes/fake-openai-server.js';
import { HANDBOOK_DOCUMENTS, RIVAL_HANDBOOK } from '../../../../test/helpers/handbook-documents.js';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';
import type { CitedSource } from '../../../answering/citations.js';
import { NOT_FOUND_ANSWER } from '../../../answering/extractive-answerer.js';
import { SYSTEM_PROMPT } from '../../../answering/llm-answerer.js';
import { REWRITE_PROMPT } from '../../../answering/standalone-question.js';
import { appendChatMessages } from '../../../db/repositories/chats.js';

type Registered = Awaited<ReturnType<typeof registerUser>> & { userContext: Record<string, unknown> };

/** One object of the stream, as a client reads it: its SSE event name, or the NDJSON line's key. */
interface StreamEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

const SOURCE_FIELDS = [
  'chunk_id',
  'citation',
  'creation_date',
  'document_id',
  'file_name',
  'file_path',
  'last_modified_date',
  'mimetype',
  'page_labels',
  'snippet',
  'title',
  'url',
];

const HOLIDAY_QUESTION = 'How many days of paid holiday does every employee get each year?';

/** NDJSON as the original's web client read it: split on newlines, parse each line. */
function parseNdjson(body: string): StreamEvent[] {
  return body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const data = JSON.parse(line) as Record<string, unknown>;
      return { event: Object.keys(data)[0] ?? '', data };
    });
}

/** Server-sent events: frames apart by a blank line, `event:` and `data:` fields, comments ignored. */
function parseSse(body: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const frame of body.split('\n\n')) {
    let event = 'message';
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
  }
  return events;
}

function answerOf(events: readonly StreamEvent[]): string {
  return events.flatMap((item) => (typeof item.data.answer === 'string' ? [item.data.answer] : [])).join('');
}

function sourcesOf(events: readonly StreamEvent[]): CitedSource[] {
  const line = events.find((item) => item.data.sources !== undefined);
  return (line?.data.sources ?? []) as CitedSource[];
}

async function signUp(testApp: TestApp): Promise<Registered> {
  const user = await registerUser(testApp.app);
  const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(user.token) });
  return { ...user, userContext: me.json() as Record<string, unknown> };
}

async function upload(testApp: TestApp, user: Registered, documents: readonly object[]): Promise<void> {
  const job = await uploadDocuments(testApp.app, user.token, documents);
  expect(
    job.files.every((file) => file.status === 'indexed'),
    JSON.stringify(job.files),
  ).toBe(true);
}

async function ask(
  testApp: TestApp,
  user: Registered,
  content: string,
  options: { chatId?: string; accept?: string; userContext?: Record<string, unknown> } = {},
) {
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/v1/chat/',
    headers: { ...bearer(user.token), ...(options.accept === undefined ? {} : { accept: options.accept }) },
    payload: {
      role: 'user',
      content,
      user_context: options.userContext ?? user.userContext,
      timestamp: '2024-07-01T10:00:00Z',
      ...(options.chatId === undefined ? {} : { chat_id: options.chatId }),
    },
  });
  const sse = options.accept === 'text/event-stream';
  const events =
    response.statusCode === 200 ? (sse ? parseSse(response.body) : parseNdjson(response.body)) : [];
  return { response, events, answer: answerOf(events), sources: sourcesOf(events) };
}

async function chatHistory(testApp: TestApp, user: Registered, chatId: string) {
  return testApp.app.inject({ url: `/v1/chats/${chatId}`, headers: bearer(user.token) });
}

/**
 * A real HTTP request (not inject), read line by line as it arrives; `disconnect` drops the
 * connection as a closed browser tab would. node:http rather than fetch: after an abort, fetch
 * (undici) opens a spare connection that keeps the server from closing until it times out.
 */
async function openStream(baseUrl: string, user: Registered, content: string) {
  const request = http.request(`${baseUrl}/v1/chat/`, {
    method: 'POST',
    headers: { ...bearer(user.token), 'content-type': 'application/json' },
  });
  request.on('error', () => {});
  request.end(JSON.stringify({ role: 'user', content, user_context: user.userContext }));
  const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
  response.setEncoding('utf8');
  const lines = createInterface({ input: response })[Symbol.asyncIterator]();
  return {
    response,
    /** The next NDJSON line, or undefined at the end of the body. */
    async nextLine(): Promise<Record<string, unknown> | undefined> {
      const next = await lines.next();
      return next.done === true ? undefined : (JSON.parse(next.value) as Record<string, unknown>);
    },
    disconnect: () => request.destroy(),
  };
}

async function listen(testApp: TestApp): Promise<string> {
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = testApp.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

describe('POST /v1/chat/ with the extractive answerer', () => {
  let testApp: TestApp;
  let user: Registered;
  let rival: Registered;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    user = await signUp(testApp);
    rival = await signUp(testApp);
    await upload(testApp, user, HANDBOOK_DOCUMENTS);
    await upload(testApp, rival, [RIVAL_HANDBOOK]);
  });
  afterAll(async () => {
    await testApp.close();
  });

  it("streams NDJSON: answer lines from the caller's team only, one sources line, then done", async () => {
    const { response, events, answer, sources } = await ask(testApp, user, HOLIDAY_QUESTION);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    expect(events.map((item) => item.event)).toEqual([
      ...events.filter((item) => item.event === 'answer').map(() => 'answer'),
      'sources',
      'done',
    ]);
    expect(answer).toContain('Every employee gets 25 days of paid holiday each year [1].');
    expect(answer).not.toContain('40 days');
    expect(sources).toHaveLength(1);
    expect(Object.keys(sources[0] ?? {}).sort()).toEqual(SOURCE_FIELDS);
    expect(sources[0]).toMatchObject({
      citation: 1,
      title: 'Employee handbook',
      file_name: 'Employee handbook',
      file_path: 'https://intranet.example/handbook',
      url: 'https://intranet.example/handbook',
      creation_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(sources[0]?.snippet).toContain('25 days of paid holiday');
    const done = events.at(-1)?.data;
    expect(done).toEqual({
      done: true,
      chat_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      message_index: 1,
    });
  });

  it('sends the same objects as server-sent events when asked', async () => {
    const { response, events, answer, sources } = await ask(testApp, user, HOLIDAY_QUESTION, {
      accept: 'text/event-stream',
    });
    expect(response.headers['content-type']).toBe('text/event-stream');
    const names = events.map((item) => item.event);
    expect(names.slice(-2)).toEqual(['sources', 'done']);
    expect(names.slice(0, -2).every((name) => name === 'answer-delta')).toBe(true);
    expect(names.length).toBeGreaterThan(2);
    expect(answer).toContain('25 days of paid holiday');
    expect(sources.map((source) => source.title)).toEqual(['Employee handbook']);
    expect(events.at(-1)?.data).toMatchObject({ done: true });
  });

  it('says plainly when the documents hold no answer, citing nothing', async () => {
    const { events, answer, sources } = await ask(testApp, user, 'What is the capital of Mongolia?');
    expect(answer).toBe(NOT_FOUND_ANSWER);
    expect(sources).toEqual([]);
    expect(events.at(-1)?.data).toMatchObject({ done: true });
  });

  it('quotes a fenced code block of a Markdown source as a code block, its language and lines intact', async () => {
    const operator = await signUp(testApp);
    await upload(testApp, operator, [
      {
        external_id: 'deploy-guide',
        title: 'Deploy guide',
        text: [
          '# Configuration',
          'Configure the web service in deploy.yaml like this:',
          '```yaml\nservice: web\nport: 8080\nreplicas: 3\n```',
          'Deploys run every Tuesday.',
        ].join('\n\n'),
      },
    ]);
    const { answer } = await ask(testApp, operator, 'How do I configure the web service?');
    expect(answer).toContain(
      'Configure the web service in deploy.yaml like this [1]:\n\n```yaml\nservice: web\nport: 8080\nreplicas: 3\n```',
    );
  });

  it("refuses a user_context that is not the caller's with 403, saving nothing", async () => {
    const forged = [
      { ...user.userContext, team_id: rival.teamId },
      { ...user.userContext, id: rival.userId },
      { ...user.userContext, email: rival.userContext.email },
      {
        ...user.userContext,
        vector_store: { ...(user.userContext.vector_store as object), namespaces: [`team-${rival.teamId}`] },
      },
      { ...user.userContext, vector_store: rival.userContext.vector_store },
      rival.userContext,
    ];
    for (const userContext of forged) {
      const { response } = await ask(testApp, user, HOLIDAY_QUESTION, { userContext, chatId: 'forged-chat' });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ detail: expect.any(String) });
    }
    expect((await chatHistory(testApp, user, 'forged-chat')).statusCode).toBe(404);
  });

  it('accepts its own user_context with the e-mail in another case', async () => {
    const userContext = { ...user.userContext, email: String(user.userContext.email).toUpperCase() };
    const { response } = await ask(testApp, user, HOLIDAY_QUESTION, { userContext });
    expect(response.statusCode).toBe(200);
  });

  it('answers 422 in FastAPI’s shape for a body without content, or with an empty or mistyped one', async () => {
    const post = (payload: object) =>
      testApp.app.inject({ method: 'POST', url: '/v1/chat/', headers: bearer(user.token), payload });
    const missing = await post({ role: 'user', user_context: user.userContext });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({
      detail: [{ loc: ['body', 'content'], msg: 'Field required', type: 'missing' }],
    });
    const mistyped = await post({ content: 42, role: 7 });
    expect(mistyped.statusCode).toBe(422);
    expect(mistyped.json().detail).toEqual([
      expect.objectContaining({ loc: ['body', 'role'], type: 'string_type' }),
      expect.objectContaining({ loc: ['body', 'content'], type: 'string_type' }),
    ]);
    // As an empty search query is.
    for (const [url, payload] of [
      ['/v1/chat/', { content: '' }],
      ['/v1/search', { query: '' }],
    ] as const) {
      const empty = await testApp.app.inject({ method: 'POST', url, headers: bearer(user.token), payload });
      expect(empty.statusCode, url).toBe(422);
      expect(empty.json().detail, url).toEqual([
        {
          loc: ['body', Object.keys(payload)[0]],
          msg: 'String should have at least 1 character',
          type: 'string_too_short',
        },
      ]);
    }
  });

  it('answers a body of only `content` for the signed-in caller: role `user`, no user_context', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      headers: bearer(user.token),
      payload: { content: HOLIDAY_QUESTION },
    });
    expect(response.statusCode).toBe(200);
    const events = parseNdjson(response.body);
    expect(answerOf(events)).toContain('25 days of paid holiday');
    const chatId = String(events.at(-1)?.data.chat_id);
    const chat = (await chatHistory(testApp, user, chatId)).json() as {
      messages: { role: string; content: string }[];
    };
    expect(chat.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', HOLIDAY_QUESTION],
      ['assistant', answerOf(events)],
    ]);
    // A null user_context and role are the same as none; a forged one is still refused.
    const nulls = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      headers: bearer(user.token),
      payload: { content: HOLIDAY_QUESTION, role: null, user_context: null },
    });
    expect(nulls.statusCode).toBe(200);
    const forged = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      headers: bearer(user.token),
      payload: { content: HOLIDAY_QUESTION, user_context: rival.userContext },
    });
    expect(forged.statusCode).toBe(403);
  });

  it('takes the example body /docs shows as it is, for any signed-in user', async () => {
    const openapi = (await testApp.app.inject({ url: '/openapi.json' })).json();
    const example = openapi.paths['/v1/chat/'].post.requestBody.content['application/json'].example;
    expect(example).toEqual({ content: expect.any(String) });
    for (const caller of [user, rival]) {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/chat/',
        headers: bearer(caller.token),
        payload: example,
      });
      expect(response.statusCode).toBe(200);
      expect(parseNdjson(response.body).at(-1)?.data).toMatchObject({ done: true });
    }
  });

  it('refuses a question longer than the limit with 422', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      headers: bearer(user.token),
      payload: { role: 'user', content: 'why '.repeat(5_000), user_context: user.userContext },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc: ['body', 'content'], type: 'string_too_long' });
  });

  it('keeps a chat to its last messages, and loses none to appends arriving together', async () => {
    const db = testApp.runtime.database.db;
    const message = (content: string) => ({ role: 'user', content, timestamp: null, chat_id: 'bounded' });
    await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((content) =>
        appendChatMessages(db, {
          userId: user.userId,
          chatId: 'bounded',
          title: content,
          messages: [message(content), message(`${content}!`)],
          maxMessages: 100,
        }),
      ),
    );
    const all = (await chatHistory(testApp, user, 'bounded')).json() as { messages: { content: string }[] };
    expect(all.messages).toHaveLength(10);
    await appendChatMessages(db, {
      userId: user.userId,
      chatId: 'bounded',
      title: 'ignored',
      messages: [message('f'), message('f!')],
      maxMessages: 3,
    });
    const bounded = (await chatHistory(testApp, user, 'bounded')).json() as {
      title: string;
      messages: { content: string }[];
    };
    expect(bounded.messages.map((item) => item.content)).toEqual([all.messages.at(-1)?.content, 'f', 'f!']);
    expect(bounded.title).toBe(all.messages[0]?.content);
  });

  it('needs a signed-in caller', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chat/',
      payload: { role: 'user', content: HOLIDAY_QUESTION, user_context: user.userContext },
    });
    expect(response.statusCode).toBe(401);
  });

  it('appends each question and answer, with its sources, to the chat history', async () => {
    const first = await ask(testApp, user, HOLIDAY_QUESTION);
    const chatId = String(first.events.at(-1)?.data.chat_id);
    const second = await ask(testApp, user, 'When must expense receipts be submitted?', { chatId });
    // message_index: the answer's position in the chat's messages (to rate it).
    expect(second.events.at(-1)?.data).toEqual({ done: true, chat_id: chatId, message_index: 3 });
    expect(second.answer).toContain('30 days');

    const history = await chatHistory(testApp, user, chatId);
    expect(history.statusCode).toBe(200);
    const chat = history.json() as {
      title: string;
      messages: {
        role: string;
        content: string;
        chat_id: string;
        timestamp: string;
        sources?: CitedSource[];
      }[];
    };
    expect(chat.title).toBe(HOLIDAY_QUESTION);
    expect(chat.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', HOLIDAY_QUESTION],
      ['assistant', first.answer],
      ['user', 'When must expense receipts be submitted?'],
      ['assistant', second.answer],
    ]);
    expect(chat.messages[0]).toMatchObject({ chat_id: chatId, timestamp: '2024-07-01T10:00:00Z' });
    expect(chat.messages[1]?.sources).toEqual(first.sources);
    expect(chat.messages[3]?.sources?.map((source) => source.title)).toEqual(['Expenses policy']);
  });

  it('reads back answers saved before sources kept their document and passage', async () => {
    const older = {
      file_name: 'Old notes',
      file_path: 'upload/old-notes',
      mimetype: 'text/plain',
      creation_date: '2024-01-02',
      last_modified_date: '2024-01-02',
      page_labels: [],
      title: 'Old notes',
      url: null,
      snippet: 'An older answer.',
      citation: 1,
    };
    await appendChatMessages(testApp.runtime.database.db, {
      userId: user.userId,
      chatId: 'before-chunk-ids',
      title: 'Old',
      messages: [
        { role: 'user', content: 'Old?', timestamp: null, chat_id: 'before-chunk-ids' },
        {
          role: 'assistant',
          content: 'Yes [1].',
          timestamp: null,
          chat_id: 'before-chunk-ids',
          sources: [older],
        },
      ],
      maxMessages: 100,
    });
    const history = await chatHistory(testApp, user, 'before-chunk-ids');
    expect(history.statusCode).toBe(200);
    expect(history.json().messages[1].sources).toEqual([older]);
  });
});

describe('POST /v1/chat/ with an LLM answerer (OpenAI-compatible server)', () => {
  let llm: FakeOpenAiServer;
  let testApp: TestApp;
  let user: Registered;
  let rival: Registered;
  let baseUrl: string;

  beforeAll(async () => {
    llm = await FakeOpenAiServer.start({ apiKey: 'sk-chat-test', models: ['small-chat'] });
    testApp = await startTestApp({
      worker: true,
      env: {
        LLM_BASE_URL: llm.baseUrl,
        LLM_API_KEY: 'sk-chat-test',
        LLM_MODEL: 'small-chat',
        LLM_TIMEOUT_MS: '5000',
        CHAT_MEMORY_MESSAGES: '4',
      },
    });
    user = await signUp(testApp);
    rival = await signUp(testApp);
    await upload(testApp, user, HANDBOOK_DOCUMENTS);
    await upload(testApp, rival, [RIVAL_HANDBOOK]);
    baseUrl = await listen(testApp);
  });
  afterAll(async () => {
    await testApp.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.clearRecords();
    llm.chatScript = {};
  });

  it("streams the model's reply as several answer lines and lists only the cited sources", async () => {
    llm.chatScript = { reply: 'Every employee gets 25 days of paid holiday a year [1].', chunkSize: 7 };
    const { events, answer, sources } = await ask(testApp, user, HOLIDAY_QUESTION);
    expect(events.filter((item) => item.event === 'answer').length).toBeGreaterThan(3);
    expect(answer).toBe('Every employee gets 25 days of paid holiday a year [1].');
    expect(sources.map((source) => [source.citation, source.title])).toEqual([[1, 'Employee handbook']]);
    expect(events.at(-1)?.data).toMatchObject({ done: true });

    const prompt = llm.chatRequests[0]?.messages ?? [];
    expect(prompt[0]?.role).toBe('system');
    const last = prompt.at(-1)?.content ?? '';
    expect(last).toContain('[1] Employee handbook\n');
    expect(last).toContain('25 days of paid holiday');
    expect(last.endsWith(`Question: ${HOLIDAY_QUESTION}`)).toBe(true);
    // Another team's better match never reaches the model.
    expect(JSON.stringify(prompt)).not.toContain('40 days');
  });

  it('ends with an error line, not a hang, when the model fails mid-answer, and saves nothing', async () => {
    for (const how of ['error_event', 'destroy'] as const) {
      llm.chatScript = {
        reply: 'Every employee gets 25 days of paid holiday a year [1].',
        chunkSize: 5,
        failAfterChunks: { chunks: 3, how },
      };
      const chatId = `failed-${how}`;
      const { response, events, answer } = await ask(testApp, user, HOLIDAY_QUESTION, { chatId });
      expect(response.statusCode).toBe(200);
      expect(answer).toBe('Every employee ');
      expect(events.at(-1)?.data).toEqual({
        error: { code: 'model_unavailable', message: expect.any(String) },
      });
      expect(events.some((item) => item.data.done !== undefined || item.data.sources !== undefined)).toBe(
        false,
      );
      expect((await chatHistory(testApp, user, chatId)).statusCode).toBe(404);
    }
  });

  it('ends the SSE stream with an error event when the model refuses at once', async () => {
    llm.failNext({ status: 429, retryAfter: 1 });
    const { events } = await ask(testApp, user, HOLIDAY_QUESTION, { accept: 'text/event-stream' });
    expect(events).toEqual([
      { event: 'error', data: { error: { code: 'model_rate_limited', message: expect.any(String) } } },
    ]);
  });

  it('sends the headers at once, before the answer is ready', async () => {
    llm.chatScript = { reply: 'Slow answer [1].', hangAfterChunks: 0 };
    const stream = await openStream(baseUrl, user, HOLIDAY_QUESTION);
    try {
      expect(stream.response.statusCode).toBe(200);
      expect(stream.response.headers['content-type']).toMatch(/^application\/x-ndjson/);
      // The model has been asked and has not answered: the headers did not wait for it.
      await vi.waitFor(() => expect(llm.chatRequests).toHaveLength(1));
      expect(llm.chatRequests[0]?.completed).toBe(false);
    } finally {
      stream.disconnect();
    }
    await vi.waitFor(() => expect(llm.chatRequests[0]?.closedByClient).toBe(true));
  });

  it('stops the LLM request when the client disconnects', async () => {
    llm.chatScript = {
      reply: 'Every employee gets 25 days of paid holiday a year [1].',
      chunkSize: 5,
      hangAfterChunks: 2,
    };
    const stream = await openStream(baseUrl, user, HOLIDAY_QUESTION);
    try {
      expect(await stream.nextLine()).toEqual({ answer: 'Every' });
      expect(await stream.nextLine()).toEqual({ answer: ' empl' });
      expect(llm.chatRequests).toHaveLength(1);
      expect(llm.chatRequests[0]?.closedByClient).toBe(false);
    } finally {
      stream.disconnect();
    }
    await vi.waitFor(() => expect(llm.chatRequests[0]?.closedByClient).toBe(true), { timeout: 5_000 });
    expect(llm.chatRequests[0]?.completed).toBe(false);
  });

  /** The requests that asked for an answer, not for a follow-up's rewrite. */
  const answerRequests = () =>
    llm.chatRequests.filter((request) => request.messages[0]?.content === SYSTEM_PROMPT);

  it("remembers the chat's earlier turns, never another chat's or another user's", async () => {
    llm.chatScript = {
      reply: (messages) =>
        messages[0]?.content === REWRITE_PROMPT
          ? 'Can unused paid holiday days be carried over?'
          : `Answer ${messages.length} [1].`,
    };
    const first = await ask(testApp, user, HOLIDAY_QUESTION);
    const chatId = String(first.events.at(-1)?.data.chat_id);
    await ask(testApp, user, 'Can unused holiday be carried over?', { chatId });
    const sameChat = answerRequests()[1]?.messages ?? [];
    expect(sameChat.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sameChat[1]?.content).toBe(HOLIDAY_QUESTION);
    // The earlier answer without its citation markers: its numbers named other sources.
    expect(sameChat[2]?.content).toBe(first.answer.replace(' [1]', ''));

    await ask(testApp, user, 'Can unused holiday be carried over?', { chatId: 'another-chat' });
    expect(answerRequests()[2]?.messages.map((message) => message.role)).toEqual(['system', 'user']);

    // Another user naming the same chat id has a chat of their own.
    await ask(testApp, rival, 'Can unused holiday be carried over?', { chatId });
    expect(answerRequests()[3]?.messages.map((message) => message.role)).toEqual(['system', 'user']);
    // Only the follow-up in a chat with earlier turns was rewritten.
    expect(llm.chatRequests).toHaveLength(5);
    const rivalChat = (await chatHistory(testApp, rival, chatId)).json() as { messages: unknown[] };
    expect(rivalChat.messages).toHaveLength(2);
    const ownChat = (await chatHistory(testApp, user, chatId)).json() as { messages: unknown[] };
    expect(ownChat.messages).toHaveLength(4);
  });

  it('rewrites a follow-up into a standalone question before search: the document only the rewrite finds reaches the model', async () => {
    // The right document shares no word with the follow-up or the question before it: only the
    // earlier answer names its subject, and only the model's rewrite brings that into the search.
    const asker = await signUp(testApp);
    await upload(testApp, asker, [
      {
        external_id: 'espresso',
        title: 'Espresso machine',
        url: 'https://intranet.example/espresso',
        text: 'Descale the espresso machine every two months with citric acid, then run two tanks of water through it.',
      },
      {
        external_id: 'kitchen',
        title: 'Kitchen rota',
        url: 'https://intranet.example/kitchen',
        text: 'The facilities team cleans the kitchen on Fridays. Fridges are emptied as often as each floor decides.',
      },
    ]);
    const firstQuestion = 'What does the facilities team do in the kitchen?';
    const followUp = 'How often should I do that?';
    const standalone = 'How often should I descale the espresso machine?';
    llm.chatScript = {
      reply: (messages) => {
        if (messages[0]?.content === REWRITE_PROMPT) return `"${standalone}"`;
        return messages.length === 2
          ? 'They clean it on Fridays [1]. You descale the espresso machine yourself.'
          : 'Every two months, with citric acid [1].';
      },
    };
    const first = await ask(testApp, asker, firstQuestion);
    expect(llm.chatRequests.map((request) => request.messages[0]?.content)).toEqual([SYSTEM_PROMPT]);
    const chatId = String(first.events.at(-1)?.data.chat_id);

    const second = await ask(testApp, asker, followUp, { chatId });
    expect(llm.chatRequests.map((request) => request.messages[0]?.content)).toEqual([
      SYSTEM_PROMPT,
      REWRITE_PROMPT,
      SYSTEM_PROMPT,
    ]);
    const [, rewrite, answer] = llm.chatRequests;
    expect(rewrite).toMatchObject({ model: 'small-chat', temperature: 0, completed: true });
    expect(rewrite?.maxTokens).toBeLessThan(800);
    expect(rewrite?.messages[1]?.content).toBe(
      [
        'Conversation:',
        `User: ${firstQuestion}`,
        'Assistant: They clean it on Fridays. You descale the espresso machine yourself.',
        '',
        `Last message: ${followUp}`,
      ].join('\n'),
    );
    const prompt = answer?.messages.at(-1)?.content ?? '';
    expect(prompt).toContain('[1] Espresso machine\nDescale the espresso machine every two months');
    expect(prompt.endsWith(`Question: ${followUp}\n(As a standalone question: ${standalone})`)).toBe(true);
    expect(second.answer).toBe('Every two months, with citric acid [1].');
    expect(second.sources.map((source) => [source.citation, source.title])).toEqual([
      [1, 'Espresso machine'],
    ]);
    // The chat keeps the asker's own words.
    const saved = (await chatHistory(testApp, asker, chatId)).json() as { messages: { content: string }[] };
    expect(saved.messages.map((message) => message.content)).toEqual([
      firstQuestion,
      first.answer,
      followUp,
      second.answer,
    ]);
  });

  it('makes no rewrite request for the first turn of a chat', async () => {
    llm.chatScript = { reply: 'Every employee gets 25 days of paid holiday a year [1].' };
    const { sources } = await ask(testApp, user, 'And how many can be carried over?', {
      chatId: 'first-turn',
    });
    expect(llm.chatRequests).toHaveLength(1);
    expect(llm.chatRequests[0]?.messages[0]?.content).toBe(SYSTEM_PROMPT);
    expect(sources.map((source) => source.title)).toEqual(['Employee handbook']);
  });

  it('answers a follow-up all the same when its rewrite fails', async () => {
    const first = await ask(testApp, user, HOLIDAY_QUESTION);
    const chatId = String(first.events.at(-1)?.data.chat_id);
    llm.clearRecords();
    llm.failNext({ status: 503 });
    llm.chatScript = { reply: 'Up to 5 days [1].' };
    const { answer, sources } = await ask(testApp, user, 'Can those be carried over?', { chatId });
    // The rewrite got the 503 (a refused request is not among chatRequests); the answer went on.
    expect(llm.requests.map((request) => [request.route, request.status])).toEqual([
      ['POST /v1/chat/completions', 503],
      ['POST /v1/chat/completions', 200],
    ]);
    expect(llm.chatRequests.map((request) => request.messages[0]?.content)).toEqual([SYSTEM_PROMPT]);
    expect(answer).toBe('Up to 5 days [1].');
    expect(sources.map((source) => source.title)).toEqual(['Employee handbook']);
    expect(
      llm.chatRequests[0]?.messages.at(-1)?.content.endsWith('Question: Can those be carried over?'),
    ).toBe(true);
  });

  it('keeps the memory to the configured number of messages', async () => {
    llm.chatScript = { reply: 'Noted [1].' };
    const first = await ask(testApp, user, 'First question about holiday?');
    const chatId = String(first.events.at(-1)?.data.chat_id);
    for (const question of ['Second question about holiday?', 'Third question about holiday?', 'Fourth?']) {
      await ask(testApp, user, question, { chatId });
    }
    const last = llm.chatRequests.at(-1)?.messages ?? [];
    // CHAT_MEMORY_MESSAGES=4: the last two turns, the first is forgotten.
    expect(last.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(last[1]?.content).toBe('Second question about holiday?');
  });
});
