import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../api/types';
import { turnsFromMessages } from './conversation';

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
});
