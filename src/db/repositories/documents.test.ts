import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { uploadFields } from '../../../test/helpers/test-documents.js';
import { teamReader } from '../../access.js';
import { type DatabaseHandle, openDatabase } from '../client.js';
import { runAsBackgroundWork, type SqlConnection } from '../sql-connection.js';
import {
  ATOMIC_REPLACE_CHUNKS,
  type ChunkToStore,
  type DocumentFields,
  findReadableDocument,
  insertEmbeddingsInStatements,
  listReadableDocumentChunks,
  replaceDocument,
  rowStatementSizer,
} from './documents.js';

let database: DatabaseHandle;
let teamId: number;

beforeAll(async () => {
  database = await openDatabase({ kind: 'embedded', dataDir: undefined });
  const { rows } = await database.sql.executeSql("INSERT INTO teams (name) VALUES ('Writers') RETURNING id");
  teamId = Number(rows[0]?.id);
});
afterAll(async () => {
  await database.close();
});

function fields(externalId: string): DocumentFields {
  return uploadFields(teamId, externalId, { title: 'A long manual', mimeType: 'text/markdown' });
}

function chunks(count: number, word: string): ChunkToStore[] {
  return Array.from({ length: count }, (_, position) => {
    const text = `Section ${position} of the manual: ${word} settings, valves and gauges ${position * 7}.`;
    return { position, text, headingPath: [], pageLabels: [], tokenCount: 12, contextualText: text };
  });
}

async function storedPositions(externalId: string): Promise<number[]> {
  const { rows } = await database.sql.executeSql(
    `SELECT c.position FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE d.team_id = $1 AND d.external_id = $2 ORDER BY c.position`,
    [teamId, externalId],
  );
  return rows.map((row) => Number(row.position));
}

it("answers other queries while a big document's chunks are written, and stores every chunk once", async () => {
  const count = ATOMIC_REPLACE_CHUNKS * 4 + 13;
  let stored = false;
  const writing = runAsBackgroundWork(() =>
    replaceDocument(database.sql, fields('manual'), 'hash-1', chunks(count, 'boiler'), undefined),
  ).then((id) => {
    stored = true;
    return id;
  });
  // Queries of requests, sent while it writes: each is answered before the document is complete.
  let answeredWhileWriting = 0;
  let sawIndexing = false;
  while (!stored) {
    const { rows } = await database.sql.executeSql(
      "SELECT status, (SELECT count(*) FROM chunks WHERE team_id = $1) AS chunks FROM documents WHERE external_id = 'manual'",
      [teamId],
    );
    if (!stored) answeredWhileWriting += 1;
    if (rows[0]?.status === 'indexing' && Number(rows[0]?.chunks) > 0) sawIndexing = true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const documentId = await writing;
  expect(answeredWhileWriting).toBeGreaterThan(3);
  expect(sawIndexing).toBe(true);
  expect(await storedPositions('manual')).toEqual(Array.from({ length: count }, (_, position) => position));
  const { rows } = await database.sql.executeSql(
    'SELECT status, chunk_count, content_hash FROM documents WHERE id = $1',
    [documentId],
  );
  expect(rows[0]).toMatchObject({ status: 'indexed', chunk_count: count, content_hash: 'hash-1' });

  // Replaced by a shorter version: only the new chunks remain, with their postings.
  await replaceDocument(
    database.sql,
    fields('manual'),
    'hash-2',
    chunks(ATOMIC_REPLACE_CHUNKS + 5, 'pump'),
    undefined,
  );
  expect(await storedPositions('manual')).toEqual(
    Array.from({ length: ATOMIC_REPLACE_CHUNKS + 5 }, (_, position) => position),
  );
  const postings = await database.sql.executeSql(
    "SELECT count(*) FILTER (WHERE term = 'boiler') AS old, count(*) FILTER (WHERE term = 'pump') AS new FROM chunk_terms WHERE team_id = $1",
    [teamId],
  );
  expect(postings.rows[0]).toMatchObject({ old: 0, new: ATOMIC_REPLACE_CHUNKS + 5 });
});

it('replaces a small document in one transaction: a reader sees the old chunks or the new, never a mix', async () => {
  await replaceDocument(database.sql, fields('leaflet'), 'hash-a', chunks(40, 'old'), undefined);
  const replacing = replaceDocument(database.sql, fields('leaflet'), 'hash-b', chunks(60, 'new'), undefined);
  const seen = new Set<number>();
  let done = false;
  void replacing.then(() => {
    done = true;
  });
  while (!done) {
    seen.add((await storedPositions('leaflet')).length);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await replacing;
  seen.add((await storedPositions('leaflet')).length);
  expect([...seen].every((size) => size === 40 || size === 60)).toBe(true);
  expect(seen.has(60)).toBe(true);
});

it("reads a team's document and its first chunks in order, and nothing of another team's", async () => {
  const id = await replaceDocument(database.sql, fields('guide'), 'hash-g', chunks(7, 'guide'), undefined);
  const { rows } = await database.sql.executeSql("INSERT INTO teams (name) VALUES ('Others') RETURNING id");
  const otherTeam = Number(rows[0]?.id);
  expect(await findReadableDocument(database.sql, teamReader(teamId), id)).toMatchObject({
    id,
    externalId: 'guide',
    status: 'indexed',
    chunkCount: 7,
    createdAt: expect.any(Date),
  });
  const first = await listReadableDocumentChunks(database.sql, teamReader(teamId), id, 5);
  expect(first.map((chunk) => chunk.position)).toEqual([0, 1, 2, 3, 4]);
  expect(first[0]).toMatchObject({
    id: expect.any(Number),
    headingPath: [],
    text: expect.stringContaining('Section 0'),
  });
  expect(await findReadableDocument(database.sql, teamReader(otherTeam), id)).toBeUndefined();
  expect(await listReadableDocumentChunks(database.sql, teamReader(otherTeam), id, 5)).toEqual([]);
});

/** Statements of chunks and of vectors, with their simulated cost (see `timedConnection`). */
interface TimedStatement {
  readonly kind: 'chunks' | 'vectors';
  readonly rows: number;
  readonly ms: number;
}

/**
 * PGlite as a background write sees it, with a simulated cost on a faked clock: 1 ms per 1,000
 * characters of chunk text (stored and in context), 3 ms per vector.
 */
function timedConnection(statements: TimedStatement[]): SqlConnection {
  return {
    runsOnMainThread: true,
    transaction: (work) => database.sql.transaction(work),
    executeSql: async <Row>(text: string, values?: unknown[]) => {
      const result = await database.sql.executeSql<Row>(text, values);
      const rowsOf = () => JSON.parse(String(values?.at(-1))) as { text?: string; contextual?: string }[];
      let ms = 0;
      if (text.includes('INSERT INTO chunks')) {
        const rows = rowsOf();
        for (const row of rows) ms += ((row.text?.length ?? 0) + (row.contextual?.length ?? 0)) / 1000;
        statements.push({ kind: 'chunks', rows: rows.length, ms });
      } else if (text.includes('INSERT INTO chunk_embeddings')) {
        const rows = rowsOf();
        ms = rows.length * 3;
        statements.push({ kind: 'vectors', rows: rows.length, ms });
      }
      vi.advanceTimersByTime(ms);
      return result;
    },
  };
}

async function withFakedClock<T>(work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['performance'] });
  try {
    return await work();
  } finally {
    vi.useRealTimers();
  }
}

