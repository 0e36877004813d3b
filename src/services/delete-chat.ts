import { and, eq } from 'drizzle-orm';
import type { Caller } from '../caller.js';
import { chats } from '../db/schema.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** Deletes one of the caller's chats. */
export async function deleteChat(deps: ServiceDependencies, caller: Caller, chatId: string): Promise<void> {
  const deleted = await deps.db
    .delete(chats)
    .where(and(eq(chats.userId, caller.userId), eq(chats.chatId, chatId)))
    .returning({ id: chats.id });
  if (deleted.length === 0) throw new ServiceError('not_found', 'Chat not found');
}
