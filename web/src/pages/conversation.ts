import type { AnswerRating, ChatMessage, CitedSource } from '../api/types';

/** One question and its answer, as the ask page shows them. */
export interface Turn {
  key: string;
  question: string;
  answer: string;
  sources: CitedSource[];
  state: 'streaming' | 'done' | 'stopped' | 'failed';
  error?: string;
  /** Where the answer is stored, to rate it: its chat and its position in the chat's messages. */
  chatId?: string;
  messageIndex?: number;
  /** The answer's thumbs up or down (null or absent: none). */
  feedback?: AnswerRating | null;
}

/** The turn's answer's place in a stored chat, when it has one (a stopped or failed answer was not saved). */
export function ratingTarget(turn: Turn): { chatId: string; messageIndex: number } | undefined {
  if (turn.state !== 'done' || turn.answer === '') return undefined;
  if (turn.chatId === undefined || turn.messageIndex === undefined) return undefined;
  return { chatId: turn.chatId, messageIndex: turn.messageIndex };
}

let nextKey = 0;
export function turnKey(): string {
  nextKey += 1;
  return `turn-${nextKey}`;
}

/**
 * A stored chat's messages as turns: each question with the answer that follows it. An answer with
 * no question before it (a chat saved by another client) is shown with an empty question. With the
 * chat's id, each answer knows where it is stored (to rate it) and its rating.
 */
export function turnsFromMessages(messages: readonly ChatMessage[], chatId?: string): Turn[] {
  const turns: Turn[] = [];
  for (const [index, message] of messages.entries()) {
    const last = turns.at(-1);
    if (message.role === 'assistant') {
      const stored =
        chatId === undefined ? {} : { chatId, messageIndex: index, feedback: message.feedback ?? null };
      if (last !== undefined && last.answer === '') {
        last.answer = message.content;
        last.sources = message.sources ?? [];
        Object.assign(last, stored);
      } else {
        turns.push({
          key: turnKey(),
          question: '',
          answer: message.content,
          sources: message.sources ?? [],
          state: 'done',
          ...stored,
        });
      }
    } else {
      turns.push({ key: turnKey(), question: message.content, answer: '', sources: [], state: 'done' });
    }
  }
  return turns;
}
