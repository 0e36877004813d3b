import type { Caller } from '../caller.js';
import { deleteUserChat } from '../db/repositories/chats.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** Deletes one of the caller's chats. */
export async function deleteChat(deps: ServiceDependencies, caller: Caller, chatId: string): Promise<void> {
  const deleted = await deleteUserChat(deps.db, caller.userId, chatId);
  if (!deleted) throw new ServiceError('not_found', 'Chat not found');
}
