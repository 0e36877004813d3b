import { describe, expect, it } from 'vitest';
import { FakeTeamSearch } from '../../test/fakes/fake-team-search.js';
import { teamReader } from '../access.js';
import { ScriptedChatModel } from '../adapters/llm/scripted-chat-model.js';
import type { Answerer, ConversationTurn } from '../answering/answerer.js';
import { ExtractiveAnswerer, NOT_FOUND_ANSWER } from '../answering/extractive-answerer.js';
import { LlmAnswerer } from '../answering/llm-answerer.js';
import { LlmQuestionRewriter, REWRITE_PROMPT } from '../answering/standalone-question.js';
import { parseConfig } from '../config.js';
import { type AnswerEvent, answerQuestion } from './answer-question.js';

const OUR_TEAM = 1;
const OTHER_TEAM = 2;

function searchWithDocuments() {
  return new FakeTeamSearch().add(
    {
      teamId: OUR_TEAM,
      title: 'Handbook',
      url: 'https://intranet/handbook',
      text: 'Every employee gets 25 days of paid holiday each year. Unused holiday can be carried over, up to 5 days.',
    },
    { teamId: OUR_TEAM, title: 'Expenses', text: 'Submit expense receipts within 30 days of purchase.' },
    {
      teamId: OTHER_TEAM,
      title: 'Other team handbook',
      text: 'Every employee of ours gets 40 days of paid holiday each year, paid holiday days for every employee.',
    },
  );
}

async function run(
  answerer: (search: FakeTeamSearch) => Answerer,
  question: string,
  history: ConversationTurn[] = [],
  questionRewriter?: LlmQuestionRewriter,
) {
  const search = searchWithDocuments();
  const deps = {
    config: parseConfig({ ANSWER_PASSAGES: '4' }),
    search,
    answerer: answerer(search),
    questionRewriter,
  };
  const events: AnswerEvent[] = [];
  for await (const event of answerQuestion(deps, {
    reader: teamReader(OUR_TEAM),
    question,
    history,
    signal: new AbortController().signal,
  })) {
    events.push(event);
  }
  const text = events.flatMap((event) => (event.type === 'answer' ? [event.text] : [])).join('');
  const sources = events.flatMap((event) => (event.type === 'sources' ? event.sources : []));
  return { events, text, sources, search };
}

const extractive = (search: FakeTeamSearch) => new ExtractiveAnswerer(search);

describe('answerQuestion', () => {
  it('yields the answer in pieces, then once the sources it cites, from the asking team only', async () => {
    const { events, text, sources, search } = await run(
      extractive,
      'How many days of paid holiday does an employee get?',
    );
    expect(events.at(-1)?.type).toBe('sources');
    expect(events.filter((event) => event.type === 'sources')).toHaveLength(1);
    expect(text).toContain('25 days of paid holiday');
    expect(text).not.toContain('40 days');
    expect(sources.map((source) => [source.citation, source.title])).toEqual([[1, 'Handbook']]);
    expect(search.requests[0]).toMatchObject({ reader: { teamId: OUR_TEAM }, topK: 4, mode: 'hybrid' });
  });

  it('lists no sources with a plain "not found" when nothing matches', async () => {
    const { text, sources } = await run(extractive, 'What is the capital of Mongolia?');
    expect(text).toBe(NOT_FOUND_ANSWER);
    expect(sources).toEqual([]);
  });

  it('searches a follow-up with the topic of the question it follows, and alone', async () => {
    const { search, text } = await run(extractive, 'Can it be carried over?', [
      { role: 'user', content: 'How much paid holiday do employees get?' },
      { role: 'assistant', content: 'Every employee gets 25 days of paid holiday each year [1].' },
    ]);
    // The question before is searched first (lexical), for the headings that name its topic.
    expect(search.requests.map((request) => [request.query, request.mode])).toEqual([
      ['How much paid holiday do employees get?', 'lexical'],
      [expect.stringMatching(/^Can it be carried over\? .*holiday/), 'hybrid'],
      ['Can it be carried over?', 'hybrid'],
    ]);
    expect(text).toContain('carried over');
  });

  it('searches a question with a subject of its own alone, whatever was asked before', async () => {
    const { search } = await run(extractive, 'How are expense receipts submitted?', [
      { role: 'user', content: 'How much paid holiday do employees get?' },
      { role: 'assistant', content: 'Every employee gets 25 days of paid holiday each year [1].' },
    ]);
    expect(search.requests.map((request) => request.query)).toEqual(['How are expense receipts submitted?']);
  });

  it('lists only what an LLM answer cites', async () => {
    const model = new ScriptedChatModel({ reply: 'Receipts go in within 30 days [2].' });
    const { sources } = await run(() => new LlmAnswerer(model), 'expense receipts and paid holiday');
    expect(sources.map((source) => [source.citation, source.title])).toEqual([[2, 'Expenses']]);
  });
});

