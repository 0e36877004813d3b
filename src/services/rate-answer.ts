import type { Caller } from '../caller.js';
import type { AnswerRating } from '../db/repositories/chats.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

export interface AnswerFeedbackView {
  chat_id: string;
  message_index: number;
  rating: AnswerRating | null;
}

/**
 * Rates one answer of the caller's chat up or down, or clears its rating (null). The rating is
 * stored in the message itself, so the chat's history returns it. Another user's chat is not the
 * caller's to rate: 404 as if it did not exist. A message that is not there, or is not an answer
 * (the asker's own question), is a 422 at `["path", "message_index"]`.
 */
export async function rateAnswer(
  deps: Pick<ServiceDependencies, 'data'>,
  caller: Caller,
  chatId: string,
  messageIndex: number,
  rating: AnswerRating | null,
): Promise<AnswerFeedbackView> {
  const result = await deps.data.chats.rateChatMessage({
    userId: caller.userId,
    chatId,
    messageIndex,
    rating,
  });
  switch (result.outcome) {
    case 'rated':
      return { chat_id: chatId, message_index: messageIndex, rating };
    case 'chat_not_found':
      throw new ServiceError('not_found', 'Chat not found');
    case 'no_such_message':
      throw messageIndexIssue(
        messageIndex,
        `Value error, the chat has no message ${messageIndex} (it holds ${result.messageCount}, counted from 0)`,
      );
    case 'not_an_answer':
      throw messageIndexIssue(
        messageIndex,
        `Value error, message ${messageIndex} is not an answer (its role is ${JSON.stringify(result.role)}): only the assistant's answers can be rated`,
      );
  }
}

function messageIndexIssue(messageIndex: number, msg: string): ServiceError {
  return ServiceError.validation([
    { type: 'value_error', loc: ['path', 'message_index'], msg, input: messageIndex },
  ]);
}
