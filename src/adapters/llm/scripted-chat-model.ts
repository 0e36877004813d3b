import {
  type ChatModel,
  type ChatModelCallOptions,
  ChatModelError,
  type ChatModelMessage,
} from './chat-model.js';

/** What the scripted model does on its next calls. */
export interface ChatModelScript {
  /** The reply, or a function of the prompt. Default: "Scripted reply." */
  readonly reply?: string | ((messages: readonly ChatModelMessage[]) => string);
  /** Characters per streamed piece. Default 6. */
  readonly chunkSize?: number;
  /** Throws `failure` after this many pieces. */
  readonly failAfterChunks?: number;
  readonly failure?: ChatModelError;
  /** After the pieces (or `hangAfterChunks` of them), waits until the signal aborts. */
  readonly hangAfterChunks?: number;
}

/** One call the model received. */
export interface ScriptedChatCall {
  readonly messages: readonly ChatModelMessage[];
  /** The call's limits, when it set any. */
  readonly maxTokens: number | undefined;
  readonly temperature: number | undefined;
  /** True once the caller's signal aborted while the call was still streaming. */
  aborted: boolean;
}

/** A fake `ChatModel` for unit tests: streams a scripted reply, fails or hangs on cue, records prompts. */
export class ScriptedChatModel implements ChatModel {
  readonly id = 'scripted';
  readonly calls: ScriptedChatCall[] = [];

  constructor(public script: ChatModelScript = {}) {}

  async *stream(
    messages: readonly ChatModelMessage[],
    { signal, maxTokens, temperature }: ChatModelCallOptions,
  ): AsyncGenerator<string, void, undefined> {
    signal.throwIfAborted();
    const call: ScriptedChatCall = { messages, maxTokens, temperature, aborted: false };
    this.calls.push(call);
    const {
      reply = 'Scripted reply.',
      chunkSize = 6,
      failAfterChunks,
      failure,
      hangAfterChunks,
    } = this.script;
    const text = typeof reply === 'function' ? reply(messages) : reply;
    const pieces: string[] = [];
    for (let start = 0; start < text.length; start += chunkSize)
      pieces.push(text.slice(start, start + chunkSize));
    for (const [index, piece] of pieces.entries()) {
      if (failAfterChunks === index) throw failure ?? new ChatModelError('unavailable', 'scripted failure');
      if (hangAfterChunks === index) break;
      // A real stream arrives over time: let other work (and aborts) in between.
      await new Promise((resolve) => setImmediate(resolve));
      if (signal.aborted) {
        call.aborted = true;
        throw signal.reason;
      }
      yield piece;
    }
    if (failAfterChunks !== undefined && failAfterChunks >= pieces.length) {
      throw failure ?? new ChatModelError('unavailable', 'scripted failure');
    }
    if (hangAfterChunks !== undefined) {
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      call.aborted = true;
      throw signal.reason;
    }
  }
}
