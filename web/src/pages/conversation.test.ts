import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../api/types';
import { ratingTarget, type Turn, turnsFromMessages } from './conversation';

const message = (role: string, content: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  role,
  content,
  timestamp: null,
  chat_id: 'c',
  ...extra,
});

describe('turnsFromMessages', () => {
  it('pairs each question with its answer and sources', () => {
    const source = {
      title: 'T',
      url: null,
      snippet: 's',
      citation: 1,
      file_name: 't',
      file_path: 'upload/t',
    };
    const turns = turnsFromMessages([
      message('user', 'Q1'),
      message('assistant', 'A1 [1]', { sources: [source] }),
      message('user', 'Q2'),
    ]);
    expect(turns.map(({ question, answer, sources }) => ({ question, answer, sources }))).toEqual([
      { question: 'Q1', answer: 'A1 [1]', sources: [source] },
      { question: 'Q2', answer: '', sources: [] },
    ]);
  });

  it('keeps an answer without a question', () => {
    const turns = turnsFromMessages([message('assistant', 'Hello'), message('assistant', 'Again')]);
    expect(turns.map((turn) => [turn.question, turn.answer])).toEqual([
      ['', 'Hello'],
      ['', 'Again'],
    ]);
  });

  it('gives each answer of a stored chat its position and rating, to rate it', () => {
    const turns = turnsFromMessages(
      [
        message('user', 'Q1'),
        message('assistant', 'A1', { feedback: 'up' }),
        message('user', 'Q2'),
        message('assistant', 'A2'),
        message('assistant', 'A3', { feedback: 'down' }),
      ],
      'chat-7',
    );
    expect(turns.map(({ chatId, messageIndex, feedback }) => ({ chatId, messageIndex, feedback }))).toEqual([
      { chatId: 'chat-7', messageIndex: 1, feedback: 'up' },
      { chatId: 'chat-7', messageIndex: 3, feedback: null },
      { chatId: 'chat-7', messageIndex: 4, feedback: 'down' },
    ]);
    expect(turns.map(ratingTarget)).toEqual([
      { chatId: 'chat-7', messageIndex: 1 },
      { chatId: 'chat-7', messageIndex: 3 },
      { chatId: 'chat-7', messageIndex: 4 },
    ]);
  });
});

describe('ratingTarget', () => {
  const turn = (change: Partial<Turn>): Turn => ({
    key: 'k',
    question: 'Q',
    answer: 'A',
    sources: [],
    state: 'done',
    chatId: 'c',
    messageIndex: 1,
    ...change,
  });

  it('is only there for a finished answer the chat stored', () => {
    expect(ratingTarget(turn({}))).toEqual({ chatId: 'c', messageIndex: 1 });
    for (const state of ['streaming', 'stopped', 'failed'] as const) {
      expect(ratingTarget(turn({ state }))).toBeUndefined();
    }
    expect(ratingTarget(turn({ answer: '' }))).toBeUndefined();
    expect(ratingTarget(turn({ messageIndex: undefined }))).toBeUndefined();
    expect(ratingTarget(turn({ chatId: undefined }))).toBeUndefined();
    // A question whose answer is not there yet (a chat read while it was asked elsewhere).
    expect(turnsFromMessages([message('user', 'Q')], 'c').map(ratingTarget)).toEqual([undefined]);
  });
});
