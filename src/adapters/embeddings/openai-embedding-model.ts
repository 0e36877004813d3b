import OpenAI from 'openai';
import { failureOfStatus, openAiClient, redactApiKey } from '../openai-compatible.js';
import { SourceError } from '../source-error.js';
import type { EmbeddingModel, EmbeddingPurpose } from './embedding-model.js';

export interface OpenAiEmbeddingModelOptions {
  /**
   * The API root, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`; `/embeddings`
   * is appended. A bare origin (`http://localhost:11434`, no path) gets `/v1`, since that is where
   * OpenAI, Ollama, TEI and vLLM all serve it; any other path is kept as written (Azure, proxies).
   */
  readonly baseUrl: string;
  /** Bearer token. Ollama, TEI and vLLM usually need none: leave it out. */
  readonly apiKey?: string;
  /** The server's model name, e.g. `text-embedding-3-small`, `nomic-embed-text`. */
  readonly model: string;
  /** Asks for shorter vectors (OpenAI's text-embedding-3 models; servers that support it). */
  readonly dimensions?: number;
  /** Most texts per request. Default 64. */
  readonly maxBatchSize?: number;
  /** One request's time limit. Default 60 s. */
  readonly timeoutMs?: number;
  /**
   * `base64` (default: a quarter of the JSON, the `openai` client's own default) or `float`. An
   * answer in the other format is accepted too, for servers that ignore the field.
   */
  readonly encodingFormat?: 'base64' | 'float';
}

const DEFAULT_MAX_BATCH_SIZE = 64;
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Embeddings from any OpenAI-compatible `POST /v1/embeddings` server (OpenAI, Ollama,
 * text-embeddings-inference, vLLM) through the `openai` client. Failures are `SourceError`s,
 * surfaced at once (no retries here: the job layer retries and honours `Retry-After`):
 * 401 `unauthorized`, 403 `permission_denied`, 404 `not_found` (unknown model), 429
 * `rate_limited` with `retryAfterSeconds` (but OpenAI's `insufficient_quota`, which no wait
 * cures, is `permission_denied`), 5xx `unavailable`, no answer in `timeoutMs` `timeout`, a
 * refused or reset connection `unavailable`, and `bad_response` for other 4xx (including an input
 * over the model's context length, 400 or 413) and for answers that break the contract (wrong
 * count, vectors of different lengths, not the asked `dimensions`). Error messages never carry the
 * API key, nor the server's echo of it.
 */
export class OpenAiEmbeddingModel implements EmbeddingModel {
  readonly id: string;
  readonly maxBatchSize: number;

  private readonly client: OpenAI;
  private readonly model: string;
  private readonly dimensions: number | undefined;
  private readonly encodingFormat: 'base64' | 'float';
  private readonly apiKey: string | undefined;