describe('answerQuestion with a question rewriter (an LLM configured)', () => {
  const HOLIDAY_CHAT: ConversationTurn[] = [
    { role: 'user', content: 'How much paid holiday do employees get?' },
    { role: 'assistant', content: 'Every employee gets 25 days of paid holiday each year [1].' },
  ];

  /** One model for both calls, as deps.ts builds them: the rewrite's reply, then the answer's. */
  function llm(rewrite: string | Error) {
    const model = new ScriptedChatModel({
      reply: (messages) => {
        if (messages[0]?.content !== REWRITE_PROMPT) return 'From the sources [1].';
        if (rewrite instanceof Error) throw rewrite;
        return rewrite;
      },
    });
    return { model, answerer: () => new LlmAnswerer(model), rewriter: new LlmQuestionRewriter(model) };
  }

  it('searches the standalone question and the turn alone, and gives the answerer both', async () => {
    const { model, answerer, rewriter } = llm('How many days of unused paid holiday can be carried over?');
    const { search, sources } = await run(answerer, 'How many of them?', HOLIDAY_CHAT, rewriter);
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]?.messages[1]?.content).toContain('User: How much paid holiday do employees get?');
    expect(model.calls[0]?.messages[1]?.content).toContain('Last message: How many of them?');
    expect(model.calls[0]).toMatchObject({ temperature: 0 });
    // The rewrite replaces the carried topic: no "How many of them? paid holiday" query.
    expect(search.requests.map((request) => request.query)).toEqual([
      'How many days of unused paid holiday can be carried over?',
      'How many of them?',
    ]);
    expect(sources.map((source) => source.title)).toEqual(['Handbook']);
    const prompt = model.calls[1]?.messages.at(-1)?.content ?? '';
    expect(prompt).toContain(
      'Question: How many of them?\n(As a standalone question: How many days of unused paid holiday can be carried over?)',
    );
  });

  it('never rewrites a first turn', async () => {
    const { model, answerer, rewriter } = llm('Something else entirely?');
    const { search } = await run(answerer, 'How much paid holiday do employees get?', [], rewriter);
    expect(model.calls.map((call) => call.messages[0]?.content)).not.toContain(REWRITE_PROMPT);
    expect(model.calls).toHaveLength(1);
    expect(search.requests.map((request) => request.query)).toEqual([
      'How much paid holiday do employees get?',
    ]);
  });

  it('does not drag a new topic back to the old one when the model returns the turn unchanged', async () => {
    // "What about…" reads as a follow-up: without the model the holiday words would be carried.
    const question = 'What about expense receipts?';
    const { model, answerer, rewriter } = llm(question);
    const { search } = await run(answerer, question, HOLIDAY_CHAT, rewriter);
    expect(search.requests.map((request) => request.query)).toEqual([question]);
    expect(model.calls[1]?.messages.at(-1)?.content.endsWith(`Question: ${question}`)).toBe(true);
  });

  it('falls back on the carried topic when the model fails to rewrite', async () => {
    const { model, answerer, rewriter } = llm(new Error('the rewrite broke'));
    const { search, text } = await run(answerer, 'Can it be carried over?', HOLIDAY_CHAT, rewriter);
    expect(model.calls).toHaveLength(2);
    const answering = search.requests.filter((request) => request.mode === 'hybrid');
    expect(answering.map((request) => request.query)).toEqual([
      expect.stringMatching(/^Can it be carried over\? .*holiday/),
      'Can it be carried over?',
    ]);
    expect(text).toBe('From the sources [1].');
  });
});
