import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import { chatView } from './chat-views.js';
import type { ServiceDependencies } from './dependencies.js';

/** One of the caller's chats; another user's chat of the same id is not theirs to see. */
export async function getChat(deps: ServiceDependencies, caller: Caller, chatId: string) {
  const row = await deps.data.chats.findUserChat(caller.userId, chatId);
  if (row === undefined) throw new ServiceError('not_found', 'Chat not found');
  // The id asked for, not the driver's copy of it: PGlite drops a leading U+FEFF from text.
  return chatView({ ...row, chatId });
}
