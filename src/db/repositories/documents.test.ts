import { afterAll, beforeAll, expect, it } from 'vitest';
import { uploadFields } from '../../../test/helpers/test-documents.js';
import { teamReader } from '../../access.js';
import { type DatabaseHandle, openDatabase } from '../client.js';
import { runAsBackgroundWork } from '../sql-connection.js';
import {
  ATOMIC_REPLACE_CHUNKS,
  type ChunkToStore,
  type DocumentFields,
  findReadableDocument,
  listReadableDocumentChunks,
  replaceDocument,
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
