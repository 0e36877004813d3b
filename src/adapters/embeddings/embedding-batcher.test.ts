import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../../test/fakes/fake-openai-server.js';
import { SourceError } from '../source-error.js';
import { EmbeddingBatcher } from './embedding-batcher.js';
import type { EmbeddingModel, EmbeddingPurpose } from './embedding-model.js';
import { HashingEmbeddingModel } from './hashing-embedding-model.js';
import { OpenAiEmbeddingModel } from './openai-embedding-model.js';

const hashing = new HashingEmbeddingModel({ dimensions: 8 });

interface RecordedBatch {
  readonly texts: readonly string[];
  readonly purpose: EmbeddingPurpose;
  readonly signal: AbortSignal | undefined;
  readonly startedAt: number;
}

/**
 * A stand-in model written for these tests: hashing vectors after `delayMs` (or when `release`d
 * while `gated`), failing batches that contain a poisoned text, recording every batch and the
 * most batches in flight at once.
 */
class RecordingModel implements EmbeddingModel {
  readonly id = 'recording:8';
  readonly batches: RecordedBatch[] = [];
  inFlight = 0;
  peakInFlight = 0;
  gated = false;
  private readonly gates: (() => void)[] = [];

  constructor(
    readonly maxBatchSize: number,
    private readonly options: { delayMs?: number; poison?: string; error?: SourceError } = {},
  ) {}

  async embed(
    texts: readonly string[],
    options: { readonly purpose: EmbeddingPurpose; readonly signal?: AbortSignal },
  ): Promise<number[][]> {
    this.batches.push({
      texts,
      purpose: options.purpose,
      signal: options.signal,
      startedAt: performance.now(),
    });
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      if (this.gated) await new Promise<void>((resolve) => this.gates.push(resolve));
      else await delay(this.options.delayMs ?? 0);
      options.signal?.throwIfAborted();
      if (this.options.poison !== undefined && texts.includes(this.options.poison)) {
        throw this.options.error ?? new SourceError('unavailable', 'poisoned batch', { status: 503 });
      }
      return texts.map((text) => hashing.vectorFor(text));
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Lets every gated batch answer. */
  release(): void {
    for (const open of this.gates.splice(0)) open();
  }

  get batchSizes(): number[] {
    return this.batches.map((batch) => batch.texts.length);
  }
}

function textsOf(caller: number, count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `caller ${caller} text ${index} word${caller * 100 + index}`,
  );
}

function expectOwnVectors(vectors: readonly number[][], texts: readonly string[]): void {
  expect(vectors).toEqual(texts.map((text) => hashing.vectorFor(text)));
}

/** Settles with the outcome, so a test can look at rejections without unhandled promises. */
function outcome<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

