import type { ChatMessage, CitedSource } from '../api/types';

/** One question and its answer, as the ask page shows them. */
export interface Turn {
  key: string;
  question: string;
  answer: string;
  sources: CitedSource[];
  state: 'streaming' | 'done' | 'stopped' | 'failed';
  error?: string;
}

let nextKey = 0;
export function turnKey(): string {
  nextKey += 1;
  return `turn-${nextKey}`;
}

/**
 * A stored chat's messages as turns: each question with the answer that follows it. An answer with
 * no question before it (a chat saved by another client) is shown with an empty question.
 */
export function turnsFromMessages(messages: readonly ChatMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    if (message.role === 'assistant') {
      if (last !== undefined && last.answer === '') {
        last.answer = message.content;
        last.sources = message.sources ?? [];
      } else {
        turns.push({
          key: turnKey(),
          question: '',
          answer: message.content,
          sources: message.sources ?? [],
          state: 'done',
        });
      }
    } else {
      turns.push({ key: turnKey(), question: message.content, answer: '', sources: [], state: 'done' });
    }
  }
  return turns;
}