  constructor(options: OpenAiEmbeddingModelOptions) {
    const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new RangeError(`maxBatchSize must be a positive integer, got ${maxBatchSize}`);
    }
    if (
      options.dimensions !== undefined &&
      (!Number.isInteger(options.dimensions) || options.dimensions < 1)
    ) {
      throw new RangeError(`dimensions must be a positive integer, got ${options.dimensions}`);
    }
    if (options.model.trim() === '') throw new RangeError('model must not be empty');
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.maxBatchSize = maxBatchSize;
    this.encodingFormat = options.encodingFormat ?? 'base64';
    this.apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.id = `openai:${options.model}${options.dimensions === undefined ? '' : `:${options.dimensions}`}`;
    this.client = openAiClient({
      baseUrl: options.baseUrl,
      apiKey: this.apiKey,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  }

  async embed(
    texts: readonly string[],
    options: { readonly purpose: EmbeddingPurpose; readonly signal?: AbortSignal },
  ): Promise<number[][]> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    if (texts.length > this.maxBatchSize) {
      throw new RangeError(
        `${texts.length} texts in one call; ${this.id} takes at most ${this.maxBatchSize}`,
      );
    }
    let response: OpenAI.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create(
        {
          model: this.model,
          input: [...texts],
          encoding_format: this.encodingFormat,
          ...(this.dimensions === undefined ? {} : { dimensions: this.dimensions }),
        },
        signal === undefined ? {} : { signal },
      );
    } catch (error) {
      // The caller gave up: its own reason, as every other aborted operation here rejects.
      if (signal?.aborted) throw signal.reason;
      throw this.toSourceError(error);
    }
    return this.readVectors(response, texts.length);
  }

  /** The vectors in input order, or `bad_response` when the answer breaks the contract. */
  private readVectors(response: OpenAI.CreateEmbeddingResponse, expected: number): number[][] {
    const data: unknown = (response as { data?: unknown }).data;
    if (!Array.isArray(data)) throw this.badResponse('the answer has no data list');
    if (data.length !== expected) {
      throw this.badResponse(`${data.length} vectors for ${expected} texts`);
    }
    const vectors = new Array<number[] | undefined>(expected).fill(undefined);
    for (const item of data as unknown[]) {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected) {
        throw this.badResponse(`a vector has index ${JSON.stringify(index)}`);
      }
      if (vectors[index] !== undefined) throw this.badResponse(`two vectors have index ${index}`);
      vectors[index] = this.decode(embedding, index);
    }
    const length = vectors[0]?.length ?? 0;
    if (length === 0) throw this.badResponse('empty vectors');
    if (this.dimensions !== undefined && length !== this.dimensions) {
      throw this.badResponse(`vectors of ${length} dimensions, not the ${this.dimensions} asked for`);
    }
    for (const [index, vector] of vectors.entries()) {
      if (vector?.length !== length) {
        throw this.badResponse(`vector ${index} has ${vector?.length} dimensions, vector 0 has ${length}`);
      }
    }
    return vectors as number[][];
  }

  private decode(embedding: unknown, index: number): number[] {
    let vector: number[];
    if (typeof embedding === 'string') {
      const bytes = Buffer.from(embedding, 'base64');
      if (bytes.length % 4 !== 0) throw this.badResponse(`vector ${index} is not whole float32 values`);
      vector = new Array<number>(bytes.length / 4);
      for (let offset = 0; offset < bytes.length; offset += 4) vector[offset / 4] = bytes.readFloatLE(offset);
    } else if (Array.isArray(embedding)) {
      vector = embedding as number[];
    } else {
      throw this.badResponse(`vector ${index} is neither a list nor base64`);
    }
    // pgvector refuses NaN and infinities; better to say which server sent them.
    if (!vector.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      throw this.badResponse(`vector ${index} holds values that are not finite numbers`);
    }
    return vector;
  }

  private badResponse(detail: string): SourceError {
    return new SourceError('bad_response', `embedding server answered badly for ${this.id}: ${detail}`);
  }

  private toSourceError(error: unknown): SourceError {
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      return new SourceError('timeout', `embedding server did not answer in time for ${this.id}`, {
        cause: error,
      });
    }
    if (error instanceof OpenAI.APIConnectionError || error instanceof OpenAI.APIUserAbortError) {
      // Its cause is the network error (refused, reset, DNS); it carries no headers or key.
      return new SourceError('unavailable', `embedding server unreachable for ${this.id}: ${error.message}`, {
        cause: error,
      });
    }
    if (!(error instanceof OpenAI.APIError) || error.status === undefined) {
      return new SourceError(
        'bad_response',
        `embedding request failed for ${this.id}: ${this.redact(String(error))}`,
      );
    }
    const status = error.status;
    // The raw APIError is not kept as the cause: its body may echo part of the API key.
    const detail = `embedding server answered ${status} for ${this.id}: ${this.redact(error.message)}`;
    const { failure, retryAfterSeconds } = failureOfStatus(error);
    if (
      failure === 'bad_response' &&
      (status === 413 ||
        (status === 400 && /context length|too long|too many tokens|maximum.*tokens/i.test(error.message)))
    ) {
      // Retrying cannot help: the chunk is longer than the model takes, so the chunker's limit
      // is wrong for this model.
      return new SourceError(
        'bad_response',
        `${detail} (an input is longer than the model's context length: lower the chunk size)`,
        { status },
      );
    }
    return new SourceError(failure, detail, {
      status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }

  private redact(message: string): string {
    return redactApiKey(message, this.apiKey);
  }
}
