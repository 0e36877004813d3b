import type { CitedSource } from './types';

/** One line of a streamed answer from POST /v1/chat/, as the app uses it. */
export type ChatEvent =
  | { type: 'answer'; text: string }
  | { type: 'sources'; sources: CitedSource[] }
  | { type: 'done'; chatId: string; messageIndex?: number }
  | { type: 'error'; code: string; message: string };

/** Which event a line is; undefined for a line of no known shape (ignored, as a newer server may add some). */
export function toChatEvent(line: unknown): ChatEvent | undefined {
  if (line === null || typeof line !== 'object') return undefined;
  const value = line as Record<string, unknown>;
  if (typeof value.answer === 'string') return { type: 'answer', text: value.answer };
  if (Array.isArray(value.sources)) return { type: 'sources', sources: value.sources as CitedSource[] };
  if (value.done === true && typeof value.chat_id === 'string') {
    // The answer's position in the chat, to rate it (absent from an older server: no rating then).
    const index = value.message_index;
    return typeof index === 'number' && Number.isInteger(index) && index >= 0
      ? { type: 'done', chatId: value.chat_id, messageIndex: index }
      : { type: 'done', chatId: value.chat_id };
  }
  if (value.error !== null && typeof value.error === 'object') {
    const error = value.error as Record<string, unknown>;
    return {
      type: 'error',
      code: typeof error.code === 'string' ? error.code : 'error',
      message: typeof error.message === 'string' ? error.message : 'The answer failed; try again.',
    };
  }
  return undefined;
}
