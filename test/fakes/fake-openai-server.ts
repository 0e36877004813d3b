import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { HashingEmbeddingModel } from '../../src/adapters/embeddings/hashing-embedding-model.js';
import { LocalHttpServer, readBody, sendJson } from './local-http-server.js';

/**
 * A local stand-in for an OpenAI-compatible API (OpenAI, Ollama, TEI, vLLM) that speaks OpenAI's
 * wire format. Point the real `openai` client at `baseUrl` (it ends with `/v1`).
 *
 * ```ts
 * const server = await FakeOpenAiServer.start({ dimensions: 64, apiKey: 'sk-test' });
 * const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-test' });
 * server.failNext({ status: 429, retryAfter: 2 });   // the next request gets 429 + Retry-After: 2
 * server.requests;                                   // what arrived: model, batch size, format…
 * server.busyMs();                                   // time with at least one request in service
 * await server.close();
 * ```
 *
 * Endpoints:
 * - `POST /v1/embeddings`: body `{model, input: string | string[], dimensions?, encoding_format?:
 *   'float' | 'base64'}`; answers `{object: 'list', data: [{object: 'embedding', index,
 *   embedding}], model, usage: {prompt_tokens, total_tokens}}`. `float` gives number arrays;
 *   `base64` gives little-endian float32 bytes, base64-encoded (what the `openai` client asks for
 *   by default). Vectors come from `HashingEmbeddingModel` with the request's `dimensions` (else
 *   the server's), so texts sharing words are closer, and the same text always gets the same
 *   vector.
 * - `POST /v1/chat/completions`: body `{model, messages: [{role, content}], stream?, max_tokens?,
 *   temperature?}`. Replies with `chatScript.reply` (a text, or a function of the messages;
 *   default: "Fake answer."). `stream: true` answers `text/event-stream`: `data:
 *   {chat.completion.chunk}` lines (a first one with the role, `chunkSize` characters of content
 *   each `chunkDelayMs` apart, a last one with `finish_reason`) then `data: [DONE]`;
 *   `chatScript.failAfterChunks` breaks the stream after that many content chunks (`destroy` drops
 *   the connection, `error_event` sends OpenAI's `data: {"error": …}` and ends), and
 *   `chatScript.hangAfterChunks` never finishes it. Otherwise a `chat.completion` object. Each
 *   request is in `chatRequests` with its messages and whether the client closed it early.
 * - Anything else: 404 in OpenAI's error shape. `routes` maps `METHOD /path` to a handler, so the
 *   chat-completions endpoint can be added beside embeddings.
 *
 * Errors use OpenAI's shape `{"error": {"message", "type", "param", "code"}}`: 401 when `apiKey`
 * is set and the request lacks `Authorization: Bearer <apiKey>` (a wrong key is echoed masked,
 * as OpenAI does), 404 `model_not_found` for a model outside `models`, 400 for a malformed body,
 * more than `maxBatchSize` inputs or an input over `maxInputTokens` (OpenAI's context-length
 * message), and whatever `failNext` scripted.
 */

export interface FakeOpenAiServerOptions {
  /** Vector length when a request names no `dimensions`. Default 64. */
  readonly dimensions?: number;
  /** Added to every request before it is answered, whatever its batch size (for benchmarks). */
  readonly delayMsPerRequest?: number;
  /** When set, every request must carry `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** More inputs than this in one request get 400. Default: no limit. */
  readonly maxBatchSize?: number;
  /** The models that exist; others get 404. Default: every model exists. */
  readonly models?: readonly string[];
  /** An input with more words than this gets OpenAI's 400 context-length error. Default: no limit. */
  readonly maxInputTokens?: number;
}

/** A scripted HTTP failure: the next `times` requests get `status` in OpenAI's error shape. */
export interface ScriptedOpenAiFailure {
  readonly status: number;
  /** Seconds, sent as `Retry-After`. */
  readonly retryAfter?: number;
  /** Milliseconds, sent as `retry-after-ms` (OpenAI sends both on some 429s). */
  readonly retryAfterMs?: number;
  /** Default 1. */
  readonly times?: number;
  readonly message?: string;
  /** OpenAI's `error.code`, e.g. `rate_limit_exceeded`, `insufficient_quota`. */
  readonly code?: string;
}

/**
 * Ways a scripted successful answer can break the contract: `drop_last` leaves out the last
 * vector, `ragged` shortens one vector, `not_a_list` answers `{"data": null}`.
 */
export type EmbeddingTamper = 'drop_last' | 'ragged' | 'not_a_list';

