import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeOpenAiServer } from '../../../test/fakes/fake-openai-server.js';
import { ChatModelError, type ChatModelMessage } from './chat-model.js';
import { OpenAiChatModel, type OpenAiChatModelOptions } from './openai-chat-model.js';

const API_KEY = 'sk-test-0123456789abcdef';
const PROMPT: ChatModelMessage[] = [
  { role: 'system', content: 'Answer from the sources.' },
  { role: 'user', content: 'Sources:\n\n[1] Handbook\n25 days.\n\nQuestion: How many days?' },
];

let server: FakeOpenAiServer;

beforeAll(async () => {
  server = await FakeOpenAiServer.start({ apiKey: API_KEY, models: ['small-chat'] });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.clearRecords();
  server.chatScript = {};
});

function model(options: Partial<OpenAiChatModelOptions> = {}) {
  return new OpenAiChatModel({
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    model: 'small-chat',
    timeoutMs: 5_000,
    maxTokens: 300,
    temperature: 0.1,
    ...options,
  });
}

async function collect(iterable: AsyncIterable<string>) {
  const pieces: string[] = [];
  try {
    for await (const piece of iterable) pieces.push(piece);
  } catch (error) {
    return { pieces, error };
  }
  return { pieces, error: undefined };
}

describe('OpenAiChatModel', () => {
  it('streams the reply in pieces and sends the prompt, model and limits', async () => {
    server.chatScript = { reply: 'You get 25 days of holiday [1].', chunkSize: 6 };
    const { pieces, error } = await collect(model().stream(PROMPT, { signal: new AbortController().signal }));
    expect(error).toBeUndefined();
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe('You get 25 days of holiday [1].');
    expect(server.chatRequests[0]).toMatchObject({
      model: 'small-chat',
      stream: true,
      maxTokens: 300,
      temperature: 0.1,
      messages: PROMPT,
      completed: true,
    });
  });

  it("sends one call's own temperature and a lower token limit, never a higher one", async () => {
    const signal = new AbortController().signal;
    await collect(model().stream(PROMPT, { signal, maxTokens: 64, temperature: 0 }));
    await collect(model().stream(PROMPT, { signal, maxTokens: 5_000 }));
    expect(server.chatRequests.map(({ maxTokens, temperature }) => ({ maxTokens, temperature }))).toEqual([
      { maxTokens: 64, temperature: 0 },
      { maxTokens: 300, temperature: 0.1 },
    ]);
  });

  it('fails with a retryable error after the first pieces when the server sends an error event', async () => {
    server.chatScript = {
      reply: 'You get 25 days of holiday [1].',
      chunkSize: 4,
      failAfterChunks: { chunks: 2, how: 'error_event' },
    };
    const { pieces, error } = await collect(model().stream(PROMPT, { signal: new AbortController().signal }));
    expect(pieces.join('')).toBe('You get ');
    expect(error).toBeInstanceOf(ChatModelError);
    expect(error).toMatchObject({ failure: 'unavailable', retryable: true });
  });

  it('fails with a retryable error when the connection drops mid-reply', async () => {
    server.chatScript = {
      reply: 'You get 25 days of holiday [1].',
      chunkSize: 4,
      failAfterChunks: { chunks: 3, how: 'destroy' },
    };
    const { pieces, error } = await collect(model().stream(PROMPT, { signal: new AbortController().signal }));
    expect(pieces.join('')).toBe('You get 25 d');
    expect(error).toMatchObject({ name: 'ChatModelError', failure: 'unavailable' });
  });

  it('times out when the server stalls mid-reply', async () => {
    server.chatScript = { reply: 'You get 25 days.', chunkSize: 4, hangAfterChunks: 1 };
    const started = Date.now();
    const { pieces, error } = await collect(
      model({ timeoutMs: 300 }).stream(PROMPT, { signal: new AbortController().signal }),
    );
    expect(pieces).toEqual(['You ']);
    expect(error).toMatchObject({ failure: 'timeout', retryable: true });
    // The server never sends the rest: only the client's own timer ends the wait, however late it fires.
    expect(Date.now() - started).toBeLessThan(30_000);
    await vi.waitFor(() => expect(server.chatRequests[0]?.closedByClient).toBe(true), { timeout: 60_000 });
  });

  it('cancels the HTTP request when the caller aborts, rejecting with its reason', async () => {
    server.chatScript = { reply: 'You get 25 days.', chunkSize: 4, hangAfterChunks: 1 };
    const controller = new AbortController();
    const reason = new Error('the client left');
    const pending = collect(model().stream(PROMPT, { signal: controller.signal }));
    await vi.waitFor(() => expect(server.chatRequests).toHaveLength(1), { timeout: 60_000 });
    controller.abort(reason);
    const { error } = await pending;
    expect(error).toBe(reason);
    await vi.waitFor(() => expect(server.chatRequests[0]?.closedByClient).toBe(true), { timeout: 60_000 });
  });

  it('says a 429 is retryable and when to come back', async () => {
    server.failNext({ status: 429, retryAfter: 7 });
    const { error } = await collect(model().stream(PROMPT, { signal: new AbortController().signal }));
    expect(error).toMatchObject({
      failure: 'rate_limited',
      retryable: true,
      retryAfterSeconds: 7,
      status: 429,
    });
  });

  it('refuses permanently on a wrong key or model, never repeating the key', async () => {
    const wrongKey = 'sk-wrong-key-abcdefghijkl';
    const unauthorized = await collect(
      model({ apiKey: wrongKey }).stream(PROMPT, { signal: new AbortController().signal }),
    );
    expect(unauthorized.error).toMatchObject({ failure: 'unauthorized', retryable: false });
    expect(String((unauthorized.error as Error).message)).not.toContain('abcdefghijkl');
    const unknownModel = await collect(
      model({ model: 'no-such-model' }).stream(PROMPT, { signal: new AbortController().signal }),
    );
    expect(unknownModel.error).toMatchObject({ failure: 'not_found', retryable: false });
  });

  it('says the server is unavailable when nothing listens', async () => {
    const { error } = await collect(
      model({ baseUrl: 'http://127.0.0.1:9/v1' }).stream(PROMPT, { signal: new AbortController().signal }),
    );
    expect(error).toMatchObject({ failure: 'unavailable', retryable: true });
  });
});
