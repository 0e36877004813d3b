import type { AddressInfo } from 'node:net';
import OpenAI, {
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  RateLimitError,
} from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeOpenAiServer } from '../../../../test/fakes/fake-openai-server.js';
import { HANDBOOK_DOCUMENTS, RIVAL_HANDBOOK } from '../../../../test/helpers/handbook-documents.js';
import {
  bearer,
  joinedMember,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';
import { SYSTEM_PROMPT } from '../../../answering/llm-answerer.js';
import { REWRITE_PROMPT } from '../../../answering/standalone-question.js';

const PUBLIC_URL = 'https://knowledge.example';

// Matches the holiday question better than the team's handbook does, as RIVAL_HANDBOOK does.
const TEAMMATES_PRIVATE_DOCUMENT = {
  external_id: 'draft-holidays',
  title: 'Draft holiday plan',
  visibility: 'private',
  text: 'Paid holiday days: every employee gets 60 days of paid holiday each year. Paid holiday days per employee each year: 60 days of paid holiday.',
};

const HOLIDAY_QUESTION = 'How many days of paid holiday does every employee get each year?';

async function listen(testApp: TestApp): Promise<string> {
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = testApp.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** A personal access token (POST /v1/users/me/tokens): what a person pastes into a client as the key. */
async function personalToken(testApp: TestApp, sessionToken: string): Promise<string> {
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/v1/users/me/tokens',
    headers: bearer(sessionToken),
    payload: { name: 'Open WebUI' },
  });
  expect(response.statusCode).toBe(201);
  return response.json().token as string;
}

