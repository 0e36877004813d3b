import { describe, expect, it } from 'vitest';
import { toChatEvent } from './chat-events';

describe('toChatEvent', () => {
  it('reads each kind of line', () => {
    expect(toChatEvent({ answer: 'Hi' })).toEqual({ type: 'answer', text: 'Hi' });
    expect(toChatEvent({ sources: [] })).toEqual({ type: 'sources', sources: [] });
    expect(toChatEvent({ done: true, chat_id: 'c1' })).toEqual({ type: 'done', chatId: 'c1' });
    expect(toChatEvent({ done: true, chat_id: 'c1', message_index: 3 })).toEqual({
      type: 'done',
      chatId: 'c1',
      messageIndex: 3,
    });
    expect(toChatEvent({ done: true, chat_id: 'c1', message_index: -1 })).toEqual({
      type: 'done',
      chatId: 'c1',
    });
    expect(toChatEvent({ error: { code: 'unavailable', message: 'Try again' } })).toEqual({
      type: 'error',
      code: 'unavailable',
      message: 'Try again',
    });
  });

  it('gives an error without words some words', () => {
    expect(toChatEvent({ error: {} })).toEqual({
      type: 'error',
      code: 'error',
      message: 'The answer failed; try again.',
    });
  });

  it('ignores lines it does not know', () => {
    expect(toChatEvent({ progress: 3 })).toBeUndefined();
    expect(toChatEvent(null)).toBeUndefined();
    expect(toChatEvent('answer')).toBeUndefined();
  });
});
