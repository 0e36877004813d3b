import { SourceError } from '../source-error.js';
import type { EmbeddingModel, EmbeddingPurpose } from './embedding-model.js';

export interface EmbeddingBatcherOptions {
  /** Requests in flight at once. Default 2: one being computed while the next is on the wire. */
  readonly maxConcurrentRequests?: number;
  /**
   * While a request is in flight and a slot is free, how long a partial batch may wait for more
   * texts before it goes anyway. Default 5 ms; 0 waits for the next macrotask only. Never applies
   * when nothing is in flight.
   */
  readonly lingerMs?: number;
  /**
   * What every text is embedded as. Default `document`: the batcher serves indexing; a search
   * query goes to the model directly rather than queueing behind a busy pipeline.
   */
  readonly purpose?: EmbeddingPurpose;
}

/** One `embed` call: its texts, where their vectors go, and how far it has been sent. */
interface Caller {
  readonly texts: readonly string[];
  readonly vectors: (number[] | undefined)[];
  /** The first text not yet put in a batch. */
  nextToSend: number;
  /** Texts sent whose vectors have not come back. */
  awaiting: number;
  settled: boolean;
  readonly resolve: (vectors: number[][]) => void;
  readonly reject: (error: unknown) => void;
  readonly detach: () => void;
}

/** A run of one caller's texts inside a batch. */
interface Slice {
  readonly caller: Caller;
  readonly from: number;
  readonly count: number;
}

interface InFlight {
  readonly slices: readonly Slice[];
  readonly controller: AbortController;
}

/**
 * Process-wide batching in front of an `EmbeddingModel`: the pipeline's many files and jobs call
 * `embed` with a few texts each, and the server gets full batches of `model.maxBatchSize`, up to
 * `maxConcurrentRequests` at once, so it is kept busy with as few requests as possible. Each
 * caller gets its own vectors in order; a caller with more texts than a batch is spread over
 * several.
 *
 * When to send: as in `batcher.ts`, a lone caller waits only for the current turn of the event
 * loop (callers arriving in it share a batch). A full batch goes as soon as a slot is free. A
 * partial batch goes at once when nothing is in flight; while requests are in flight it waits up
 * to `lingerMs` for more texts (those requests' callers usually come back with more).
 *
 * Failures: a failed request rejects only the callers with texts in it, with the model's own
 * error (a `SourceError`), and drops their texts still queued. An aborted caller is rejected with
 * its signal's reason at once; its queued texts are dropped, and a request left with no caller is
 * aborted.
 */
export class EmbeddingBatcher {
  /** The wrapped model's id: the vector space of every vector this returns. */
  readonly id: string;
  /** The same id, under the name the indexing pipeline's `ChunkEmbedder` reads. */
  readonly model: string;

  private readonly queue: Caller[] = [];
  private readonly inFlight = new Set<InFlight>();
  private readonly maxConcurrentRequests: number;
  private readonly lingerMs: number;
  private readonly purpose: EmbeddingPurpose;
  private pumpScheduled = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  private lingerExpired = false;

  constructor(
    private readonly embeddingModel: EmbeddingModel,
    options: EmbeddingBatcherOptions = {},
  ) {
    this.id = embeddingModel.id;
    this.model = embeddingModel.id;
    this.purpose = options.purpose ?? 'document';
    this.maxConcurrentRequests = options.maxConcurrentRequests ?? 2;
    this.lingerMs = options.lingerMs ?? 5;
    if (!Number.isInteger(this.maxConcurrentRequests) || this.maxConcurrentRequests < 1) {
      throw new RangeError(
        `maxConcurrentRequests must be a positive integer, got ${this.maxConcurrentRequests}`,
      );
    }
    if (!(this.lingerMs >= 0)) throw new RangeError(`lingerMs must be 0 or more, got ${this.lingerMs}`);
  }

  /** One vector per text, in order, however many texts; batched with other callers' texts. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise<number[][]>((resolve, reject) => {
      const onAbort = () => this.abandon(caller, signal?.reason);
      const caller: Caller = {
        texts,
        vectors: new Array<number[] | undefined>(texts.length).fill(undefined),
        nextToSend: 0,
        awaiting: 0,
        settled: false,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(caller);
      this.schedulePump();
    });
  }

  /** Texts waiting to be sent (for monitoring and tests). */
  get queuedTexts(): number {
    return this.queue.reduce((sum, caller) => sum + (caller.texts.length - caller.nextToSend), 0);
  }

