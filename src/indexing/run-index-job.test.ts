import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { signedInUser } from '../../test/helpers/use-case-harness.js';
import { listItems } from '../db/repositories/index-jobs.js';
import type { SqlConnection, SqlExecutor } from '../db/sql-connection.js';
import { uploadTextDocuments } from '../services/upload-documents.js';
import type { ChunkEmbedder, IndexingDependencies } from './indexing-dependencies.js';
import { runIndexJob } from './run-index-job.js';

/**
 * An embedding server that answers nobody until `expected` texts are waiting, then everybody at
 * once: as a batch of vectors answers dozens of files together.
 */
function embedderAnsweringAllAtOnce(expected: number): ChunkEmbedder {
  const waiting: { texts: readonly string[]; resolve: (vectors: number[][]) => void }[] = [];
  let texts = 0;
  return {
    model: 'test:all-at-once',
    embed: (batch) =>
      new Promise((resolve) => {
        waiting.push({ texts: batch, resolve });
        texts += batch.length;
        if (texts < expected) return;
        for (const caller of waiting.splice(0)) {
          caller.resolve(caller.texts.map((_, index) => [1, index, 0.5]));
        }
      }),
  };
}

/**
 * The connection, telling how many statements storing a document were in flight at most, and how
 * many statements claimed items.
 */
function watchingStores(connection: SqlConnection): {
  connection: SqlConnection;
  mostAtOnce: number;
  claims: number;
} {
  const watched = { mostAtOnce: 0, claims: 0 } as {
    connection: SqlConnection;
    mostAtOnce: number;
    claims: number;
  };
  let inFlight = 0;
  const watch = (executor: SqlExecutor): SqlExecutor['executeSql'] =>
    (async (text, values, options) => {
      if (text.includes("SET status = 'indexing'")) watched.claims += 1;
      const stores = text.includes('INSERT INTO documents');
      if (stores) {
        inFlight += 1;
        watched.mostAtOnce = Math.max(watched.mostAtOnce, inFlight);
      }
      try {
        return await executor.executeSql(text, values, options);
      } finally {
        if (stores) inFlight -= 1;
      }
    }) as SqlExecutor['executeSql'];
  watched.connection = {
    runsOnMainThread: connection.runsOnMainThread,
    executeSql: watch(connection),
    transaction: (work) => connection.transaction((transaction) => work({ executeSql: watch(transaction) })),
  };
  return watched;
}

describe('runIndexJob', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('claims and stores documents taken up together in batches, storing at most half its file concurrency at once', async () => {
    const { caller } = await signedInUser(testApp);
    const documents = Array.from({ length: 40 }, (_, index) => ({
      external_id: `note-${index}`,
      title: `Note ${index}`,
      text: `Note ${index} is about the kettle in room ${index}.`,
    }));
    const queued = await uploadTextDocuments(testApp.runtime.deps, caller, documents);
    const watched = watchingStores(testApp.runtime.database.sql);
    const deps: IndexingDependencies = {
      ...testApp.runtime.indexing,
      sql: watched.connection,
      embedder: embedderAnsweringAllAtOnce(documents.length),
      limits: { ...testApp.runtime.indexing.limits, fileConcurrency: 4 },
    };

    const result = await runIndexJob(deps, queued.result_id, {
      signal: new AbortController().signal,
      finalAttempt: true,
    });

    expect(result).toEqual({ kind: 'finished', status: 'completed' });
    const indexed = await listItems(testApp.runtime.database.sql, queued.result_id, ['indexed']);
    expect(indexed).toHaveLength(documents.length);
    const { rows } = await testApp.runtime.database.sql.executeSql(
      "SELECT count(*)::int AS vectors FROM chunk_embeddings WHERE model = 'test:all-at-once'",
    );
    expect(rows[0]).toEqual({ vectors: documents.length });
    // 40 documents ready at once, 16 to a batch: two batches under way, the third waiting.
    expect(watched.mostAtOnce).toBe(2);
    // Their items were taken up together too: 16 claimed by a statement.
    expect(watched.claims).toBe(3);
  });
});
