import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../test/fakes/fake-openai-server.js';
import { hitOf } from '../../test/fakes/fake-team-search.js';
import { ChatModelError } from '../adapters/llm/chat-model.js';
import { OpenAiChatModel } from '../adapters/llm/openai-chat-model.js';
import { ScriptedChatModel } from '../adapters/llm/scripted-chat-model.js';
import { AnswerError } from './answer-error.js';
import type { AnswerInput } from './answerer.js';
import { citedSources, numberPassages, UnknownCitationFilter } from './citations.js';
import { LlmAnswerer } from './llm-answerer.js';

const passages = numberPassages([
  hitOf(
    { title: 'Handbook', text: 'Everyone gets 25 days of paid holiday.', url: 'https://intranet/handbook' },
    0,
  ),
  hitOf({ title: 'Expenses', text: 'Submit receipts within 30 days.' }, 1),
  hitOf({ title: 'Handbook', text: 'Up to 5 days carry over.', url: 'https://intranet/handbook' }, 2),
]);

function input(overrides: Partial<AnswerInput> = {}): AnswerInput {
  return {
    teamId: 1,
    question: 'How many holiday days do I get?',
    history: [],
    topic: [],
    passages,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(answerer: LlmAnswerer, answerInput: AnswerInput) {
  const pieces: string[] = [];
  try {
    for await (const piece of answerer.answer(answerInput)) pieces.push(piece);
  } catch (error) {
    return { pieces, error };
  }
  return { pieces, error: undefined };
}

describe('LlmAnswerer', () => {
  it('streams the model reply piece by piece', async () => {
    const model = new ScriptedChatModel({ reply: 'You get 25 days [1].', chunkSize: 4 });
    const { pieces, error } = await collect(new LlmAnswerer(model), input());
    expect(error).toBeUndefined();
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe('You get 25 days [1].');
  });

  it('prompts with numbered sources (one per document), the chat so far, and the question', async () => {
    const model = new ScriptedChatModel();
    await collect(
      new LlmAnswerer(model),
      input({
        history: [
          { role: 'user', content: 'What about expenses?' },
          { role: 'assistant', content: 'Submit receipts within 30 days [2].' },
        ],
      }),
    );
    const messages = model.calls[0]?.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[0]?.content).toMatch(/\[n\]|\[1\]/);
    expect(messages[0]?.content).toMatch(/not in your sources/);
    // An earlier answer's numbers pointed at that turn's sources: they are taken out.
    expect(messages[2]?.content).toBe('Submit receipts within 30 days.');
    const last = messages[3]?.content ?? '';
    expect(last).toContain(
      '[1] Handbook\nEveryone gets 25 days of paid holiday.\n\nUp to 5 days carry over.',
    );
    expect(last).toContain('[2] Expenses\nSubmit receipts within 30 days.');
    expect(last).not.toContain('[3]');
    expect(last.endsWith('Question: How many holiday days do I get?')).toBe(true);
  });

  it('adds the standalone form of a follow-up after the question, only when it says something else', async () => {
    const model = new ScriptedChatModel();
    const history = [
      { role: 'user' as const, content: 'How many holiday days do I get?' },
      { role: 'assistant' as const, content: 'You get 25 days [1].' },
    ];
    await collect(
      new LlmAnswerer(model),
      input({
        question: 'Can they carry over?',
        history,
        standaloneQuestion: 'Can unused holiday days carry over?',
      }),
    );
    await collect(
      new LlmAnswerer(model),
      input({ question: 'Can they carry over?', history, standaloneQuestion: 'Can they carry over?' }),
    );
    expect(model.calls[0]?.messages.at(-1)?.content).toMatch(
      /\n\nQuestion: Can they carry over\?\n\(As a standalone question: Can unused holiday days carry over\?\)$/,
    );
    expect(model.calls[1]?.messages.at(-1)?.content.endsWith('Question: Can they carry over?')).toBe(true);
  });

  it('tells the model when nothing was found', async () => {
    const model = new ScriptedChatModel({ reply: 'That is not in your sources.' });
    await collect(new LlmAnswerer(model), input({ passages: [] }));
    expect(model.calls[0]?.messages.at(-1)?.content).toContain('Sources: none were found.');
  });

  it('ends with an AnswerError after the pieces already streamed when the model fails mid-answer', async () => {
    const model = new ScriptedChatModel({
      reply: 'You get 25 days of holiday [1].',
      chunkSize: 5,
      failAfterChunks: 2,
      failure: new ChatModelError('rate_limited', 'the model server answered 429', { retryAfterSeconds: 3 }),
    });
    const { pieces, error } = await collect(new LlmAnswerer(model), input());
    expect(pieces).toEqual(['You g', 'et 25']);
    expect(error).toBeInstanceOf(AnswerError);
    expect(error).toMatchObject({ code: 'model_rate_limited', retryable: true });
    expect((error as AnswerError).message).not.toContain('429');
  });

  it('treats an empty reply as a failure, not as an answer', async () => {
    const { error } = await collect(new LlmAnswerer(new ScriptedChatModel({ reply: '' })), input());
    expect(error).toMatchObject({ code: 'model_bad_response' });
  });

  it('stops when the signal aborts, with its reason', async () => {
    const controller = new AbortController();
    const model = new ScriptedChatModel({ reply: 'You get 25 days [1].', hangAfterChunks: 1 });
    const reason = new Error('client left');
    const pending = collect(new LlmAnswerer(model), input({ signal: controller.signal }));
    setTimeout(() => controller.abort(reason), 10);
    const { pieces, error } = await pending;
    expect(pieces).toHaveLength(1);
    expect(error).toBe(reason);
    expect(model.calls[0]?.aborted).toBe(true);
  });
});

describe('LlmAnswerer citations that name no source', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await FakeOpenAiServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  function realModel() {
    return new OpenAiChatModel({
      baseUrl: server.baseUrl,
      apiKey: 'sk-test',
      model: 'small-chat',
      timeoutMs: 5_000,
      maxTokens: 300,
      temperature: 0,
    });
  }

  it('removes them from the streamed answer and the sources, and logs them', async () => {
    // Two sources ([1] Handbook, [2] Expenses): [3] and [7] point at nothing.
    server.chatScript = {
      reply: 'You get 25 days [1][7]. Receipts go in within 30 days [2, 3]. Ask HR [7].',
      chunkSize: 3,
    };
    const warnings: { details: object; message: string }[] = [];
    const answerer = new LlmAnswerer(realModel(), {
      warn: (details, message) => warnings.push({ details, message }),
    });
    const { pieces, error } = await collect(answerer, input());
    expect(error).toBeUndefined();
    expect(pieces.length).toBeGreaterThan(3);
    const text = pieces.join('');
    expect(text).toBe('You get 25 days [1]. Receipts go in within 30 days [2]. Ask HR.');
    expect(citedSources(text, passages).map((source) => source.citation)).toEqual([1, 2]);
    expect(warnings).toEqual([
      { details: { citations: [7, 3], sources: 2 }, message: expect.stringMatching(/do not exist/) },
    ]);
  });

  it('passes an answer whose citations all name sources through unchanged, logging nothing', async () => {
    server.chatScript = { reply: 'You get 25 days [1], and receipts [Source 2] [1-2].', chunkSize: 2 };
    const warnings: object[] = [];
    const answerer = new LlmAnswerer(realModel(), { warn: (details) => warnings.push(details) });
    const { pieces } = await collect(answerer, input());
    expect(pieces.join('')).toBe('You get 25 days [1], and receipts [Source 2] [1-2].');
    expect(warnings).toEqual([]);
  });
});

describe('UnknownCitationFilter', () => {
  it('holds back a citation split across pieces until it is whole', () => {
    const filter = new UnknownCitationFilter(new Set([1]));
    const out = ['See [', '1', ']', ' [', '4', '2]', ', and [note] too'].map((piece) => filter.push(piece));
    expect(out.join('') + filter.end()).toBe('See [1], and [note] too');
    expect(filter.removed).toEqual([42]);
  });
});
