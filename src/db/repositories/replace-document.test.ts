import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { countingConnection } from '../../../test/helpers/counting-connection.js';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { insertTeam, textChunks, uploadFields } from '../../../test/helpers/test-documents.js';
import { peopleAccess, TEAM_ACCESS } from '../../access.js';
import { StatementSizer } from '../statement-sizer.js';
import { saveAccessList } from './access-lists.js';
import {
  type ChunkToStore,
  type DocumentFields,
  DocumentHeldByAnother,
  replaceDocument,
  statementSizers,
  storeNewDocuments,
} from './documents.js';
import { insertIndexJob, itemIndexed, listItems } from './index-jobs.js';

const testDatabase = databaseForTheseTests();
const sql = () => testDatabase().sql;

/** A job of the team with one queued item per external id, its bytes stored with it. */
async function jobOf(teamId: number, externalIds: readonly string[]): Promise<string> {
  const id = randomUUID();
  await insertIndexJob(sql(), {
    id,
    teamId,
    connectorId: null,
    kind: 'upload',
    requestedBy: null,
    request: {},
    requestHash: null,
    secretsSealed: null,
    items: externalIds.map((externalId) => ({
      externalId,
      name: externalId,
      payload: {},
      content: Buffer.from(`bytes of ${externalId}`),
    })),
  });
  return id;
}

/** Chunks with headings and page labels, as a parsed PDF gives them. */
function manualChunks(texts: readonly string[]): ChunkToStore[] {
  return texts.map((text, position) => ({
    position,
    text,
    headingPath: ['Manual', `Part ${position}`],
    pageLabels: [`${position + 1}`],
    tokenCount: text.split(' ').length,
    contextualText: `Manual > Part ${position}\n${text}`,
  }));
}

const TEXTS = [
  'The boiler runs at two bars; the gauges read pressure and temperature.',
  'Bleed the radiators each autumn, starting with the one nearest the boiler.',
  'Valves close clockwise. The boiler valve is red.',
];

function vectorsOf(count: number): number[][] {
  return Array.from({ length: count }, (_, index) => [index + 1, 0.5, -index]);
}

/** Everything stored of a document, its ids left out: what two ways of storing it must agree on. */
async function storedRows(documentId: number) {
  const document = await sql().executeSql(
    `SELECT d.status, d.reason, d.message, d.content_hash, d.chunk_count, d.title, d.file_name, d.mime_type,
       d.metadata, d.last_job_id, d.last_job_status, d.last_job_reason, d.last_job_message,
       d.indexed_at IS NOT NULL AS indexed, d.last_job_at IS NOT NULL AS job_dated, d.access_list_id, d.indexed_by
     FROM documents AS d WHERE d.id = $1`,
    [documentId],
  );
  const chunks = await sql().executeSql(
    `SELECT position, text, heading_path, page_labels, token_count, search::text AS search, lexical_length,
       access_list_id, team_id, connector_id, source
     FROM chunks WHERE document_id = $1 ORDER BY position`,
    [documentId],
  );
  const postings = await sql().executeSql(
    `SELECT c.position, t.term, t.frequency, t.chunk_length, t.impact, t.team_id, t.access_list_id, t.source
     FROM chunk_terms AS t JOIN chunks AS c ON c.id = t.chunk_id
     WHERE c.document_id = $1 ORDER BY c.position, t.term`,
    [documentId],
  );
  const vectors = await sql().executeSql(
    `SELECT c.position, e.model, e.dimensions, e.embedding::text AS embedding, e.team_id, e.access_list_id
     FROM chunk_embeddings AS e JOIN chunks AS c ON c.id = e.chunk_id
     WHERE c.document_id = $1 ORDER BY c.position`,
    [documentId],
  );
  return { document: document.rows[0], chunks: chunks.rows, postings: postings.rows, vectors: vectors.rows };
}

