// POST /v1/chat/ as the web app calls it: the NDJSON stream read whole into one answer.

export interface ChatSource {
  readonly file_path: string;
  readonly citation: number;
}

export interface ChatAnswer {
  readonly text: string;
  readonly sources: readonly ChatSource[];
  readonly chatId: string;
}

/** Asks one question (in `chatId`'s chat when given, else a new one) and reads the whole stream. */
export async function askChat(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  question: string,
  chatId?: string,
): Promise<ChatAnswer> {
  const response = await fetch(`${baseUrl}/v1/chat/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/x-ndjson' },
    body: JSON.stringify({ content: question, ...(chatId === undefined ? {} : { chat_id: chatId }) }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = await response.text();
  if (response.status !== 200) {
    throw new Error(`POST /v1/chat/ answered ${response.status}: ${body.slice(0, 300)}`);
  }
  let text = '';
  let sources: ChatSource[] = [];
  let done: string | undefined;
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as {
      answer?: string;
      sources?: ChatSource[];
      done?: boolean;
      chat_id?: string;
      error?: { code: string; message: string };
    };
    if (event.error !== undefined) {
      throw new Error(`the answer failed: ${event.error.code}: ${event.error.message}`);
    }
    if (typeof event.answer === 'string') text += event.answer;
    if (Array.isArray(event.sources)) sources = event.sources;
    if (event.done === true) done = event.chat_id;
  }
  if (done === undefined) throw new Error('the stream ended without its done line');
  return { text, sources, chatId: done };
}

/** The external id of a cited upload (`upload/<external_id>`). */
export function externalIdOf(source: ChatSource): string {
  return source.file_path.slice(source.file_path.indexOf('/') + 1);
}
