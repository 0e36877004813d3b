import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingBatcher } from '../../src/adapters/embeddings/embedding-batcher.js';
import { HashingEmbeddingModel } from '../../src/adapters/embeddings/hashing-embedding-model.js';
import { embedStaleChunks } from '../../src/indexing/embed-stale-chunks.js';
import { FakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { bearer, registerUser, startTestApp, type TestApp, waitForJob } from '../helpers/test-app.js';

const DOCUMENTS = Array.from({ length: 12 }, (_, index) => ({
  external_id: `doc-${index}`,
  title: `Document ${index}`,
  text: `# Section ${index}\n\nDocument ${index} talks about topic ${index % 3} in some detail.\n\n## More\n\nA second paragraph for ${index}.`,
}));

describe('indexing with embeddings from an OpenAI-compatible server', () => {
  let server: FakeOpenAiServer;
  let testApp: TestApp;
  let user: Awaited<ReturnType<typeof registerUser>>;

  beforeAll(async () => {
    server = await FakeOpenAiServer.start({ dimensions: 32, apiKey: 'sk-test-embeddings' });
    testApp = await startTestApp({
      env: {
        EMBEDDING_PROVIDER: 'openai',
        EMBEDDING_BASE_URL: server.baseUrl,
        EMBEDDING_MODEL: 'test-embed',
        EMBEDDING_API_KEY: 'sk-test-embeddings',
        EMBEDDING_BATCH_SIZE: '8',
      },
      worker: true,
    });
    user = await registerUser(testApp.app);
  });
  afterAll(async () => {
    await testApp.close();
    await server.close();
  });

  async function upload(documents: unknown[]) {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: bearer(user.token),
      payload: { documents },
    });
    expect(response.statusCode, response.body).toBe(202);
    return waitForJob(testApp.app, user.token, `/v1/documents/jobs/${response.json().result_id}`);
  }

  async function counts() {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT (SELECT count(*)::int FROM chunks) AS chunks,
         (SELECT count(*)::int FROM chunk_embeddings WHERE model = 'openai:test-embed' AND dimensions = 32) AS vectors,
         (SELECT count(*)::int FROM chunk_embeddings) AS all_vectors`,
    );
    return rows[0] as { chunks: number; vectors: number; all_vectors: number };
  }

  it('stores one vector of the configured model per chunk, in batches, behind an HNSW index', async () => {
    const job = await upload(DOCUMENTS);
    expect(job.status).toBe('completed');
    expect(job.files.every((file) => file.status === 'indexed')).toBe(true);
    const { chunks, vectors } = await counts();
    expect(chunks).toBeGreaterThanOrEqual(DOCUMENTS.length);
    expect(vectors).toBe(chunks);
    const batches = server.requests.filter((request) => request.inputCount > 1);
    expect(batches.length).toBeGreaterThan(0);
    expect(Math.max(...server.requests.map((request) => request.inputCount))).toBeLessThanOrEqual(8);
    const { rows: indexes } = await testApp.runtime.database.sql.executeSql(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'chunk_embeddings' AND indexname LIKE 'chunk_embeddings_hnsw_%'`,
    );
    expect(indexes.map((row) => String(row.indexdef))).toEqual([
      expect.stringMatching(/USING hnsw .*vector\(32\).*vector_cosine_ops.*openai:test-embed/),
    ]);
  });

  it('waits out a 429 from the embedding server and still embeds everything', async () => {
    server.failNext({ status: 429, retryAfter: 1 });
    const job = await upload([
      { external_id: 'late', title: 'Late', text: 'Embedded after one rate limit.' },
    ]);
    expect(job.files[0]).toMatchObject({ status: 'indexed' });
    const { chunks, vectors } = await counts();
    expect(vectors).toBe(chunks);
  });

  it('fails files, keeping what was stored, when the embedding server refuses the key', async () => {
    server.failNext({ status: 401, times: 5 });
    const job = await upload([
      { external_id: 'doc-0', title: 'Document 0', text: 'New text that cannot be embedded now.' },
    ]);
    expect(job.files[0]).toMatchObject({ status: 'failed', reason: 'internal_error' });
    expect(String(job.files[0]?.message)).toMatch(/embedding server refused/i);
    expect(String(job.files[0]?.message)).not.toContain('sk-test-embeddings');
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT count(*)::int AS count FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id = 'doc-0'`,
    );
    expect(rows[0]?.count).toBeGreaterThan(0);
  });

  it('re-embeds every chunk for a new model and drops the old vectors, never mixing the two', async () => {
    const before = await counts();
    const replacement = new EmbeddingBatcher(new HashingEmbeddingModel({ dimensions: 16 }));
    const result = await embedStaleChunks(
      { sql: testApp.runtime.database.sql, embedder: replacement },
      new AbortController().signal,
    );
    expect(result).toEqual({ embedded: before.chunks, removed: before.vectors });
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT model, dimensions, count(*)::int AS count FROM chunk_embeddings GROUP BY model, dimensions',
    );
    expect(rows).toEqual([{ model: 'hashing:16', dimensions: 16, count: before.chunks }]);
    // Nothing left to do on a second run.
    expect(
      await embedStaleChunks(
        { sql: testApp.runtime.database.sql, embedder: replacement },
        new AbortController().signal,
      ),
    ).toEqual({ embedded: 0, removed: 0 });
  });
});