  /** Requests to the model now in flight. */
  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight.size < this.maxConcurrentRequests) {
      if (this.queue.length === 0) break;
      const full = this.queuedTextsUpTo(this.embeddingModel.maxBatchSize) >= this.embeddingModel.maxBatchSize;
      if (!full && this.inFlight.size > 0 && !this.lingerExpired) {
        this.armLinger();
        return;
      }
      this.send(this.takeBatch());
    }
    // Nothing more can go now: a later pump (slot freed, new caller) decides afresh.
    this.lingerExpired = false;
    this.clearLinger();
  }

  private armLinger(): void {
    if (this.lingerTimer !== undefined) return;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      this.lingerExpired = true;
      this.pump();
    }, this.lingerMs);
  }

  private clearLinger(): void {
    if (this.lingerTimer === undefined) return;
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
  }

  /** Queued texts, counted only up to `limit` (the queue may be long). */
  private queuedTextsUpTo(limit: number): number {
    let count = 0;
    for (const caller of this.queue) {
      count += caller.texts.length - caller.nextToSend;
      if (count >= limit) break;
    }
    return count;
  }

  /** Up to `maxBatchSize` queued texts, oldest callers first; a caller may be left half sent. */
  private takeBatch(): Slice[] {
    const slices: Slice[] = [];
    let room = this.embeddingModel.maxBatchSize;
    while (room > 0) {
      const caller = this.queue[0];
      if (caller === undefined) break;
      const count = Math.min(room, caller.texts.length - caller.nextToSend);
      slices.push({ caller, from: caller.nextToSend, count });
      caller.nextToSend += count;
      caller.awaiting += count;
      room -= count;
      if (caller.nextToSend === caller.texts.length) this.queue.shift();
    }
    return slices;
  }

  private send(slices: readonly Slice[]): void {
    const request: InFlight = { slices, controller: new AbortController() };
    this.inFlight.add(request);
    const texts = slices.flatMap((slice) => slice.caller.texts.slice(slice.from, slice.from + slice.count));
    this.embedBatch(texts, request.controller.signal)
      .then(
        (vectors) => this.deliver(slices, vectors),
        (error: unknown) => this.fail(slices, error),
      )
      .finally(() => {
        this.inFlight.delete(request);
        this.pump();
      });
  }

  private async embedBatch(texts: readonly string[], signal: AbortSignal): Promise<number[][]> {
    const vectors = await this.embeddingModel.embed(texts, { purpose: this.purpose, signal });
    if (vectors.length !== texts.length) {
      throw new SourceError(
        'bad_response',
        `${this.id} returned ${vectors.length} vectors for ${texts.length} texts`,
      );
    }
    return vectors;
  }

  private deliver(slices: readonly Slice[], vectors: readonly number[][]): void {
    let offset = 0;
    for (const { caller, from, count } of slices) {
      for (let index = 0; index < count; index += 1) caller.vectors[from + index] = vectors[offset + index];
      offset += count;
      caller.awaiting -= count;
      if (!caller.settled && caller.awaiting === 0 && caller.nextToSend === caller.texts.length) {
        this.settle(caller);
        caller.resolve(caller.vectors as number[][]);
      }
    }
  }

  private fail(slices: readonly Slice[], error: unknown): void {
    for (const { caller } of slices) {
      if (caller.settled) continue;
      this.settle(caller);
      this.dropQueued(caller);
      caller.reject(error);
    }
  }

  private abandon(caller: Caller, reason: unknown): void {
    if (caller.settled) return;
    this.settle(caller);
    this.dropQueued(caller);
    caller.reject(reason);
    // A request whose every caller has gone is wasted work for the server.
    for (const request of this.inFlight) {
      if (request.slices.every((slice) => slice.caller.settled)) request.controller.abort(reason);
    }
  }

  private settle(caller: Caller): void {
    caller.settled = true;
    caller.detach();
  }

  private dropQueued(caller: Caller): void {
    const position = this.queue.indexOf(caller);
    if (position >= 0) this.queue.splice(position, 1);
  }
}
