import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeOpenAiServer } from '../../test/fakes/fake-openai-server.js';
import { OpenAiChatModel } from '../adapters/llm/openai-chat-model.js';
import type { ConversationTurn } from './answerer.js';
import { LlmQuestionRewriter, REWRITE_PROMPT, sanitizedRewrite } from './standalone-question.js';

const HISTORY: ConversationTurn[] = [
  { role: 'user', content: 'How do I tag every pino log line with a child logger?' },
  {
    role: 'assistant',
    content:
      'Call `logger.child({ module: "db" })`: every line it writes carries `module` [1].\nSee also [2].',
  },
];
const FOLLOW_UP = 'Can that logger use a different level?';
const STANDALONE = 'Can a pino child logger use a different level from its parent?';

describe('LlmQuestionRewriter (through the OpenAI-compatible client)', () => {
  let server: FakeOpenAiServer;
  let warnings: { details: object; message: string }[];

  beforeAll(async () => {
    server = await FakeOpenAiServer.start({ apiKey: 'sk-rewrite', models: ['small-chat'] });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.clearRecords();
    server.chatScript = {};
    warnings = [];
  });

  function rewriter() {
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      apiKey: 'sk-rewrite',
      model: 'small-chat',
      timeoutMs: 5_000,
      maxTokens: 800,
      temperature: 0.1,
    });
    return new LlmQuestionRewriter(model, {
      warn: (details, message) => warnings.push({ details, message }),
    });
  }

  const standalone = (
    question: string,
    history: readonly ConversationTurn[] = HISTORY,
    signal?: AbortSignal,
  ) => rewriter().standalone(question, history, signal ?? new AbortController().signal);

  it('sends the instructions, the earlier turns without their citations and the new turn; returns the rewrite', async () => {
    server.chatScript = { reply: STANDALONE, chunkSize: 5 };
    expect(await standalone(FOLLOW_UP)).toBe(STANDALONE);
    expect(server.chatRequests).toHaveLength(1);
    const request = server.chatRequests[0];
    expect(request).toMatchObject({ model: 'small-chat', stream: true, temperature: 0, completed: true });
    // A short reply: far below the answers' 800.
    expect(request?.maxTokens).toBeLessThanOrEqual(300);
    expect(request?.messages).toEqual([
      { role: 'system', content: REWRITE_PROMPT },
      {
        role: 'user',
        content: [
          'Conversation:',
          'User: How do I tag every pino log line with a child logger?',
          'Assistant: Call `logger.child({ module: "db" })`: every line it writes carries `module`. See also.',
          '',
          `Last message: ${FOLLOW_UP}`,
        ].join('\n'),
      },
    ]);
    expect(REWRITE_PROMPT).toMatch(/standalone question/);
    expect(REWRITE_PROMPT).toMatch(/verbatim/);
    expect(REWRITE_PROMPT).toMatch(/unchanged/);
    expect(warnings).toEqual([]);
  });

  it('sends only the last turns, each clipped', async () => {
    const long = `Where is the ${'very '.repeat(400)}long page?`;
    const history: ConversationTurn[] = [
      { role: 'user', content: 'The oldest question, forgotten?' },
      { role: 'assistant', content: 'An old answer.' },
      { role: 'user', content: long },
      { role: 'assistant', content: 'Here [1].' },
      { role: 'user', content: 'And the newer one?' },
      { role: 'assistant', content: 'There [2].' },
    ];
    server.chatScript = { reply: 'Where is the newer page?' };
    await standalone('Who wrote it?', history);
    const prompt = server.chatRequests[0]?.messages[1]?.content ?? '';
    expect(prompt).not.toContain('oldest');
    expect(prompt).toContain('User: Where is the very very');
    expect(prompt).toContain('\u2026\nAssistant: Here.\nUser: And the newer one?\nAssistant: There.');
    expect(prompt.length).toBeLessThan(2_000);
  });

  it('returns the question itself when the model says it stands alone', async () => {
    server.chatScript = { reply: 'How are expense receipts submitted?' };
    expect(await standalone('How are expense receipts submitted?')).toBe(
      'How are expense receipts submitted?',
    );
  });

  it('takes the question out of quotes, a "Question:" label and the lines after it', async () => {
    for (const reply of [
      `"${STANDALONE}"`,
      `Question: ${STANDALONE}`,
      `Standalone question: \u201c${STANDALONE}\u201d\n\nThis keeps "child logger" from the conversation.`,
      `Here is the rewritten question:\n${STANDALONE}`,
    ]) {
      server.chatScript = { reply };
      expect(await standalone(FOLLOW_UP), reply).toBe(STANDALONE);
    }
  });

  it('gives nothing (and logs why) for an empty reply or one too long to be a question', async () => {
    for (const reply of [
      '',
      '  \n "" \n',
      `Yes. ${'A child logger inherits its level, but it can be changed. '.repeat(10)}`,
    ]) {
      server.chatScript = { reply };
      expect(await standalone(FOLLOW_UP), reply).toBeUndefined();
    }
    expect(warnings).toHaveLength(3);
    expect(warnings[0]?.message).toMatch(/nothing usable/);
  });

  it('gives nothing (and logs the failure) when the model fails, whether at once or mid-reply', async () => {
    server.failNext({ status: 500 });
    expect(await standalone(FOLLOW_UP)).toBeUndefined();
    server.chatScript = { reply: STANDALONE, chunkSize: 4, failAfterChunks: { chunks: 2, how: 'destroy' } };
    expect(await standalone(FOLLOW_UP)).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({
      details: { err: { name: 'ChatModelError' }, model: 'openai:small-chat' },
      message: expect.stringMatching(/could not rewrite/),
    });
  });

  it("rejects with the signal's reason when it aborts, and closes the request", async () => {
    server.chatScript = { reply: STANDALONE, chunkSize: 4, hangAfterChunks: 1 };
    const controller = new AbortController();
    const reason = new Error('the asker left');
    const pending = standalone(FOLLOW_UP, HISTORY, controller.signal);
    await vi.waitFor(() => expect(server.chatRequests).toHaveLength(1), { timeout: 60_000 });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await vi.waitFor(() => expect(server.chatRequests[0]?.closedByClient).toBe(true), { timeout: 60_000 });
    expect(warnings).toEqual([]);
  });

  it('asks nothing without an earlier question, or for a message long enough to name its own subject', async () => {
    expect(await standalone(FOLLOW_UP, [])).toBeUndefined();
    expect(
      await standalone(FOLLOW_UP, [{ role: 'assistant', content: 'Hello! Ask me anything.' }]),
    ).toBeUndefined();
    expect(await standalone(`Why ${'really '.repeat(100)}?`)).toBeUndefined();
    expect(await standalone('   ')).toBeUndefined();
    expect(server.chatRequests).toHaveLength(0);
    expect(warnings).toEqual([]);
  });
});

describe('sanitizedRewrite', () => {
  it('keeps a plain question as it is', () => {
    expect(sanitizedRewrite('  How do I set `msgPrefix` in pino?  ')).toBe(
      'How do I set `msgPrefix` in pino?',
    );
  });

  it('strips matching quotes only', () => {
    expect(sanitizedRewrite("'Is it on?'")).toBe('Is it on?');
    expect(sanitizedRewrite('\u00abEst-ce activ\u00e9\u00a0?\u00bb')).toBe('Est-ce activ\u00e9\u00a0?');
    expect(sanitizedRewrite('"Quoted" words stay?')).toBe('"Quoted" words stay?');
    expect(sanitizedRewrite('"Quoted" or "not"')).toBe('"Quoted" or "not"');
  });

  it('gives nothing for an empty reply or a label alone', () => {
    expect(sanitizedRewrite('')).toBeUndefined();
    expect(sanitizedRewrite('Question:')).toBeUndefined();
    expect(sanitizedRewrite('Question: ""')).toBeUndefined();
  });
});