function clientFor(baseUrl: string, apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${baseUrl}/openai/v1`, maxRetries: 0 });
}

async function answerOf(client: OpenAI, question: string): Promise<string> {
  const completion = await client.chat.completions.create({
    model: 'knowledge',
    messages: [{ role: 'user', content: question }],
  });
  return completion.choices[0]?.message.content ?? '';
}

describe('/openai/v1 with the extractive answerer', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let client: OpenAI;
  let teammateClient: OpenAI;
  let rivalClient: OpenAI;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true, env: { PUBLIC_URL } });
    const owner = await registerUser(testApp.app);
    const teammateToken = await joinedMember(testApp.app, owner.token);
    const rival = await registerUser(testApp.app);
    await uploadDocuments(testApp.app, owner.token, HANDBOOK_DOCUMENTS);
    await uploadDocuments(testApp.app, teammateToken, [TEAMMATES_PRIVATE_DOCUMENT]);
    await uploadDocuments(testApp.app, rival.token, [RIVAL_HANDBOOK]);
    baseUrl = await listen(testApp);
    client = clientFor(baseUrl, await personalToken(testApp, owner.token));
    // A session token is a key too.
    teammateClient = clientFor(baseUrl, teammateToken);
    rivalClient = clientFor(baseUrl, rival.token);
  });
  afterAll(async () => {
    await testApp.close();
  });

  it('lists the one model, knowledge', async () => {
    const models = await client.models.list();
    expect(models.data).toEqual([
      { id: 'knowledge', object: 'model', created: expect.any(Number), owned_by: 'knowledge-answers' },
    ]);
    expect(await client.models.retrieve('knowledge')).toMatchObject({ id: 'knowledge' });
  });

  it('answers as a chat.completion citing the document, its title linked to its URL under Sources', async () => {
    const completion = await client.chat.completions.create({
      model: 'knowledge',
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: HOLIDAY_QUESTION },
      ],
      temperature: 0.2,
      user: 'someone',
    });
    expect(completion).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'knowledge',
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
    expect(completion.choices).toHaveLength(1);
    const [choice] = completion.choices;
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.role).toBe('assistant');
    const content = choice?.message.content ?? '';
    expect(content).toContain('Every employee gets 25 days of paid holiday each year [1].');
    expect(
      content.endsWith('\n\nSources:\n- [1] [Employee handbook](https://intranet.example/handbook)'),
    ).toBe(true);
  });

  it("links a source without a URL to its passage's page in the web app", async () => {
    const content = await answerOf(client, 'Within how many days must expense receipts be submitted?');
    expect(content).toContain('30 days of purchase [1]');
    expect(content).toMatch(
      /\n\nSources:\n- \[1\] \[Expenses policy\]\(https:\/\/knowledge\.example\/documents\/\d+\?passage=\d+\)$/,
    );
  });

  it('streams chat.completion.chunk events: the role first, the content in pieces, then stop', async () => {
    const stream = await client.chat.completions.create({
      model: 'knowledge',
      messages: [{ role: 'user', content: HOLIDAY_QUESTION }],
      stream: true,
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((chunk) => chunk.choices[0]?.finish_reason === null)).toBe(true);
    const streamed = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(streamed).toBe(await answerOf(client, HOLIDAY_QUESTION));
  });

  it('ends the event stream with data: [DONE], and adds the usage when asked', async () => {
    const response = await fetch(`${baseUrl}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'knowledge',
        messages: [{ role: 'user', content: HOLIDAY_QUESTION }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n').filter((event) => event !== '');
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
    const usage = JSON.parse(events.at(-2)?.slice('data: '.length) ?? '{}');
    expect(usage).toMatchObject({ choices: [], usage: { total_tokens: 0 } });
  });

  it('continues a conversation: a follow-up is read with the messages before it', async () => {
    const first = await answerOf(client, HOLIDAY_QUESTION);
    const completion = await client.chat.completions.create({
      model: 'knowledge',
      messages: [
        { role: 'user', content: HOLIDAY_QUESTION },
        { role: 'assistant', content: first },
        { role: 'user', content: [{ type: 'text', text: 'Can unused ones be carried over?' }] },
      ],
    });
    const content = completion.choices[0]?.message.content ?? '';
    expect(content).toContain('Unused holiday days can be carried over, up to 5 days');
    expect(content).toContain('[Employee handbook](https://intranet.example/handbook)');
  });

  it("answers only from what the caller may open: never another team's or a teammate's private document", async () => {
    for (const content of [await answerOf(client, HOLIDAY_QUESTION), await streamedAnswer(client)]) {
      expect(content).toContain('25 days');
      expect(content).not.toContain('40 days');
      expect(content).not.toContain('60 days');
      expect(content).not.toContain('Rival handbook');
      expect(content).not.toContain('Draft holiday plan');
      expect(content.match(/^- \[\d+\]/gm)).toEqual(['- [1]']);
    }
    // The private document is there, for the teammate who uploaded it.
    const teammates = await answerOf(teammateClient, HOLIDAY_QUESTION);
    expect(teammates).toContain('60 days');
    expect(teammates).toContain('Draft holiday plan');
    const rivals = await answerOf(rivalClient, HOLIDAY_QUESTION);
    expect(rivals).toContain('40 days');
    expect(rivals).not.toContain('25 days');
    expect(rivals).not.toContain('Employee handbook');
  });

  it("refuses a bad or missing key with 401 in OpenAI's shape", async () => {
    const refused = await clientFor(baseUrl, 'not-a-token')
      .models.list()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    await expect(
      clientFor(baseUrl, 'not-a-token').chat.completions.create({
        model: 'knowledge',
        messages: [{ role: 'user', content: HOLIDAY_QUESTION }],
        stream: true,
      }),
    ).rejects.toBeInstanceOf(AuthenticationError);

    const missing = await fetch(`${baseUrl}/openai/v1/models`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', code: 'invalid_api_key' },
    });
  });

  it("does not take the web app's session cookie as the key", async () => {
    const response = await fetch(`${baseUrl}/openai/v1/models`, {
      headers: { cookie: `ka_session=${client.apiKey}` },
    });
    expect(response.status).toBe(401);
  });

  it("answers another model with 404 model_not_found, in OpenAI's shape", async () => {
    const refused = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: HOLIDAY_QUESTION }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotFoundError);
    expect(refused).toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
  });

  it("refuses a malformed request with 400 invalid_request_error, in OpenAI's shape", async () => {
    const post = (body: string) =>
      fetch(`${baseUrl}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
        body,
      });
    for (const body of [
      '{"model": "knowledge"}',
      '{"model": "knowledge", "messages": "hello"}',
      '{"model": "knowledge", "messages": [{"role": "user", "content": 42}]}',
      '{"model": "knowledge", "messages": [',
    ]) {
      const response = await post(body);
      expect(response.status, body).toBe(400);
      expect(await response.json(), body).toEqual({
        error: { message: expect.any(String), type: 'invalid_request_error', code: expect.any(String) },
      });
    }
    const noQuestion = await client.chat.completions
      .create({ model: 'knowledge', messages: [{ role: 'system', content: 'Be brief.' }] })
      .catch((error: unknown) => error);
    expect(noQuestion).toBeInstanceOf(BadRequestError);

    const unknown = await fetch(`${baseUrl}/openai/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });
});

