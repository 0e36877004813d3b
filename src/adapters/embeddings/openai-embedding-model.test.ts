import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../../test/fakes/fake-openai-server.js';
import { normaliseBaseUrl } from '../openai-compatible.js';
import { SourceError } from '../source-error.js';
import { OpenAiEmbeddingModel, type OpenAiEmbeddingModelOptions } from './openai-embedding-model.js';

const API_KEY = 'sk-test-0123456789abcdefSECRET';
const MODEL = 'text-embedding-3-small';

let server: FakeOpenAiServer;

beforeAll(async () => {
  server = await FakeOpenAiServer.start({
    dimensions: 16,
    apiKey: API_KEY,
    models: [MODEL],
    maxBatchSize: 8,
    maxInputTokens: 50,
  });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.clearRecords();
  server.delayMsPerRequest = 0;
  server.answerOutOfOrder = false;
});

function model(options: Partial<OpenAiEmbeddingModelOptions> = {}): OpenAiEmbeddingModel {
  return new OpenAiEmbeddingModel({ baseUrl: server.baseUrl, apiKey: API_KEY, model: MODEL, ...options });
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

const texts = [
  'vacation policy for employees',
  'expense reports are due monthly',
  'the office opens at nine',
];

describe('OpenAiEmbeddingModel', () => {
  it('names its space by model and dimensions', () => {
    expect(model().id).toBe(`openai:${MODEL}`);
    expect(model({ dimensions: 8 }).id).toBe(`openai:${MODEL}:8`);
    expect(model().maxBatchSize).toBe(64);
    expect(model({ maxBatchSize: 8 }).maxBatchSize).toBe(8);
  });

  it('decodes base64 (the default) into the float32 values the server sent', async () => {
    const vectors = await model().embed(texts, { purpose: 'document' });
    expect(server.requests.map((request) => request.encodingFormat)).toEqual(['base64']);
    expect(vectors).toHaveLength(3);
    vectors.forEach((vector, index) => {
      expect(vector).toEqual(server.vectorFor(texts[index] as string).map(Math.fround));
    });
  });

  it('decodes float answers', async () => {
    const vectors = await model({ encodingFormat: 'float' }).embed(texts, { purpose: 'document' });
    expect(server.requests.map((request) => request.encodingFormat)).toEqual(['float']);
    expect(vectors).toEqual(texts.map((text) => server.vectorFor(text)));
  });

  it('orders vectors by their index when the server answers out of order', async () => {
    server.answerOutOfOrder = true;
    for (const encodingFormat of ['base64', 'float'] as const) {
      const vectors = await model({ encodingFormat }).embed(texts, { purpose: 'document' });
      vectors.forEach((vector, index) => {
        const expected = server.vectorFor(texts[index] as string);
        expect(vector).toEqual(encodingFormat === 'float' ? expected : expected.map(Math.fround));
      });
    }
  });

  it('asks for the configured dimensions and model, with the bearer key', async () => {
    const vectors = await model({ dimensions: 5 }).embed(texts, { purpose: 'query' });
    expect(vectors.every((vector) => vector.length === 5)).toBe(true);
    expect(server.requests).toMatchObject([
      {
        route: 'POST /v1/embeddings',
        model: MODEL,
        dimensions: 5,
        inputCount: 3,
        authorization: `Bearer ${API_KEY}`,
      },
    ]);
  });

  it('sends no request for no texts, and refuses more than a batch', async () => {
    expect(await model().embed([], { purpose: 'document' })).toEqual([]);
    await expect(model({ maxBatchSize: 2 }).embed(texts, { purpose: 'document' })).rejects.toThrow(
      RangeError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('accepts a base URL without /v1, and works without an API key against a keyless server', async () => {
    const keyless = await FakeOpenAiServer.start({ dimensions: 4 });
    try {
      const origin = new URL(keyless.baseUrl).origin;
      const vectors = await new OpenAiEmbeddingModel({
        baseUrl: `${origin}/`,
        model: 'nomic-embed-text',
      }).embed(['hello'], { purpose: 'document' });
      expect(vectors[0]).toHaveLength(4);
      expect(keyless.requests[0]?.route).toBe('POST /v1/embeddings');
    } finally {
      await keyless.close();
    }
  });

  it('normalises base URLs', () => {
    expect(normaliseBaseUrl('http://localhost:11434')).toBe('http://localhost:11434/v1');
    expect(normaliseBaseUrl('http://localhost:11434/')).toBe('http://localhost:11434/v1');
    expect(normaliseBaseUrl('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1');
    expect(normaliseBaseUrl('https://proxy.example.com/openai/v1')).toBe(
      'https://proxy.example.com/openai/v1',
    );
    expect(() => normaliseBaseUrl('localhost:8080')).toThrow(RangeError);
    expect(() => normaliseBaseUrl('not a url')).toThrow(RangeError);
  });

  it('maps a rejected key to unauthorized without echoing the key', async () => {
    const wrongKey = 'sk-wrong-key-ABCDEFGHIJKL9876';
    const error = await failure(model({ apiKey: wrongKey }).embed(texts, { purpose: 'document' }));
    expect(error).toMatchObject({ failure: 'unauthorized', status: 401, retryable: false });
    const everything = `${error.message} ${String(error.stack)} ${JSON.stringify(error)} ${String(error.cause)}`;
    expect(everything).not.toContain(wrongKey);
    expect(everything).not.toContain('9876');
    expect(everything).not.toContain(API_KEY);

    const missing = await failure(
      new OpenAiEmbeddingModel({ baseUrl: server.baseUrl, model: MODEL }).embed(texts, {
        purpose: 'document',
      }),
    );
    expect(missing).toMatchObject({ failure: 'unauthorized', status: 401 });
  });

  it('never puts the configured key in an error, even when the server quotes it', async () => {
    server.failNext({ status: 400, message: `bad request from key ${API_KEY}` });
    const error = await failure(model().embed(texts, { purpose: 'document' }));
    expect(error.failure).toBe('bad_response');
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).toContain('[redacted]');
  });

  it('maps an unknown model to not_found', async () => {
    const error = await failure(model({ model: 'no-such-model' }).embed(texts, { purpose: 'document' }));
    expect(error).toMatchObject({ failure: 'not_found', status: 404, retryable: false });
    expect(error.message).toContain('no-such-model');
  });

  it('maps 429 to rate_limited with Retry-After, and retry-after-ms over it', async () => {
    server.failNext({ status: 429, retryAfter: 7 });
    const error = await failure(model().embed(texts, { purpose: 'document' }));
    expect(error).toMatchObject({
      failure: 'rate_limited',
      status: 429,
      retryable: true,
      retryAfterSeconds: 7,
    });

    server.failNext({ status: 429, retryAfter: 2, retryAfterMs: 1500 });
    const precise = await failure(model().embed(texts, { purpose: 'document' }));
    expect(precise.retryAfterSeconds).toBe(1.5);

    server.failNext({ status: 429 });
    const bare = await failure(model().embed(texts, { purpose: 'document' }));
    expect(bare).toMatchObject({ failure: 'rate_limited', retryAfterSeconds: undefined });
    // No retries inside the adapter: the job layer owns them.
    expect(server.requests).toHaveLength(3);
  });

  it('maps an exhausted quota (429 insufficient_quota) to a permanent failure', async () => {
    server.failNext({ status: 429, code: 'insufficient_quota', message: 'You exceeded your current quota.' });
    const error = await failure(model().embed(texts, { purpose: 'document' }));
    expect(error).toMatchObject({ failure: 'permission_denied', status: 429, retryable: false });
  });

  it('maps 5xx to unavailable (retryable) and 403 to permission_denied', async () => {
    server.failNext({ status: 500 });
    expect(await failure(model().embed(texts, { purpose: 'document' }))).toMatchObject({
      failure: 'unavailable',
      status: 500,
      retryable: true,
    });
    server.failNext({ status: 503 });
    expect((await failure(model().embed(texts, { purpose: 'document' }))).failure).toBe('unavailable');
    server.failNext({ status: 403 });
    expect(await failure(model().embed(texts, { purpose: 'document' }))).toMatchObject({
      failure: 'permission_denied',
      retryable: false,
    });
  });

  it('maps an input over the context length to bad_response and says so', async () => {
    const long = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    const error = await failure(model().embed([long], { purpose: 'document' }));
    expect(error).toMatchObject({ failure: 'bad_response', status: 400, retryable: false });
    expect(error.message).toMatch(/context length/);

    server.failNext({
      status: 413,
      message: 'Input validation error: `inputs` must have less than 512 tokens.',
    });
    const tei = await failure(model().embed(texts, { purpose: 'document' }));
    expect(tei).toMatchObject({ failure: 'bad_response', status: 413 });
    expect(tei.message).toMatch(/context length/);
  });

  it('maps the server refusing a batch as too big to bad_response', async () => {
    const nine = Array.from({ length: 9 }, (_, index) => `text ${index}`);
    const error = await failure(model({ maxBatchSize: 9 }).embed(nine, { purpose: 'document' }));
    expect(error).toMatchObject({ failure: 'bad_response', status: 400 });
  });

  it('maps no answer in time to timeout, after one attempt', async () => {
    server.delayMsPerRequest = 1_000;
    const started = performance.now();
    const error = await failure(model({ timeoutMs: 100 }).embed(texts, { purpose: 'document' }));
    expect(error).toMatchObject({ failure: 'timeout', retryable: true });
    expect(performance.now() - started).toBeLessThan(900);
    expect(server.requests).toHaveLength(1);
  });

  it('maps a refused connection to unavailable', async () => {
    const gone = await FakeOpenAiServer.start();
    await gone.close();
    const error = await failure(
      new OpenAiEmbeddingModel({ baseUrl: gone.baseUrl, model: MODEL }).embed(texts, { purpose: 'document' }),
    );
    expect(error).toMatchObject({ failure: 'unavailable', retryable: true, status: undefined });
  });

  it('rejects with the signal reason when the caller aborts', async () => {
    server.delayMsPerRequest = 1_000;
    const controller = new AbortController();
    const reason = new Error('job stopped');
    const pending = model().embed(texts, { purpose: 'document', signal: controller.signal });
    setTimeout(() => controller.abort(reason), 30);
    await expect(pending).rejects.toBe(reason);

    await expect(model().embed(texts, { purpose: 'document', signal: controller.signal })).rejects.toBe(
      reason,
    );
  });

  it.each([
    ['drop_last', /2 vectors for 3 texts/],
    ['ragged', /vector 0 has 15 dimensions|vector 1 has 16 dimensions/],
    ['not_a_list', /no data list/],
  ] as const)('maps a broken answer (%s) to bad_response', async (tamper, message) => {
    server.tamperNext(tamper);
    const error = await failure(model().embed(texts, { purpose: 'document' }));
    expect(error).toMatchObject({ failure: 'bad_response', retryable: false });
    expect(error.message).toMatch(message);
  });

  it('refuses vectors of other dimensions than asked (a server that ignores `dimensions`)', async () => {
    server.ignoreRequestedDimensions = true;
    try {
      const error = await failure(model({ dimensions: 6 }).embed(texts, { purpose: 'document' }));
      expect(error).toMatchObject({ failure: 'bad_response', retryable: false });
      expect(error.message).toMatch(/16 dimensions, not the 6 asked for/);
    } finally {
      server.ignoreRequestedDimensions = false;
    }
  });
});