/** One request the server received. */
export interface RecordedOpenAiRequest {
  /** `POST /v1/embeddings`. */
  readonly route: string;
  readonly model: string | undefined;
  /** How many inputs (1 for a string input). */
  readonly inputCount: number;
  readonly dimensions: number | undefined;
  readonly encodingFormat: string | undefined;
  readonly authorization: string | undefined;
  /** `performance.now()` when the request was read, and when its answer was written. */
  readonly startedAt: number;
  endedAt: number | undefined;
  status: number | undefined;
}

/** How the next chat completions are answered; tests set `server.chatScript`. */
export interface ChatCompletionScript {
  /** The reply text, or a function of the request's messages. Default: "Fake answer." */
  readonly reply?: string | ((messages: readonly RecordedChatMessage[]) => string);
  /** Characters of content per streamed chunk. Default 8. */
  readonly chunkSize?: number;
  /** Pause before each streamed content chunk. Default 0. */
  readonly chunkDelayMs?: number;
  /** Breaks the stream after this many content chunks: drops the connection, or sends an error event. */
  readonly failAfterChunks?: { readonly chunks: number; readonly how: 'destroy' | 'error_event' };
  /** Sends this many content chunks, then nothing more until the client goes away. */
  readonly hangAfterChunks?: number;
}

export interface RecordedChatMessage {
  readonly role: string;
  readonly content: string;
}

/** One chat-completions request and how its answer ended. */
export interface RecordedChatRequest {
  readonly model: string | undefined;
  readonly messages: readonly RecordedChatMessage[];
  readonly stream: boolean;
  readonly maxTokens: number | undefined;
  readonly temperature: number | undefined;
  /** True when the client closed the connection before the answer was complete. */
  closedByClient: boolean;
  /** True once the whole answer (up to `[DONE]`) was written. */
  completed: boolean;
}

/** A streamed chat answer, written by `writeChatStream` after the checks every route shares. */
interface ChatStreamPlan {
  readonly text: string;
  readonly model: string;
  readonly script: ChatCompletionScript;
  readonly record: RecordedChatRequest;
}

type OpenAiAnswer = {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  stream?: ChatStreamPlan;
};

type RouteHandler = (body: Record<string, unknown>, record: RecordedOpenAiRequest) => OpenAiAnswer;

export class FakeOpenAiServer {
  /** Every request, in arrival order. */
  readonly requests: RecordedOpenAiRequest[] = [];
  /** Every chat-completions request, in arrival order. */
  readonly chatRequests: RecordedChatRequest[] = [];
  /** How chat completions are answered; tests may change it. */
  chatScript: ChatCompletionScript = {};
  /** Added to every request before it is answered; tests may change it. */
  delayMsPerRequest: number;
  /** Answer `data` in reverse index order (servers need not keep order); tests may change it. */
  answerOutOfOrder = false;
  /** Answer at the server's own dimensions whatever the request asks, as some servers do. */
  ignoreRequestedDimensions = false;

  private readonly routes: ReadonlyMap<string, RouteHandler>;
  private readonly models = new Map<number, HashingEmbeddingModel>();
  private readonly failures: { remaining: number; failure: ScriptedOpenAiFailure }[] = [];
  private readonly tampers: { remaining: number; tamper: EmbeddingTamper }[] = [];
  private active = 0;
  private peak = 0;
  private busyTotal = 0;
  private busySince = 0;

  private constructor(
    private readonly http: LocalHttpServer,
    /** Base URL ending in `/v1`, ready for `new OpenAI({ baseURL })`. */
    readonly baseUrl: string,
    private readonly options: FakeOpenAiServerOptions,
  ) {
    this.delayMsPerRequest = options.delayMsPerRequest ?? 0;
    this.routes = new Map<string, RouteHandler>([
      ['POST /v1/embeddings', (body, record) => this.embeddings(body, record)],
      ['POST /v1/chat/completions', (body, record) => this.chatCompletions(body, record)],
    ]);
  }

  /** Listens on 127.0.0.1 at a free port. */
  static async start(options: FakeOpenAiServerOptions = {}): Promise<FakeOpenAiServer> {
    const http = await LocalHttpServer.start();
    const fake = new FakeOpenAiServer(http, http.url('/v1'), options);
    http.serve((request, response) => fake.handle(request, response));
    return fake;
  }

  /** The vector this server answers for `text` at `dimensions` (default: the server's). */
  vectorFor(text: string, dimensions = this.options.dimensions ?? 64): number[] {
    return this.modelFor(dimensions).vectorFor(text);
  }