async function streamedAnswer(client: OpenAI): Promise<string> {
  const stream = await client.chat.completions.create({
    model: 'knowledge',
    messages: [{ role: 'user', content: HOLIDAY_QUESTION }],
    stream: true,
  });
  let content = '';
  for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
  return content;
}

describe('/openai/v1 with an LLM answerer', () => {
  let llm: FakeOpenAiServer;
  let testApp: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await FakeOpenAiServer.start({ apiKey: 'sk-openai-route-test', models: ['small-chat'] });
    testApp = await startTestApp({
      worker: true,
      env: {
        PUBLIC_URL,
        LLM_BASE_URL: llm.baseUrl,
        LLM_API_KEY: 'sk-openai-route-test',
        LLM_MODEL: 'small-chat',
        LLM_TIMEOUT_MS: '5000',
        CHAT_MEMORY_MESSAGES: '4',
      },
    });
    const owner = await registerUser(testApp.app);
    await uploadDocuments(testApp.app, owner.token, HANDBOOK_DOCUMENTS);
    client = clientFor(await listen(testApp), await personalToken(testApp, owner.token));
  });
  afterAll(async () => {
    await testApp.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.clearRecords();
    llm.chatScript = {};
  });

  /** The requests that asked for an answer, not for a follow-up's rewrite. */
  const answerRequests = () =>
    llm.chatRequests.filter((request) => request.messages[0]?.content === SYSTEM_PROMPT);

  it("streams the model's answer as it comes, then the cited sources", async () => {
    llm.chatScript = { reply: 'Every employee gets 25 days of paid holiday a year [1].', chunkSize: 7 };
    const stream = await client.chat.completions.create({
      model: 'knowledge',
      messages: [{ role: 'user', content: HOLIDAY_QUESTION }],
      stream: true,
    });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta.content ?? '');
    expect(pieces.filter((piece) => piece !== '').length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(
      'Every employee gets 25 days of paid holiday a year [1].\n\nSources:\n- [1] [Employee handbook](https://intranet.example/handbook)',
    );
  });

  it('stops the answer and the LLM request when the client aborts mid-stream; the next request works', async () => {
    llm.chatScript = {
      reply: 'Every employee gets 25 days of paid holiday a year [1].',
      chunkSize: 5,
      hangAfterChunks: 2,
    };
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'knowledge', messages: [{ role: 'user', content: HOLIDAY_QUESTION }], stream: true },
      { signal: controller.signal },
    );
    let received = '';
    const finishReasons: unknown[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) {
          received += chunk.choices[0]?.delta.content ?? '';
          finishReasons.push(chunk.choices[0]?.finish_reason);
          // The model hangs after two pieces: the client gives up once it has them.
          if (received === 'Every empl') controller.abort();
        }
      })().catch((error: unknown) => {
        if (!(error instanceof APIUserAbortError)) throw error;
      }),
    ).resolves.toBeUndefined();
    expect(received).toBe('Every empl');
    expect(finishReasons).not.toContain('stop');
    await vi.waitFor(() => expect(llm.chatRequests[0]?.closedByClient).toBe(true));
    expect(llm.chatRequests[0]?.completed).toBe(false);
    await vi.waitFor(() =>
      expect(testApp.logLines.some((line) => line.includes('client went away: answer stopped'))).toBe(true),
    );

    // Nothing failed on the server's side: the client leaving is no error.
    expect(testApp.logLines.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);

    llm.chatScript = { reply: 'Still here [1].' };
    expect(await answerOf(client, HOLIDAY_QUESTION)).toMatch(/^Still here \[1\]\.\n\nSources:\n/);
  });

  it('stops the LLM request when the client of a non-streamed answer aborts', async () => {
    llm.chatScript = { reply: 'Every employee gets 25 days of paid holiday a year [1].', hangAfterChunks: 1 };
    const controller = new AbortController();
    const answer = client.chat.completions
      .create(
        { model: 'knowledge', messages: [{ role: 'user', content: HOLIDAY_QUESTION }] },
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    await vi.waitFor(() => expect(llm.chatRequests).toHaveLength(1));
    controller.abort();
    expect(await answer).toBeInstanceOf(APIUserAbortError);
    await vi.waitFor(() => expect(llm.chatRequests[0]?.closedByClient).toBe(true));
    expect(testApp.logLines.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
    llm.chatScript = { reply: 'Still here [1].' };
    expect(await answerOf(client, HOLIDAY_QUESTION)).toMatch(/^Still here \[1\]\./);
  });

  it("gives the model the conversation's earlier turns, an earlier answer without its sources list", async () => {
    llm.chatScript = {
      reply: (messages) =>
        messages[0]?.content === REWRITE_PROMPT
          ? 'Can unused paid holiday days be carried over?'
          : 'Up to 5 days can be carried over [1].',
    };
    const earlier =
      'Every employee gets 25 days of paid holiday a year [1].\n\nSources:\n- [1] [Employee handbook](https://intranet.example/handbook)';
    const completion = await client.chat.completions.create({
      model: 'knowledge',
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: HOLIDAY_QUESTION },
        { role: 'assistant', content: earlier },
        { role: 'user', content: 'Can unused ones be carried over?' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe(
      'Up to 5 days can be carried over [1].\n\nSources:\n- [1] [Employee handbook](https://intranet.example/handbook)',
    );
    const prompt = answerRequests()[0]?.messages ?? [];
    expect(prompt.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(prompt[1]?.content).toBe(HOLIDAY_QUESTION);
    expect(prompt[2]?.content).toContain('25 days of paid holiday a year');
    expect(prompt[2]?.content).not.toContain('Sources');
    expect(prompt.at(-1)?.content).toContain('Can unused ones be carried over?');
  });

  it("tells the client in OpenAI's shape when the model fails, before or during the stream", async () => {
    llm.failNext({ status: 429, retryAfter: 1 });
    const limited = await client.chat.completions
      .create({ model: 'knowledge', messages: [{ role: 'user', content: HOLIDAY_QUESTION }] })
      .catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: 'model_rate_limited' });

    llm.chatScript = {
      reply: 'Every employee gets 25 days of paid holiday a year [1].',
      chunkSize: 5,
      failAfterChunks: { chunks: 3, how: 'error_event' },
    };
    const stream = await client.chat.completions.create({
      model: 'knowledge',
      messages: [{ role: 'user', content: HOLIDAY_QUESTION }],
      stream: true,
    });
    let received = '';
    const failure = await (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    })().catch((error: unknown) => error);
    expect(received).toBe('Every employee ');
    expect(failure).toBeInstanceOf(APIError);
    expect(failure).toMatchObject({ code: 'model_unavailable', type: 'server_error' });
  });
});
