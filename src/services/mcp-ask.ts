import type { CitedSource } from '../answering/citations.js';
import type { Caller } from '../caller.js';
import { startWebChat } from './answer-web-chat.js';
import type { ServiceDependencies } from './dependencies.js';
import { documentLink } from './mcp-document-ids.js';

export interface McpAskInput {
  readonly question: string;
  /** The chat to continue; a new one when absent. */
  readonly chatId?: string | undefined;
}

export interface McpAnswer {
  readonly chatId: string;
  /** The answer with its `[n]` citations, the numbered sources, and the chat id to follow up with. */
  readonly text: string;
}

/**
 * The MCP `ask` tool: the web chat's answer (the configured answerer, from what the caller may
 * open), saved to the caller's chat history as POST /v1/chat/ saves it, as one text a model reads.
 */
export async function mcpAsk(
  deps: ServiceDependencies,
  caller: Caller,
  input: McpAskInput,
  signal: AbortSignal,
): Promise<McpAnswer> {
  const chat = await startWebChat(deps, caller, { content: input.question, chat_id: input.chatId });
  let answer = '';
  let sources: readonly CitedSource[] = [];
  for await (const event of chat.events(signal)) {
    if (event.type === 'answer') answer += event.text;
    else if (event.type === 'sources') sources = event.sources;
  }
  const lines = sources.map(
    (source) =>
      `[${source.citation}] ${source.title}: ${documentLink(
        deps.config.publicUrl,
        { documentId: source.document_id, url: source.url },
        source.chunk_id,
      )}`,
  );
  const parts = [answer.trim()];
  if (lines.length > 0) parts.push(['Sources:', ...lines].join('\n'));
  parts.push(`chat_id: ${chat.chatId} (pass it as chat_id to ask a follow-up in this conversation)`);
  return { chatId: chat.chatId, text: parts.join('\n\n') };
}