describe('replaceDocument of a document the caller found new', () => {
  it("stores it whole in one statement: chunks, postings, vectors and the job item's outcome", async () => {
    const teamId = await insertTeam(sql(), 'Plumbers');
    const jobId = await jobOf(teamId, ['manual']);
    const counted = countingConnection(sql());
    const documentId = await replaceDocument(
      counted.connection,
      uploadFields(teamId, 'manual', { title: 'Boiler manual', fileName: 'boiler.pdf' }),
      'hash-1',
      manualChunks(TEXTS),
      { model: 'test-model', vectors: vectorsOf(3) },
      { jobId, completes: itemIndexed(jobId, 'manual', 3) },
    );

    expect(counted).toMatchObject({ statements: 1, transactions: 0 });
    const stored = await storedRows(documentId);
    expect(stored.document).toMatchObject({
      status: 'indexed',
      content_hash: 'hash-1',
      chunk_count: 3,
      title: 'Boiler manual',
      file_name: 'boiler.pdf',
      last_job_id: jobId,
      last_job_status: 'indexed',
      indexed: true,
      job_dated: true,
    });
    expect(Number(stored.document?.access_list_id)).toBe(await saveAccessList(sql(), teamId, TEAM_ACCESS));
    expect(stored.chunks.map((chunk) => [chunk.position, chunk.heading_path, chunk.page_labels])).toEqual([
      [0, ['Manual', 'Part 0'], ['1']],
      [1, ['Manual', 'Part 1'], ['2']],
      [2, ['Manual', 'Part 2'], ['3']],
    ]);
    // Every chunk's terms are posted: "boiler" in all three, "radiat" in the second alone.
    const positionsOf = (term: string) =>
      stored.postings.filter((posting) => posting.term === term).map((posting) => posting.position);
    expect(positionsOf('boiler')).toEqual([0, 1, 2]);
    expect(positionsOf('radiat')).toEqual([1]);
    expect(stored.vectors.map((vector) => [vector.position, vector.dimensions])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    const [item] = await listItems(sql(), jobId, ['indexed']);
    expect(item).toMatchObject({ externalId: 'manual', status: 'indexed', chunks: 3, documentId });
    const content = await sql().executeSql('SELECT content FROM index_job_items WHERE job_id = $1', [jobId]);
    expect(content.rows[0]?.content).toBeNull();
  });

  it('stores the same rows as the transaction that replaces a stored document', async () => {
    const teamId = await insertTeam(sql(), 'Twins');
    const jobId = await jobOf(teamId, ['one-statement', 'transaction']);
    const store = (externalId: string, storedChunks: number | undefined) =>
      replaceDocument(
        sql(),
        uploadFields(teamId, externalId, { title: 'Boiler manual', metadata: { floor: 2 } }),
        'hash-twin',
        manualChunks(TEXTS),
        { model: 'test-model', vectors: vectorsOf(3) },
        { jobId, storedChunks, completes: itemIndexed(jobId, externalId, 3) },
      );
    const byOneStatement = await storedRows(await store('one-statement', undefined));
    // Told the document has chunks stored, it takes the general way: a transaction.
    const byTransaction = await storedRows(await store('transaction', 0));

    expect(byOneStatement.postings.length).toBeGreaterThan(20);
    expect(byOneStatement).toEqual(byTransaction);
    const items = await listItems(sql(), jobId, ['indexed']);
    expect(items.map((item) => [item.externalId, item.chunks])).toEqual([
      ['one-statement', 3],
      ['transaction', 3],
    ]);
  });

  it('replaces, and does not double, a document stored since the caller looked for it', async () => {
    const teamId = await insertTeam(sql(), 'Latecomers');
    const fields = uploadFields(teamId, 'notes');
    await replaceDocument(
      sql(),
      fields,
      'old',
      textChunks(['kettle one', 'kettle two', 'kettle three']),
      undefined,
      {
        storedChunks: 0,
      },
    );
    const jobId = await jobOf(teamId, ['notes']);
    const counted = countingConnection(sql());
    const documentId = await replaceDocument(
      counted.connection,
      fields,
      'new',
      textChunks(['teapot one', 'teapot two']),
      undefined,
      { jobId, completes: itemIndexed(jobId, 'notes', 2) },
    );

    // The one statement found it stored and wrote nothing; the transaction replaced it.
    expect(counted.transactions).toBe(1);
    const stored = await storedRows(documentId);
    expect(stored.document).toMatchObject({ content_hash: 'new', chunk_count: 2 });
    expect(stored.chunks.map((chunk) => chunk.text)).toEqual(['teapot one', 'teapot two']);
    expect(stored.postings.filter((posting) => posting.term === 'kettl')).toEqual([]);
    const documents = await sql().executeSql('SELECT count(*) AS n FROM documents WHERE team_id = $1', [
      teamId,
    ]);
    expect(Number(documents.rows[0]?.n)).toBe(1);
    const [item] = await listItems(sql(), jobId, ['indexed']);
    expect(item).toMatchObject({ chunks: 2, documentId });
  });

  it("leaves another member's document as it was, and the job item unrecorded", async () => {
    const teamId = await insertTeam(sql(), 'Neighbours');
    const { rows } = await sql().executeSql(
      "INSERT INTO users (email, name, team_id, role) VALUES ('mo@example.com', 'Mo', $1, 'member') RETURNING id",
      [teamId],
    );
    const mo = Number(rows[0]?.id);
    const theirs: DocumentFields = uploadFields(teamId, 'plan', { indexedBy: null });
    const documentId = await replaceDocument(sql(), theirs, 'theirs', textChunks(['garden plan']), undefined);
    const jobId = await jobOf(teamId, ['plan']);

    await expect(
      replaceDocument(
        sql(),
        { ...theirs, indexedBy: mo, onlyItsIndexer: true },
        'mine',
        textChunks(['my plan']),
        undefined,
        { jobId, completes: itemIndexed(jobId, 'plan', 1) },
      ),
    ).rejects.toBeInstanceOf(DocumentHeldByAnother);

    const stored = await storedRows(documentId);
    expect(stored.document).toMatchObject({ content_hash: 'theirs', chunk_count: 1 });
    expect(stored.chunks.map((chunk) => chunk.text)).toEqual(['garden plan']);
    expect(await listItems(sql(), jobId, ['indexed'])).toEqual([]);
  });
});

describe('storeNewDocuments', () => {
  it('stores documents ready together in one statement, each as it would be stored alone', async () => {
    const teamId = await insertTeam(sql(), 'Batchers');
    const ids = ['boiler', 'radiators', 'valves', 'alone'];
    const jobId = await jobOf(teamId, ids);
    // Two access lists among them: the team, and two people.
    const fieldsOf = (externalId: string, index: number) =>
      uploadFields(teamId, externalId, {
        title: `Manual ${externalId}`,
        metadata: { index },
        ...(index === 1 ? { access: peopleAccess('ann@example.com', 'bo@example.com') } : {}),
      });
    const document = (externalId: string, index: number) => ({
      fields: fieldsOf(externalId, index),
      contentHash: `hash-${externalId}`,
      chunks: manualChunks(TEXTS.slice(0, index + 1)),
      embeddings: { model: 'test-model', vectors: vectorsOf(index + 1) },
      options: { jobId, completes: itemIndexed(jobId, externalId, index + 1) },
    });
    const counted = countingConnection(sql());

    // Statements as big as PostgreSQL's (PGlite's start smaller and learn from their times).
    const sizers = {
      chunks: StatementSizer.fixed(Number.POSITIVE_INFINITY),
      vectors: StatementSizer.fixed(200),
    };
    const stored = await storeNewDocuments(counted.connection, sizers, ids.slice(0, 3).map(document));

    expect(counted).toMatchObject({ statements: 1, transactions: 0 });
    expect(stored.every((id) => id !== undefined)).toBe(true);
    expect(new Set(stored).size).toBe(3);
    // The same document stored alone, by the general way, stores the same rows.
    const alone = await replaceDocument(
      sql(),
      { ...fieldsOf('alone', 1), title: 'Manual radiators' },
      'hash-radiators',
      manualChunks(TEXTS.slice(0, 2)),
      { model: 'test-model', vectors: vectorsOf(2) },
      { jobId, storedChunks: 0, completes: itemIndexed(jobId, 'alone', 2) },
    );
    const together = await storedRows(stored[1] as number);
    const byItself = await storedRows(alone);
    expect(together.postings.length).toBeGreaterThan(10);
    expect({ ...together, document: { ...together.document, metadata: null } }).toEqual({
      ...byItself,
      document: { ...byItself.document, metadata: null },
    });
    expect(together.document?.metadata).toEqual({ index: 1 });
    expect(Number(together.document?.access_list_id)).not.toBe(
      Number((await storedRows(stored[0] as number)).document?.access_list_id),
    );
    for (const [index, id] of stored.entries()) {
      const rows = await storedRows(id as number);
      expect(rows.chunks).toHaveLength(index + 1);
      expect(rows.vectors).toHaveLength(index + 1);
      expect(rows.document).toMatchObject({
        title: `Manual ${ids[index]}`,
        content_hash: `hash-${ids[index]}`,
      });
    }
    const items = await listItems(sql(), jobId, ['indexed']);
    expect(items.map((item) => [item.externalId, item.chunks, item.documentId])).toEqual([
      ['boiler', 1, stored[0]],
      ['radiators', 2, stored[1]],
      ['valves', 3, stored[2]],
      ['alone', 2, alone],
    ]);
  });

  it('stores the others of a statement and answers undefined for a document stored meanwhile, leaving it as it was', async () => {
    const teamId = await insertTeam(sql(), 'Racers');
    const jobId = await jobOf(teamId, ['first', 'taken', 'last']);
    const taken = await replaceDocument(
      sql(),
      uploadFields(teamId, 'taken'),
      'theirs',
      textChunks(['kettle']),
      undefined,
    );
    const document = (externalId: string) => ({
      fields: uploadFields(teamId, externalId),
      contentHash: 'mine',
      chunks: textChunks([`teapot of ${externalId}`]),
      embeddings: undefined,
      options: { jobId, completes: itemIndexed(jobId, externalId, 1) },
    });

    const stored = await storeNewDocuments(
      sql(),
      statementSizers(sql()),
      ['first', 'taken', 'last'].map(document),
    );

    expect(stored[1]).toBeUndefined();
    expect(stored[0]).toBeDefined();
    expect(stored[2]).toBeDefined();
    expect((await storedRows(taken)).document).toMatchObject({ content_hash: 'theirs', chunk_count: 1 });
    expect((await storedRows(taken)).chunks.map((chunk) => chunk.text)).toEqual(['kettle']);
    const items = await listItems(sql(), jobId, ['indexed']);
    expect(items.map((item) => item.externalId)).toEqual(['first', 'last']);
  });

  it('stores a document alone by one statement even past the size statements aim at, and groups none beyond it', async () => {
    const teamId = await insertTeam(sql(), 'Small statements');
    const counted = countingConnection(sql());
    // As PGlite's sizers may have learnt: 10 characters and 1 vector a statement.
    const sizers = { chunks: StatementSizer.fixed(10), vectors: StatementSizer.fixed(1) };
    const document = (externalId: string) => ({
      fields: uploadFields(teamId, externalId),
      contentHash: 'h',
      chunks: manualChunks(TEXTS),
      embeddings: { model: 'test-model', vectors: vectorsOf(3) },
      options: {},
    });

    const stored = await storeNewDocuments(counted.connection, sizers, [document('one'), document('two')]);

    expect(counted).toMatchObject({ statements: 2, transactions: 0 });
    for (const id of stored) {
      const rows = await storedRows(id as number);
      expect([rows.chunks.length, rows.vectors.length]).toEqual([3, 3]);
    }
  });

  it('keeps apart what one statement may not hold: documents of other teams, and a document of over 200 chunks', async () => {
    const teamA = await insertTeam(sql(), 'Team A');
    const teamB = await insertTeam(sql(), 'Team B');
    const counted = countingConnection(sql());
    const document = (teamId: number, externalId: string, chunks: number) => ({
      fields: uploadFields(teamId, externalId),
      contentHash: 'h',
      chunks: textChunks(Array.from({ length: chunks }, (_, index) => `page ${index} of ${externalId}`)),
      embeddings: undefined,
      options: {},
    });

    const stored = await storeNewDocuments(counted.connection, statementSizers(counted.connection), [
      document(teamA, 'a1', 1),
      document(teamB, 'b1', 1),
      document(teamA, 'huge', 201),
      document(teamA, 'a2', 2),
    ]);

    expect(counted.statements).toBe(2);
    expect(stored[2]).toBeUndefined();
    const teams = await sql().executeSql(
      'SELECT external_id, team_id, chunk_count FROM documents WHERE team_id IN ($1, $2) ORDER BY external_id',
      [teamA, teamB],
    );
    expect(teams.rows.map((row) => [row.external_id, Number(row.team_id), Number(row.chunk_count)])).toEqual([
      ['a1', teamA, 1],
      ['a2', teamA, 2],
      ['b1', teamB, 1],
    ]);
  });
});