  /** Answers the next `times` requests (any route) with an HTTP error in OpenAI's shape. */
  failNext(failure: ScriptedOpenAiFailure): void {
    this.failures.push({ remaining: failure.times ?? 1, failure });
  }

  /** Answers the next `times` embedding requests with HTTP 200 and a broken body. */
  tamperNext(tamper: EmbeddingTamper, times = 1): void {
    this.tampers.push({ remaining: times, tamper });
  }

  /** Wall time in ms during which at least one request was being served (union of intervals). */
  busyMs(): number {
    return this.busyTotal + (this.active > 0 ? performance.now() - this.busySince : 0);
  }

  /** Most requests in service at once since the start (or the last `clearRecords`). */
  peakConcurrentRequests(): number {
    return this.peak;
  }

  /** Forgets requests, busy time, the peak and scripted failures; keeps options. */
  clearRecords(): void {
    this.requests.length = 0;
    this.chatRequests.length = 0;
    this.failures.length = 0;
    this.tampers.length = 0;
    this.busyTotal = 0;
    this.busySince = performance.now();
    this.peak = this.active;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.enter();
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.leave();
    };
    // A client that gives up (time-out, abort) closes the socket: it is no longer being served.
    response.once('close', leave);
    try {
      await this.serve(request, response);
    } finally {
      leave();
    }
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const route = `${request.method ?? 'GET'} ${url.pathname.replace(/\/+$/, '')}`;
    const raw = await readBody(request);
    let body: Record<string, unknown> = {};
    let parseFailed = false;
    try {
      const parsed: unknown = raw === '' ? {} : JSON.parse(raw);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        body = parsed as Record<string, unknown>;
      } else {
        parseFailed = true;
      }
    } catch {
      parseFailed = true;
    }
    const input = body.input;
    const record: RecordedOpenAiRequest = {
      route,
      model: typeof body.model === 'string' ? body.model : undefined,
      inputCount: Array.isArray(input) ? input.length : input === undefined ? 0 : 1,
      dimensions: typeof body.dimensions === 'number' ? body.dimensions : undefined,
      encodingFormat: typeof body.encoding_format === 'string' ? body.encoding_format : undefined,
      authorization: request.headers.authorization,
      startedAt: performance.now(),
      endedAt: undefined,
      status: undefined,
    };
    this.requests.push(record);

    if (this.delayMsPerRequest > 0) await delay(this.delayMsPerRequest);
    if (response.destroyed) {
      // The client gave up while we waited: a scripted failure or tamper stays for the next request.
      record.endedAt = performance.now();
      return;
    }

    const answer = this.answer(route, body, parseFailed, record, request.headers.authorization);
    if (answer.stream !== undefined) {
      await this.writeChatStream(response, answer.stream);
      record.status = answer.status;
      record.endedAt = performance.now();
      return;
    }
    record.status = answer.status;
    record.endedAt = performance.now();
    if (response.destroyed) return;
    sendJson(response, answer.status, answer.body, answer.headers);
  }

  private answer(
    route: string,
    body: Record<string, unknown>,
    parseFailed: boolean,
    record: RecordedOpenAiRequest,
    authorization: string | undefined,
  ): OpenAiAnswer {
    const refusal = this.authorise(authorization);
    if (refusal !== undefined) return refusal;
    const scripted = this.takeFailure();
    if (scripted !== undefined) return scripted;
    const handler = this.routes.get(route);
    if (handler === undefined) {
      return openAiError(404, `Invalid URL (${route})`, 'invalid_request_error', null, null);
    }
    if (parseFailed) {
      return openAiError(
        400,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
        'invalid_request_error',
        null,
        null,
      );
    }
    return handler(body, record);
  }

  private authorise(authorization: string | undefined): OpenAiAnswer | undefined {
    const expected = this.options.apiKey;
    if (expected === undefined) return undefined;
    const given = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
    if (given === expected) return undefined;
    if (given === undefined || given === '') {
      return openAiError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        'invalid_request_error',
        null,
        null,
      );
    }
    // OpenAI echoes the start and end of a wrong key; so does this fake, to test redaction.
    return openAiError(
      401,
      `Incorrect API key provided: ${maskKey(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      'invalid_request_error',
      null,
      'invalid_api_key',
    );
  }

  private unknownModel(model: string): boolean {
    return this.options.models !== undefined && !this.options.models.includes(model);
  }

  /** OpenAI's answer to a request naming no model (400) or one it does not have (404). */
  private modelRefusal(model: string | undefined): OpenAiAnswer {
    if (model === undefined) {
      return openAiError(400, 'you must provide a model parameter', 'invalid_request_error', null, null);
    }
    return openAiError(
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      'invalid_request_error',
      null,
      'model_not_found',
    );
  }

  private embeddings(body: Record<string, unknown>, record: RecordedOpenAiRequest): OpenAiAnswer {
    const model = record.model;
    if (model === undefined || this.unknownModel(model)) return this.modelRefusal(model);
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (
      !Array.isArray(inputs) ||
      inputs.length === 0 ||
      !inputs.every((input): input is string => typeof input === 'string')
    ) {
      return openAiError(
        400,
        "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
        'invalid_request_error',
        null,
        null,
      );
    }
    const maxBatchSize = this.options.maxBatchSize;
    if (maxBatchSize !== undefined && inputs.length > maxBatchSize) {
      return openAiError(
        400,
        `Too many inputs. The max number of inputs is ${maxBatchSize}. We recommend sending fewer inputs per request.`,
        'invalid_request_error',
        'input',
        null,
      );
    }
    const serverDimensions = this.options.dimensions ?? 64;
    const dimensions = this.ignoreRequestedDimensions
      ? serverDimensions
      : (body.dimensions ?? serverDimensions);
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1) {
      return openAiError(
        400,
        `Invalid value for 'dimensions': ${JSON.stringify(dimensions)}.`,
        'invalid_request_error',
        'dimensions',
        null,
      );
    }
    const encodingFormat = body.encoding_format ?? 'float';
    if (encodingFormat !== 'float' && encodingFormat !== 'base64') {
      return openAiError(
        400,
        `Invalid value for 'encoding_format': ${JSON.stringify(encodingFormat)}. Supported values are: 'float' and 'base64'.`,
        'invalid_request_error',
        'encoding_format',
        null,
      );
    }
    const tokenCounts = inputs.map(countTokens);
    const maxInputTokens = this.options.maxInputTokens;
    const longest = Math.max(...tokenCounts);
    if (maxInputTokens !== undefined && longest > maxInputTokens) {
      return openAiError(
        400,
        `This model's maximum context length is ${maxInputTokens} tokens, however you requested ${longest} tokens (${longest} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
        'invalid_request_error',
        null,
        null,
      );
    }

    const vectors = inputs.map((input) => this.modelFor(dimensions).vectorFor(input));
    const tamper = this.takeTamper();
    if (tamper === 'not_a_list') return { status: 200, body: { object: 'list', data: null, model } };
    if (tamper === 'drop_last') vectors.pop();
    if (tamper === 'ragged' && vectors[0] !== undefined) vectors[0] = vectors[0].slice(0, -1);

    const data = vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encodingFormat === 'base64' ? toBase64Float32(vector) : vector,
    }));
    if (this.answerOutOfOrder) data.reverse();
    const promptTokens = tokenCounts.reduce((sum, count) => sum + count, 0);
    return {
      status: 200,
      body: {
        object: 'list',
        data,
        model,
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      },
    };
  }

  private chatCompletions(body: Record<string, unknown>, record: RecordedOpenAiRequest): OpenAiAnswer {
    const model = record.model;
    if (model === undefined || this.unknownModel(model)) return this.modelRefusal(model);
    const messages = body.messages;
    if (
      !Array.isArray(messages) ||
      messages.length === 0 ||
      !messages.every(
        (message): message is RecordedChatMessage =>
          typeof message === 'object' &&
          message !== null &&
          typeof (message as Record<string, unknown>).role === 'string' &&
          typeof (message as Record<string, unknown>).content === 'string',
      )
    ) {
      return openAiError(
        400,
        "Invalid value for 'messages': expected a non-empty array of {role, content}.",
        'invalid_request_error',
        'messages',
        null,
      );
    }
    const stream = body.stream === true;
    const chat: RecordedChatRequest = {
      model,
      messages: messages.map((message) => ({ role: message.role, content: message.content })),
      stream,
      maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
      temperature: typeof body.temperature === 'number' ? body.temperature : undefined,
      closedByClient: false,
      completed: false,
    };
    this.chatRequests.push(chat);
    const script = this.chatScript;
    const reply = script.reply ?? 'Fake answer.';
    const text = typeof reply === 'function' ? reply(chat.messages) : reply;
    if (stream) return { status: 200, body: null, stream: { text, model, script, record: chat } };
    chat.completed = true;
    const promptTokens = chat.messages.reduce((sum, message) => sum + countTokens(message.content), 0);
    const completionTokens = countTokens(text);
    return {
      status: 200,
      body: {
        id: `chatcmpl-${this.chatRequests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          { index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      },
    };
  }

  /** OpenAI's streamed chat answer: `data: {chunk}` events, then `data: [DONE]`, or the scripted break. */
  private async writeChatStream(response: ServerResponse, plan: ChatStreamPlan): Promise<void> {
    const { script, record } = plan;
    response.once('close', () => {
      if (!record.completed) record.closedByClient = true;
    });
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const id = `chatcmpl-${this.chatRequests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const event = (delta: Record<string, unknown>, finishReason: string | null) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: plan.model,
        system_fingerprint: null,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      })}\n\n`;
    // Each write's promise settles once its bytes are with the kernel: a scripted drop comes after them.
    let written = Promise.resolve();
    const send = (data: string) => {
      written = new Promise<void>((resolve) => response.write(data, () => resolve()));
    };
    send(event({ role: 'assistant', content: '' }, null));
    const size = Math.max(1, script.chunkSize ?? 8);
    const pieces: string[] = [];
    for (let start = 0; start < plan.text.length; start += size)
      pieces.push(plan.text.slice(start, start + size));
    for (let index = 0; ; index += 1) {
      if (response.destroyed) return;
      if (script.failAfterChunks?.chunks === index) {
        if (script.failAfterChunks.how === 'destroy') {
          await written;
          response.destroy();
          return;
        }
        response.end(
          `data: ${JSON.stringify({
            error: {
              message: 'The server had an error while processing your request. Sorry about that!',
              type: 'server_error',
              param: null,
              code: null,
            },
          })}\n\n`,
        );
        return;
      }
      if (script.hangAfterChunks === index) {
        // Never finishes: the client's disconnect (or `close()`) ends it.
        await new Promise<void>((resolve) => response.once('close', () => resolve()));
        return;
      }
      const piece = pieces[index];
      if (piece === undefined) break;
      if (script.chunkDelayMs !== undefined && script.chunkDelayMs > 0) await delay(script.chunkDelayMs);
      if (response.destroyed) return;
      send(event({ content: piece }, null));
    }
    send(event({}, 'stop'));
    record.completed = true;
    response.end('data: [DONE]\n\n');
  }

  private takeFailure(): OpenAiAnswer | undefined {
    const next = this.failures[0];
    if (next === undefined) return undefined;
    next.remaining -= 1;
    if (next.remaining <= 0) this.failures.shift();
    const { failure } = next;
    const headers: Record<string, string> = {};
    if (failure.retryAfter !== undefined) headers['retry-after'] = String(failure.retryAfter);
    if (failure.retryAfterMs !== undefined) headers['retry-after-ms'] = String(failure.retryAfterMs);
    const [type, message] =
      failure.status === 429
        ? ['requests', 'Rate limit reached for requests. Please try again later.']
        : failure.status >= 500
          ? ['server_error', 'The server had an error while processing your request. Sorry about that!']
          : ['invalid_request_error', `Scripted failure ${failure.status}.`];
    const code = failure.code ?? (failure.status === 429 ? 'rate_limit_exceeded' : null);
    return { ...openAiError(failure.status, failure.message ?? message, type, null, code), headers };
  }

  private takeTamper(): EmbeddingTamper | undefined {
    const next = this.tampers[0];
    if (next === undefined) return undefined;
    next.remaining -= 1;
    if (next.remaining <= 0) this.tampers.shift();
    return next.tamper;
  }

  private modelFor(dimensions: number): HashingEmbeddingModel {
    let model = this.models.get(dimensions);
    if (model === undefined) {
      model = new HashingEmbeddingModel({ dimensions });
      this.models.set(dimensions, model);
    }
    return model;
  }

  private enter(): void {
    if (this.active === 0) this.busySince = performance.now();
    this.active += 1;
    this.peak = Math.max(this.peak, this.active);
  }

  private leave(): void {
    this.active -= 1;
    if (this.active === 0) this.busyTotal += performance.now() - this.busySince;
  }
}

function openAiError(
  status: number,
  message: string,
  type: string,
  param: string | null,
  code: string | null,
): OpenAiAnswer {
  return { status, body: { error: { message, type, param, code } } };
}

/** Little-endian float32 bytes, base64: OpenAI's `encoding_format: 'base64'`. */
function toBase64Float32(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => {
    bytes.writeFloatLE(value, index * 4);
  });
  return bytes.toString('base64');
}

/** Words stand in for tokens: close enough for usage figures and the context-length check. */
function countTokens(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

function maskKey(key: string): string {
  if (key.length <= 8) return '*'.repeat(key.length);
  return `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;
}