/** Statements aim at 15 ms; once the first few have shown the rate, each is allowed a third more. */
function expectShortAfterTheFirst(statements: readonly TimedStatement[], rows: number): void {
  expect(statements.reduce((sum, statement) => sum + statement.rows, 0)).toBe(rows);
  expect(Math.max(...statements.slice(4).map((statement) => statement.ms))).toBeLessThanOrEqual(20);
}

it('on PGlite, sizes statements of chunks by their text: chunks thirty times longer do not make a long one', async () => {
  const short = chunks(600, 'gasket');
  const long = chunks(300, 'flange').map((chunk, index) => {
    const text = `${chunk.text} ${'Tighten the flange bolts in a star pattern. '.repeat(45)}`;
    return { ...chunk, position: short.length + index, text, contextualText: text };
  });
  const all = [...short, ...long];
  const statements: TimedStatement[] = [];
  await withFakedClock(() =>
    replaceDocument(timedConnection(statements), fields('mixed'), 'hash-m', all, undefined),
  );
  expect(await storedPositions('mixed')).toEqual(all.map((chunk) => chunk.position));
  expectShortAfterTheFirst(statements, all.length);
});

it('on PGlite, stores vectors in short statements of their own', async () => {
  const all = chunks(ATOMIC_REPLACE_CHUNKS + 56, 'valve');
  const vectors = all.map((_, index) => [index % 7, 1, 0.5]);
  const statements: TimedStatement[] = [];
  const documentId = await withFakedClock(() =>
    replaceDocument(timedConnection(statements), fields('vectors'), 'hash-v', all, {
      model: 'test-model',
      vectors,
    }),
  );
  expectShortAfterTheFirst(
    statements.filter((statement) => statement.kind === 'vectors'),
    all.length,
  );

  // Vectors added later (a new model's backfill) too.
  const { rows } = await database.sql.executeSql<{ id: number }>(
    'SELECT id FROM chunks WHERE document_id = $1 ORDER BY position',
    [documentId],
  );
  const backfill: TimedStatement[] = [];
  const timed = timedConnection(backfill);
  await withFakedClock(() =>
    insertEmbeddingsInStatements(
      timed,
      rowStatementSizer(timed),
      null,
      'other-model',
      rows.map((row, index) => ({ chunkId: Number(row.id), vector: vectors[index] ?? [] })),
    ),
  );
  expectShortAfterTheFirst(backfill, rows.length);
  const stored = await database.sql.executeSql(
    'SELECT model, count(*)::int AS vectors FROM chunk_embeddings WHERE chunk_id = ANY($1) GROUP BY model ORDER BY model',
    [rows.map((row) => Number(row.id))],
  );
  expect(stored.rows).toEqual([
    { model: 'other-model', vectors: all.length },
    { model: 'test-model', vectors: all.length },
  ]);
});