describe('EmbeddingBatcher', () => {
  it('packs many concurrent callers into full batches, each caller getting its own vectors in order', async () => {
    const model = new RecordingModel(16, { delayMs: 10 });
    const batcher = new EmbeddingBatcher(model);
    const inputs = Array.from({ length: 20 }, (_, caller) => textsOf(caller, 7));
    const results = await Promise.all(inputs.map((texts) => batcher.embed(texts)));
    results.forEach((vectors, caller) => {
      expectOwnVectors(vectors, inputs[caller] as string[]);
    });
    // 140 texts: eight full batches and the rest.
    expect(model.batchSizes).toEqual([16, 16, 16, 16, 16, 16, 16, 16, 12]);
    expect(model.peakInFlight).toBe(2);
    expect(batcher.id).toBe('recording:8');
  });

  it('keeps batches full when callers arrive while requests are in flight', async () => {
    const model = new RecordingModel(10, { delayMs: 30 });
    const batcher = new EmbeddingBatcher(model, { lingerMs: 50 });
    const calls: Promise<void>[] = [];
    // Callers trickle in, three texts each, much faster than the model answers.
    for (let caller = 0; caller < 30; caller += 1) {
      const texts = textsOf(caller, 3);
      calls.push(batcher.embed(texts).then((vectors) => expectOwnVectors(vectors, texts)));
      await delay(1);
    }
    await Promise.all(calls);
    const sizes = model.batchSizes;
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(90);
    // Only the first (sent when idle) and the last may be partial.
    expect(sizes.slice(1, -1).every((size) => size === 10)).toBe(true);
  });

  it('spreads a caller with more texts than a batch over several batches', async () => {
    const model = new RecordingModel(16);
    const batcher = new EmbeddingBatcher(model);
    const texts = textsOf(1, 50);
    expectOwnVectors(await batcher.embed(texts), texts);
    expect(model.batchSizes).toEqual([16, 16, 16, 2]);
    expect(model.batches.flatMap((batch) => batch.texts)).toEqual(texts);
  });

  it('respects maxConcurrentRequests', async () => {
    for (const maxConcurrentRequests of [1, 3]) {
      const model = new RecordingModel(4, { delayMs: 5 });
      const batcher = new EmbeddingBatcher(model, { maxConcurrentRequests });
      await Promise.all(Array.from({ length: 10 }, (_, caller) => batcher.embed(textsOf(caller, 4))));
      expect(model.peakInFlight).toBe(maxConcurrentRequests);
      expect(model.batches).toHaveLength(10);
    }
  });

  it('answers a lone caller at once, without waiting for the linger', async () => {
    const model = new RecordingModel(64);
    const batcher = new EmbeddingBatcher(model, { lingerMs: 2_000 });
    const started = performance.now();
    const texts = textsOf(1, 3);
    expectOwnVectors(await batcher.embed(texts), texts);
    expect(performance.now() - started).toBeLessThan(500);
    expect(model.batchSizes).toEqual([3]);
  });

  it('lets a partial batch wait at most lingerMs while another request is in flight', async () => {
    const model = new RecordingModel(64);
    model.gated = true;
    const batcher = new EmbeddingBatcher(model, { lingerMs: 40 });
    const first = batcher.embed(textsOf(1, 2));
    await delay(5);
    expect(model.batches).toHaveLength(1);

    const secondStarted = performance.now();
    const second = batcher.embed(textsOf(2, 2));
    await delay(10);
    expect(model.batches).toHaveLength(1);
    while (model.batches.length < 2) await delay(2);
    const waited = (model.batches[1] as RecordedBatch).startedAt - secondStarted;
    expect(waited).toBeGreaterThanOrEqual(30);
    expect(waited).toBeLessThan(1_000);

    model.release();
    await Promise.all([first, second]);
  });

  it('rejects only the callers whose texts were in the failed batch, with the same error', async () => {
    const error = new SourceError('rate_limited', 'slow down', { status: 429, retryAfterSeconds: 3 });
    const model = new RecordingModel(4, { poison: 'poison', error });
    const batcher = new EmbeddingBatcher(model);
    // Batches of four: [A, B], [C, D], [E, F]; B carries the poison.
    const inputs = [
      textsOf(0, 2),
      ['fine', 'poison'],
      textsOf(2, 2),
      textsOf(3, 2),
      textsOf(4, 2),
      textsOf(5, 2),
    ];
    const results = await Promise.all(inputs.map((texts) => outcome(batcher.embed(texts))));
    expect(results.map((result) => result.ok)).toEqual([false, false, true, true, true, true]);
    expect(results[0]).toEqual({ ok: false, error });
    expect(results[1]).toEqual({ ok: false, error });
    results.slice(2).forEach((result, index) => {
      expect(result.ok && result.value).toEqual(inputs[index + 2]?.map((text) => hashing.vectorFor(text)));
    });
  });

  it('rejects a caller spread over batches once, and drops its texts not yet sent', async () => {
    const model = new RecordingModel(4, { poison: 'poison' });
    const batcher = new EmbeddingBatcher(model, { maxConcurrentRequests: 1 });
    const texts = ['poison', ...textsOf(1, 11)];
    const other = textsOf(2, 2);
    const [big, small] = await Promise.all([outcome(batcher.embed(texts)), outcome(batcher.embed(other))]);
    expect(big.ok).toBe(false);
    expect(!big.ok && big.error).toMatchObject({ failure: 'unavailable' });
    expect(small.ok && small.value).toEqual(other.map((text) => hashing.vectorFor(text)));
    // The first batch failed; the failed caller's other eight texts were never sent.
    expect(model.batches.map((batch) => batch.texts)).toEqual([texts.slice(0, 4), other]);
  });

  it("drops an aborted caller's texts that were not yet sent", async () => {
    const model = new RecordingModel(4);
    model.gated = true;
    const batcher = new EmbeddingBatcher(model, { maxConcurrentRequests: 1 });
    const sent = batcher.embed(textsOf(1, 4));
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const aborted = batcher.embed(textsOf(2, 3), controller.signal);
    const kept = textsOf(3, 2);
    const waiting = batcher.embed(kept);
    await delay(5);
    expect(batcher.queuedTexts).toBe(5);

    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(batcher.queuedTexts).toBe(2);

    model.release();
    await sent;
    while (model.batches.length < 2) await delay(1);
    model.release();
    expectOwnVectors(await waiting, kept);
    expect(model.batches.map((batch) => batch.texts)).toEqual([textsOf(1, 4), kept]);
  });

  it('aborts a request in flight once every caller in it has gone', async () => {
    const model = new RecordingModel(8);
    model.gated = true;
    const batcher = new EmbeddingBatcher(model);
    const first = new AbortController();
    const second = new AbortController();
    const one = outcome(batcher.embed(textsOf(1, 2), first.signal));
    const two = outcome(batcher.embed(textsOf(2, 2), second.signal));
    await delay(5);
    const batch = model.batches[0] as RecordedBatch;
    expect(batch.texts).toHaveLength(4);

    first.abort(new Error('first gone'));
    await delay(1);
    expect(batch.signal?.aborted).toBe(false);
    second.abort(new Error('second gone'));
    expect(batch.signal?.aborted).toBe(true);
    model.release();
    expect((await one).ok).toBe(false);
    expect((await two).ok).toBe(false);
  });

  it('refuses an already aborted call and answers an empty one without a request', async () => {
    const model = new RecordingModel(8);
    const batcher = new EmbeddingBatcher(model);
    const reason = new Error('already stopped');
    await expect(batcher.embed(['text'], AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(await batcher.embed([])).toEqual([]);
    expect(model.batches).toHaveLength(0);
  });

  it('embeds as documents unless told otherwise, and names the model', async () => {
    const model = new RecordingModel(8);
    await new EmbeddingBatcher(model).embed(['a']);
    await new EmbeddingBatcher(model, { purpose: 'query' }).embed(['b']);
    expect(model.batches.map((batch) => batch.purpose)).toEqual(['document', 'query']);
    expect(new EmbeddingBatcher(model)).toMatchObject({ id: 'recording:8', model: 'recording:8' });
  });
});

describe('EmbeddingBatcher with the OpenAI client and the fake server', () => {
  let server: FakeOpenAiServer;

  beforeAll(async () => {
    server = await FakeOpenAiServer.start({ dimensions: 32, maxBatchSize: 64, delayMsPerRequest: 20 });
  });

  afterAll(async () => {
    await server.close();
  });

  it('sends full batches, two at a time', async () => {
    const model = new OpenAiEmbeddingModel({
      baseUrl: server.baseUrl,
      model: 'fake-embedding',
      maxBatchSize: 64,
    });
    const batcher = new EmbeddingBatcher(model);
    const inputs = Array.from({ length: 80 }, (_, caller) => textsOf(caller, 8));
    const results = await Promise.all(inputs.map((texts) => batcher.embed(texts)));
    results.forEach((vectors, caller) => {
      expect(vectors).toEqual(inputs[caller]?.map((text) => server.vectorFor(text).map(Math.fround)));
    });
    expect(server.requests.map((request) => request.inputCount)).toEqual(Array(10).fill(64));
    // How busy the server is kept is measured by bench/indexing, not timed here: a loaded CI
    // machine made the elapsed time three times the server's.
    expect(server.peakConcurrentRequests()).toBe(2);
  });
});
