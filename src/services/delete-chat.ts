import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** Deletes one of the caller's chats. */
export async function deleteChat(deps: ServiceDependencies, caller: Caller, chatId: string): Promise<void> {
  const deleted = await deps.data.chats.deleteUserChat(caller.userId, chatId);
  if (!deleted) throw new ServiceError('not_found', 'Chat not found');
}
