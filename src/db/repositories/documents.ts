import { accessFingerprint, type DocumentAccess, normalizeAccess, type Reader } from '../../access.js';
import type { SqlConnection, SqlExecutor } from '../sql-connection.js';
import { nextStatement, StatementSizer } from '../statement-sizer.js';
import {
  accessListCtes,
  readableDocumentCondition,
  saveAccessList,
  spreadDocumentAccess,
} from './access-lists.js';
import { parameterIn } from './parameters.js';

/** A timestamp as either driver answers it. */
type Timestamp = Date | string;

/** An integer column that drivers may answer as text (bigint, count). */
type Integer = number | string;

/** What identifies a document: one per (team, source, external id). */
export interface DocumentKey {
  readonly teamId: number;
  readonly source: string;
  readonly externalId: string;
}

/** The change markers of a stored document, to tell whether a source's copy changed. */
export interface StoredDocumentState {
  readonly id: number;
  readonly status: string;
  readonly reason: string | null;
  readonly message: string | null;
  readonly contentHash: string | null;
  readonly sourceVersion: string | null;
  readonly chunkCount: number;
  /** Who brought it in (null when unknown, or that user is gone). */
  readonly indexedBy: number | null;
  readonly accessListId: number;
}

/**
 * A write refused because the stored document was brought in by someone else and the write was
 * not allowed to replace it (`DocumentFields.onlyItsIndexer`): nothing of the document changed.
 */
export class DocumentHeldByAnother extends Error {
  constructor(key: DocumentKey) {
    super(`Document ${key.source}/${key.externalId} was brought in by someone else`);
    this.name = 'DocumentHeldByAnother';
  }
}

/** A stored document's state as `STORED_STATE_COLUMNS` answer it. */
export interface StoredStateRow {
  id: Integer;
  status: string;
  reason: string | null;
  message: string | null;
  content_hash: string | null;
  source_version: string | null;
  chunk_count: Integer;
  indexed_by: Integer | null;
  access_list_id: Integer;
}

/** The columns of `documents AS d` that make a `StoredStateRow`. */
export const STORED_STATE_COLUMNS =
  'd.id, d.status, d.reason, d.message, d.content_hash, d.source_version, d.chunk_count, d.indexed_by, d.access_list_id';

export async function findDocumentState(
  db: SqlExecutor,
  key: DocumentKey,
): Promise<StoredDocumentState | undefined> {
  const { rows } = await db.executeSql<StoredStateRow>(
    `SELECT ${STORED_STATE_COLUMNS} FROM documents AS d WHERE d.team_id = $1 AND d.source = $2 AND d.external_id = $3`,
    [key.teamId, key.source, key.externalId],
  );
  return storedStateOf(rows[0]);
}

export function storedStateOf(row: StoredStateRow | undefined): StoredDocumentState | undefined {
  if (row === undefined || row.id === null) return undefined;
  return {
    id: Number(row.id),
    status: String(row.status),
    reason: row.reason ?? null,
    message: row.message ?? null,
    contentHash: row.content_hash ?? null,
    sourceVersion: row.source_version ?? null,
    chunkCount: Number(row.chunk_count),
    indexedBy: row.indexed_by === null ? null : Number(row.indexed_by),
    accessListId: Number(row.access_list_id),
  };
}

/** The document's descriptive fields, as the source reports them. */
export interface DocumentFields extends DocumentKey {
  readonly connectorId: number | null;
  readonly title: string;
  readonly url: string | null;
  readonly mimeType: string | null;
  readonly sourceVersion: string | null;
  readonly sourceModifiedAt: Date | null;
  readonly originId: string | null;
  readonly metadata: Record<string, unknown>;
  /** Who may open it, as its source says now. */
  readonly access: DocumentAccess;
  /** The user whose token or upload brought it in. */
  readonly indexedBy: number | null;
  /** The file's name as it was uploaded (`pino-api.md`), when it came as a file: part of what names it. */
  readonly fileName?: string | null;
  /**
   * True: the write applies only to a new document or one `indexedBy` brought in; a stored one
   * someone else brought in stays as it is and the write throws DocumentHeldByAnother. Uploads set
   * it (their content is the poster's word); the pipeline clears it once the poster was found
   * allowed to replace another's document (an owner or admin who may open it).
   */
  readonly onlyItsIndexer?: boolean;
}

export interface ChunkToStore {
  readonly position: number;
  readonly text: string;
  readonly headingPath: readonly string[];
  readonly pageLabels: readonly string[];
  readonly tokenCount: number;
  /** Title, heading path and text: what the full-text index and the embedding see. */
  readonly contextualText: string;
}

export interface EmbeddingsToStore {
  readonly model: string;
  /** One per chunk, in the chunks' order. */
  readonly vectors: readonly (readonly number[])[];
}

/** What the latest job did with a document, kept beside what is stored (`documents.last_job_*`). */
export interface DocumentJobOutcome {
  readonly jobId: string | null;
  readonly status: 'indexed' | 'skipped' | 'failed';
  readonly reason: string | null;
  readonly message: string | null;
}

/**
 * Documents of at most this many chunks are replaced in one transaction: readers see the old
 * chunks or the new ones, never both and never none. A bigger one is written a statement at a
 * time, so that no write holds PGlite's one connection for long: while it is being replaced its
 * status is `indexing`, and search finds the part stored so far.
 */
export const ATOMIC_REPLACE_CHUNKS = 200;

/**
 * What one statement of a long write on PGlite aims to take: it holds the one connection (every
 * request's query waits) while it runs. Chunks are sized by their characters: sized in rows, the p99 of
 * statements aimed at 15 ms was 36 ms while a 30 MB file was indexed (bench/indexing); by
 * characters, 20 ms. Aimed at 10 ms, that file took a tenth longer, for no lower /healthz p99.
 */
const PGLITE_STATEMENT_MS = 15;

/** Rows a statement carries on PostgreSQL, where statements block nothing else. */
const ROWS_PER_STATEMENT = 200;

/**
 * How big the statements of a write are: chunk text and vector rows. On PGlite they learn from the
 * statements' times, so a writer that keeps them (`storeNewDocuments`' callers) aims better.
 */
export interface StatementSizers {
  readonly chunks: StatementSizer;
  readonly vectors: StatementSizer;
}

export function statementSizers(connection: SqlConnection): StatementSizers {
  return { chunks: chunkStatementSizer(connection), vectors: rowStatementSizer(connection) };
}

/** Characters of chunk text a statement of chunks carries (on PostgreSQL, no limit but its rows). */
function chunkStatementSizer(connection: SqlConnection): StatementSizer {
  return connection.runsOnMainThread
    ? new StatementSizer({ targetMs: PGLITE_STATEMENT_MS, min: 1_000, max: 1_000_000 }, 16_000)
    : StatementSizer.fixed(Number.POSITIVE_INFINITY);
}

/** Rows a statement of vectors (or of deleted chunks) carries. */
export function rowStatementSizer(connection: SqlConnection): StatementSizer {
  return connection.runsOnMainThread
    ? new StatementSizer({ targetMs: PGLITE_STATEMENT_MS, min: 1, max: ROWS_PER_STATEMENT }, 4)
    : StatementSizer.fixed(ROWS_PER_STATEMENT);
}

/**
 * A chunk as a statement's parameter, its contextual text made once (it is made on each read),
 * and its work there: its text stored, and its text in context made into a tsvector.
 */
function chunkRow(chunk: ChunkToStore) {
  const contextual = chunk.contextualText;
  return {
    row: {
      position: chunk.position,
      text: chunk.text,
      heading_path: chunk.headingPath,
      page_labels: chunk.pageLabels,
      token_count: chunk.tokenCount,
      contextual,
    },
    units: chunk.text.length + contextual.length,
  };
}

const DOCUMENT_COLUMNS = `team_id, source, external_id, connector_id, title, url, mime_type, source_version,
    source_modified_at, origin_id, metadata, status, reason, message, content_hash, chunk_count, indexed_at,
    last_job_id, last_job_status, last_job_reason, last_job_message, last_job_at, access_list_id, indexed_by,
    file_name`;

const UPSERT_DOCUMENT = `
  INSERT INTO documents (${DOCUMENT_COLUMNS})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16, $17,
    $18, $19, $20, $21, CASE WHEN $19::text IS NULL THEN NULL ELSE now() END, $22, $23, $25)
  ON CONFLICT (team_id, source, external_id) DO UPDATE SET
    connector_id = excluded.connector_id, title = excluded.title, file_name = excluded.file_name,
    url = excluded.url,
    mime_type = excluded.mime_type, source_version = excluded.source_version,
    source_modified_at = excluded.source_modified_at,
    origin_id = COALESCE(excluded.origin_id, documents.origin_id), metadata = excluded.metadata,
    status = excluded.status, reason = excluded.reason, message = excluded.message,
    content_hash = excluded.content_hash,
    chunk_count = excluded.chunk_count, indexed_at = COALESCE(excluded.indexed_at, documents.indexed_at),
    last_job_id = COALESCE(excluded.last_job_id, documents.last_job_id),
    last_job_status = COALESCE(excluded.last_job_status, documents.last_job_status),
    last_job_reason = CASE WHEN excluded.last_job_status IS NULL THEN documents.last_job_reason
      ELSE excluded.last_job_reason END,
    last_job_message = CASE WHEN excluded.last_job_status IS NULL THEN documents.last_job_message
      ELSE excluded.last_job_message END,
    last_job_at = COALESCE(excluded.last_job_at, documents.last_job_at),
    access_list_id = excluded.access_list_id, indexed_by = COALESCE(documents.indexed_by, excluded.indexed_by),
    updated_at = now()
  WHERE NOT $24::boolean OR documents.indexed_by IS NOT DISTINCT FROM excluded.indexed_by
  RETURNING id`;

/** Whether a write of `fields` may change this stored document (`DocumentFields.onlyItsIndexer`). */
function writableBy(stored: StoredDocumentState, fields: DocumentFields): boolean {
  return fields.onlyItsIndexer !== true || stored.indexedBy === fields.indexedBy;
}

/** The id UPSERT_DOCUMENT answered; none means the stored document is another's (`onlyItsIndexer`). */
function upsertedId(rows: readonly { id: Integer }[], fields: DocumentFields): number {
  const id = rows[0]?.id;
  if (id === undefined) throw new DocumentHeldByAnother(fields);
  return Number(id);
}

function documentParameters(
  fields: DocumentFields,
  accessListId: number,
  stored: {
    status: string;
    reason: string | null;
    message: string | null;
    contentHash: string | null;
    chunkCount: number;
    indexed: boolean;
  },
  lastJob: DocumentJobOutcome | undefined,
): unknown[] {
  return [
    fields.teamId,
    fields.source,
    fields.externalId,
    fields.connectorId,
    fields.title,
    fields.url,
    fields.mimeType,
    fields.sourceVersion,
    fields.sourceModifiedAt,
    fields.originId,
    JSON.stringify(fields.metadata),
    stored.status,
    stored.reason,
    stored.message,
    stored.contentHash,
    stored.chunkCount,
    stored.indexed ? new Date() : null,
    lastJob?.jobId ?? null,
    lastJob?.status ?? null,
    lastJob?.reason ?? null,
    lastJob?.message ?? null,
    accessListId,
    fields.indexedBy,
    fields.onlyItsIndexer === true,
    fields.fileName ?? null,
  ];
}

/**
 * A posting's impact: BM25's saturated term frequency tf / (tf + k1·(1 − b + b·length / 150)), with
 * k1 1.2, b 0.75 and a reference length of 150 words (about the mean of our chunks without stop
 * words). Only an order, not a score: search reads a term's postings best first and may stop
 * after the best ones (retrieval/lexical-search.ts). Migration 0003 repeats it for old chunks.
 */
export function postingImpactSql(frequency: string, length: string): string {
  return `(${frequency} / (${frequency} + 1.2 * (0.25 + 0.75 * ${length} / 150.0)))::real`;
}

/**
 * A write that must commit with the document it completes (a job item's outcome), in the two
 * forms a replacement may take.
 */
export interface CompletingWrite {
  /** As a statement of the transaction that completes the document. */
  readonly within: (transaction: SqlExecutor, documentId: number) => Promise<void>;
  /**
   * As one CTE, named `name`, of the statement that stores new documents whole: it reads the
   * document's id from `document`, a relation `(id)` that may be empty (then it must write
   * nothing), and appends its parameters to `values`.
   */
  readonly cte: (values: unknown[], target: { readonly name: string; readonly document: string }) => string;
}

export interface ReplaceOptions {
  /** The job storing it: recorded as the document's last job, outcome `indexed`. */
  readonly jobId?: string | null;
  /**
   * Chunks the document has now, as the caller found it (`findDocumentState`); undefined when the
   * caller found no such document, or did not look.
   */
  readonly storedChunks?: number;
  /** Commits with the new chunks (the job item's outcome). */
  readonly completes?: CompletingWrite;
  /** Told each time new chunks are committed (once for a small document, per statement for a big one). */
  readonly onChunksCommitted?: (chunks: number) => void;
}

/**
 * Replaces a document's chunks (and their vectors). A document the caller found new
 * (`storedChunks` undefined) is stored whole by one statement when it fits one; else, up to
 * ATOMIC_REPLACE_CHUNKS chunks, in one transaction; beyond, a short statement at a time (see
 * ATOMIC_REPLACE_CHUNKS), the document marked `indexing` without a content hash until the last,
 * so a crash midway leaves it to be indexed again, never taken for complete. Each way `completes`
 * is written by the statement or transaction that completes it, so a crash cannot leave the
 * document stored but its item pending.
 */
export async function replaceDocument(
  connection: SqlConnection,
  fields: DocumentFields,
  contentHash: string,
  chunks: readonly ChunkToStore[],
  embeddings: EmbeddingsToStore | undefined,
  options: ReplaceOptions = {},
): Promise<number> {
  const sizers = statementSizers(connection);
  if (options.storedChunks === undefined) {
    const [documentId] = await storeNewDocuments(connection, sizers, [
      { fields, contentHash, chunks, embeddings, options },
    ]);
    if (documentId !== undefined) return documentId;
  }
  // Deleting a big document's old chunks is a long write too, whatever replaces them.
  if (chunks.length <= ATOMIC_REPLACE_CHUNKS && (options.storedChunks ?? 0) <= ATOMIC_REPLACE_CHUNKS) {
    const documentId = await connection.transaction(async (transaction) => {
      const documentId = await upsertIndexed(transaction, fields, contentHash, chunks.length, options.jobId);
      await transaction.executeSql('DELETE FROM chunks WHERE document_id = $1', [documentId]);
      await insertChunks(transaction, sizers, documentId, fields, chunks, embeddings);
      await options.completes?.within(transaction, documentId);
      return documentId;
    });
    options.onChunksCommitted?.(chunks.length);
    return documentId;
  }
  const accessListId = await saveAccessList(connection, fields.teamId, fields.access);
  const { rows } = await connection.executeSql<{ id: Integer }>(
    UPSERT_DOCUMENT,
    documentParameters(
      fields,
      accessListId,
      { status: 'indexing', reason: null, message: null, contentHash: null, chunkCount: 0, indexed: false },
      undefined,
    ),
  );
  const documentId = upsertedId(rows, fields);
  await deleteChunksInBatches(connection, documentId);
  // Each statement commits on its own: the document is incomplete (no content hash) until the
  // last transaction below, and an attempt cut short starts it over, so nothing is gained by
  // holding the connection for several statements.
  await insertChunks(connection, sizers, documentId, fields, chunks, embeddings, options.onChunksCommitted);
  return connection.transaction(async (transaction) => {
    await upsertIndexed(transaction, fields, contentHash, chunks.length, options.jobId);
    await options.completes?.within(transaction, documentId);
    return documentId;
  });
}

/** A document to store, as `replaceDocument` takes it. */
export interface DocumentToStore {
  readonly fields: DocumentFields;
  readonly contentHash: string;
  readonly chunks: readonly ChunkToStore[];
  readonly embeddings: EmbeddingsToStore | undefined;
  readonly options: ReplaceOptions;
}

/** Most documents one statement of `storeNewDocuments` stores. */
const DOCUMENTS_PER_STATEMENT = 16;

/**
 * New documents (their callers found none stored), each stored whole with its access list,
 * chunks, postings, vectors and `completes`, several by one statement: while a corpus of small
 * documents is indexed, each statement sent costs the event loop (node-pg's write, its wake-up)
 * and PostgreSQL its planning, a run of each statement trigger and a commit, and searches wait
 * behind both (bench/indexing, reads while indexing). A statement holds documents of one team,
 * source, connector and embedding model, up to `DOCUMENTS_PER_STATEMENT`, 200 chunks and what
 * `sizers` allow (a document alone, whatever they allow); each commits on its own. Answers each
 * document's id, or undefined for one it did not store, to be replaced another way
 * (`replaceDocument`): stored meanwhile, its access list being added by another transaction, or
 * of more than ATOMIC_REPLACE_CHUNKS chunks.
 */
export async function storeNewDocuments(
  db: SqlExecutor,
  sizers: StatementSizers,
  documents: readonly DocumentToStore[],
): Promise<(number | undefined)[]> {
  const ids: (number | undefined)[] = documents.map(() => undefined);
  const open = new Map<string, StatementOfDocuments>();
  const full: StatementOfDocuments[] = [];
  for (const [index, document] of documents.entries()) {
    const { chunks, embeddings } = document;
    if (chunks.length > ATOMIC_REPLACE_CHUNKS) continue;
    const rows = chunks.map(chunkRow);
    const units = rows.reduce((sum, row) => sum + row.units, 0);
    const { teamId, source, connectorId } = document.fields;
    const key = JSON.stringify([teamId, source, connectorId, embeddings?.model ?? null]);
    let statement = open.get(key);
    // The same document twice (never from one job's store): the second is left to the caller.
    if (statement?.documents.some((other) => other.fields.externalId === document.fields.externalId))
      continue;
    // The sizes only stop a statement from taking one more: a document alone takes a statement,
    // however long (its transaction would hold PGlite's one connection as long, in more round trips).
    if (
      statement !== undefined &&
      (statement.documents.length >= DOCUMENTS_PER_STATEMENT ||
        statement.chunks + chunks.length > ROWS_PER_STATEMENT ||
        statement.units + units > sizers.chunks.next ||
        (embeddings !== undefined && statement.chunks + chunks.length > sizers.vectors.next))
    ) {
      full.push(statement);
      statement = undefined;
    }
    if (statement === undefined) {
      statement = { documents: [], indexes: [], chunkRows: [], chunks: 0, units: 0 };
      open.set(key, statement);
    }
    statement.documents.push(document);
    statement.indexes.push(index);
    for (const { row } of rows)
      statement.chunkRows.push({ ...row, document: statement.documents.length - 1 });
    statement.chunks += chunks.length;
    statement.units += units;
  }
  for (const statement of [...full, ...open.values()]) {
    const began = performance.now();
    const stored = await insertDocuments(db, statement);
    sizers.chunks.record(statement.units, performance.now() - began);
    for (const [ordinal, id] of stored) {
      const index = statement.indexes[ordinal] as number;
      ids[index] = id;
      documents[index]?.options.onChunksCommitted?.(documents[index].chunks.length);
    }
  }
  return ids;
}

/** Documents `storeNewDocuments` stores by one statement, with their chunks' rows. */
interface StatementOfDocuments {
  readonly documents: DocumentToStore[];
  /** Each document's index in the caller's list. */
  readonly indexes: number[];
  /** `chunkRow`s, each with its document's ordinal in `documents`. */
  readonly chunkRows: (ReturnType<typeof chunkRow>['row'] & { document: number })[];
  chunks: number;
  units: number;
}

/** Stores the statement's documents; answers the id of each it stored, by its ordinal. */
async function insertDocuments(
  db: SqlExecutor,
  statement: StatementOfDocuments,
): Promise<Map<number, number>> {
  const { documents } = statement;
  const first = documents[0]?.fields;
  if (first === undefined) return new Map();
  const values: unknown[] = [];
  const parameter = parameterIn(values);
  const ctes: string[] = [];
  // One access list CTE for each list the documents name (most name the same).
  const accessLists = new Map<string, number>();
  const documentRows = documents.map((document, ordinal) => {
    const { fields } = document;
    const fingerprint = accessFingerprint(normalizeAccess(fields.access));
    let list = accessLists.get(fingerprint);
    if (list === undefined) {
      list = accessLists.size;
      accessLists.set(fingerprint, list);
      ctes.push(accessListCtes(fields.teamId, fields.access, values, `access_list_${list}`));
    }
    return {
      ordinal,
      access_list: list,
      external_id: wellFormed(fields.externalId),
      title: wellFormed(fields.title),
      url: wellFormed(fields.url),
      mime_type: wellFormed(fields.mimeType),
      source_version: wellFormed(fields.sourceVersion),
      source_modified_at: fields.sourceModifiedAt,
      origin_id: wellFormed(fields.originId),
      metadata: fields.metadata,
      content_hash: document.contentHash,
      chunk_count: document.chunks.length,
      job_id: document.options.jobId ?? null,
      indexed_by: fields.indexedBy,
      file_name: wellFormed(fields.fileName ?? null),
    };
  });
  const listIds = [...accessLists.values()]
    .map((list) => `SELECT ${list} AS list, id FROM access_list_${list}`)
    .join(' UNION ALL ');
  const team = parameter(first.teamId);
  const connector = parameter(first.connectorId);
  const source = parameter(first.source);
  const documentsJson = parameter(JSON.stringify(documentRows));
  // In the order of their keys, so that two statements storing some of the same documents
  // (two processes) wait for each other's rows in one order, never in a circle.
  ctes.push(`stored_documents AS (
       INSERT INTO documents (${DOCUMENT_COLUMNS})
       SELECT ${team}::int, ${source}::text, d.external_id, ${connector}::int, d.title, d.url, d.mime_type,
         d.source_version, d.source_modified_at, d.origin_id, d.metadata,
         'indexed', NULL, NULL, d.content_hash, d.chunk_count, now(),
         d.job_id, 'indexed', NULL, NULL, now(), a.id, d.indexed_by, d.file_name
       FROM jsonb_to_recordset(${documentsJson}::jsonb) AS d(ordinal int, access_list int,
         external_id text, title text, url text, mime_type text, source_version text,
         source_modified_at timestamptz, origin_id text, metadata jsonb, content_hash text, chunk_count int,
         job_id uuid, indexed_by int, file_name text)
       JOIN (${listIds}) AS a ON a.list = d.access_list
       ORDER BY d.external_id
       ON CONFLICT (team_id, source, external_id) DO NOTHING
       RETURNING id, external_id, access_list_id
     ), stored_ordinals AS (
       SELECT s.id, s.access_list_id, d.ordinal
       FROM stored_documents AS s
       JOIN jsonb_to_recordset(${documentsJson}::jsonb) AS d(ordinal int, external_id text) ON d.external_id = s.external_id
     )`);
  ctes.push(
    chunkCtes({
      from: 'stored_ordinals AS d JOIN',
      on: 'ON t.document = d.ordinal',
      document: 'd.id',
      accessList: 'd.access_list_id',
      team,
      connector,
      source,
      rows: parameter(JSON.stringify(statement.chunkRows)),
    }),
  );
  const model = documents.find((document) => document.embeddings !== undefined)?.embeddings?.model;
  if (model !== undefined) {
    const vectors = documents.flatMap((document, ordinal) =>
      document.embeddings === undefined
        ? []
        : vectorRows(document.chunks, document.embeddings.vectors).map((row) => ({
            ...row,
            document: ordinal,
          })),
    );
    ctes.push(`vectors AS (
       INSERT INTO chunk_embeddings (chunk_id, team_id, model, dimensions, embedding, access_list_id)
       SELECT i.id, ${team}::int, ${parameter(model)}::text, v.dimensions, v.embedding::vector, i.access_list_id
       FROM inserted AS i
       JOIN stored_ordinals AS d ON d.id = i.document_id
       JOIN jsonb_to_recordset(${parameter(JSON.stringify(vectors))}::jsonb)
         AS v(document int, position int, dimensions int, embedding text)
         ON v.document = d.ordinal AND v.position = i.position
     )`);
  }
  for (const [ordinal, document] of documents.entries()) {
    const completes = document.options.completes;
    if (completes === undefined) continue;
    ctes.push(
      completes.cte(values, {
        name: `completed_${ordinal}`,
        document: `(SELECT id FROM stored_ordinals WHERE ordinal = ${ordinal})`,
      }),
    );
  }
  const { rows } = await db.executeSql<{ id: Integer; ordinal: number }>(
    `WITH ${ctes.join(', ')} SELECT id, ordinal FROM stored_ordinals`,
    values,
  );
  return new Map(rows.map((row) => [Number(row.ordinal), Number(row.id)]));
}

/** Text as PostgreSQL takes it inside JSON: a lone surrogate (which jsonb refuses) as U+FFFD, as UTF-8 would carry it. */
function wellFormed<T extends string | null>(text: T): T {
  return (text === null ? text : text.toWellFormed()) as T;
}

async function upsertIndexed(
  db: SqlExecutor,
  fields: DocumentFields,
  contentHash: string,
  chunkCount: number,
  jobId: string | null | undefined,
): Promise<number> {
  const accessListId = await saveAccessList(db, fields.teamId, fields.access);
  const { rows } = await db.executeSql<{ id: Integer }>(
    UPSERT_DOCUMENT,
    documentParameters(
      fields,
      accessListId,
      { status: 'indexed', reason: null, message: null, contentHash, chunkCount, indexed: true },
      { jobId: jobId ?? null, status: 'indexed', reason: null, message: null },
    ),
  );
  return upsertedId(rows, fields);
}

/**
 * Inserts the chunks with their postings (and vectors), in statements `sizers` size; `committed`
 * hears of each statement's chunks when `db` commits each statement on its own.
 */
async function insertChunks(
  db: SqlExecutor,
  sizers: { readonly chunks: StatementSizer; readonly vectors: StatementSizer },
  documentId: number,
  fields: DocumentFields,
  chunks: readonly ChunkToStore[],
  embeddings: EmbeddingsToStore | undefined,
  committed?: (chunks: number) => void,
): Promise<void> {
  for (let from = 0; from < chunks.length; ) {
    const { rows, units } = nextStatement(chunks, from, sizers.chunks.next, ROWS_PER_STATEMENT, chunkRow);
    const began = performance.now();
    const inserted = await db.executeSql<{ id: Integer; position: number }>(
      `WITH ${chunkCtes({
        from: '',
        document: '$1',
        accessList: '(SELECT access_list_id FROM documents WHERE id = $1)',
        team: '$2',
        connector: '$3',
        source: '$4',
        rows: '$5',
      })}
       SELECT id, position FROM inserted`,
      [documentId, fields.teamId, fields.connectorId, fields.source, JSON.stringify(rows)],
    );
    sizers.chunks.record(units, performance.now() - began);
    if (embeddings !== undefined) {
      const idByPosition = new Map<number, number>(
        inserted.rows.map((row) => [Number(row.position), Number(row.id)]),
      );
      await insertEmbeddingsInStatements(
        db,
        sizers.vectors,
        fields.teamId,
        embeddings.model,
        rows.map((row, index) => ({
          chunkId: idByPosition.get(row.position) ?? -1,
          vector: embeddings.vectors[from + index] ?? [],
        })),
      );
    }
    committed?.(rows.length);
    from += rows.length;
  }
}

/**
 * The CTEs `inserted` (chunks, from `rows`, a parameter of `chunkRow`s as JSON) and `postings`
 * (their terms). `from` is what each row is joined to (`stored_document AS d CROSS JOIN`, or
 * nothing), and the other parts are SQL expressions of the document's id, its access list, its
 * team, connector and source.
 */
function chunkCtes(parts: {
  readonly from: string;
  /** The join's condition, when `from` ends in JOIN; the rows then have a `document` (int) to join on. */
  readonly on?: string;
  readonly document: string;
  readonly accessList: string;
  readonly team: string;
  readonly connector: string;
  readonly source: string;
  readonly rows: string;
}): string {
  return `inserted AS (
       INSERT INTO chunks (document_id, team_id, connector_id, source, position, text, heading_path,
         page_labels, token_count, search, lexical_length, access_list_id)
       SELECT ${parts.document}, ${parts.team}::int, ${parts.connector}::int, ${parts.source}::text, t.position,
         t.text, ARRAY(SELECT jsonb_array_elements_text(t.heading_path)),
         ARRAY(SELECT jsonb_array_elements_text(t.page_labels)),
         t.token_count, v.search,
         (SELECT coalesce(sum(array_length(l.positions, 1)), 0) FROM unnest(v.search) AS l),
         ${parts.accessList}
       FROM ${parts.from} jsonb_to_recordset(${parts.rows}::jsonb)
         AS t(position int, text text, heading_path jsonb, page_labels jsonb, token_count int, contextual text${
           parts.on === undefined ? '' : ', document int'
         }) ${parts.on ?? ''}
       CROSS JOIN LATERAL (SELECT to_tsvector('english', t.contextual) AS search) AS v
       RETURNING id, document_id, position, search, lexical_length, access_list_id
     ), postings AS (
       INSERT INTO chunk_terms (chunk_id, term, team_id, frequency, chunk_length, impact, connector_id, source,
         access_list_id)
       SELECT i.id, l.lexeme, ${parts.team}::int, f.frequency, i.lexical_length,
         ${postingImpactSql('f.frequency', 'i.lexical_length')}, ${parts.connector}::int, ${parts.source}::text,
         i.access_list_id
       FROM inserted AS i, unnest(i.search) AS l,
         LATERAL (SELECT coalesce(array_length(l.positions, 1), 1) AS frequency) AS f
     )`;
}

/** Vectors as a statement's JSON rows, by their chunks' positions. */
function vectorRows(chunks: readonly ChunkToStore[], vectors: EmbeddingsToStore['vectors']) {
  return chunks.map((chunk, index) => {
    const vector = vectors[index] ?? [];
    return { position: chunk.position, dimensions: vector.length, embedding: `[${vector.join(',')}]` };
  });
}

/**
 * Deletes a document's chunks (their postings and vectors go with them) in short statements:
 * one statement for a big document's tens of thousands of chunks and millions of postings would
 * hold PGlite's one connection for seconds.
 */
export async function deleteChunksInBatches(connection: SqlConnection, documentId: number): Promise<void> {
  const sizer = rowStatementSizer(connection);
  for (;;) {
    const began = performance.now();
    const { rows } = await connection.executeSql<unknown>(
      `DELETE FROM chunks WHERE id IN (SELECT id FROM chunks WHERE document_id = $1 LIMIT $2) RETURNING 1`,
      [documentId, sizer.next],
    );
    if (rows.length === 0) return;
    sizer.record(rows.length, performance.now() - began);
  }
}

/**
 * Deletes one document of a team with its chunks (in short statements, see
 * `deleteChunksInBatches`); answers the number of chunks it had, or undefined when there was no
 * such document.
 */
export async function deleteTeamDocument(
  connection: SqlConnection,
  teamId: number,
  documentId: number,
): Promise<number | undefined> {
  const { rows } = await connection.executeSql<{ chunk_count: Integer }>(
    'SELECT chunk_count FROM documents WHERE id = $1 AND team_id = $2',
    [documentId, teamId],
  );
  if (rows[0] === undefined) return undefined;
  await deleteChunksInBatches(connection, documentId);
  const deleted = await connection.executeSql<{ id: Integer }>(
    'DELETE FROM documents WHERE id = $1 AND team_id = $2 RETURNING id',
    [documentId, teamId],
  );
  return deleted.rows.length === 0 ? undefined : Number(rows[0].chunk_count);
}

/** As `insertEmbeddings`, in statements of the rows `sizer` gives. */
export async function insertEmbeddingsInStatements(
  db: SqlExecutor,
  sizer: StatementSizer,
  teamId: number | null,
  model: string,
  rows: readonly { readonly chunkId: number; readonly vector: readonly number[] }[],
): Promise<void> {
  for (let from = 0; from < rows.length; ) {
    const to = Math.min(rows.length, from + sizer.next);
    const began = performance.now();
    await insertEmbeddings(db, teamId, model, rows.slice(from, to));
    sizer.record(to - from, performance.now() - began);
    from = to;
  }
}

/** Stores vectors of one model; a vector already stored for that chunk and model is replaced. */
export async function insertEmbeddings(
  db: SqlExecutor,
  teamId: number | null,
  model: string,
  rows: readonly { readonly chunkId: number; readonly vector: readonly number[] }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.executeSql(
    `INSERT INTO chunk_embeddings (chunk_id, team_id, model, dimensions, embedding, access_list_id)
     SELECT t.chunk_id, COALESCE($1, c.team_id), $2, t.dimensions, t.embedding::vector, c.access_list_id
     FROM jsonb_to_recordset($3::jsonb) AS t(chunk_id bigint, dimensions int, embedding text)
     JOIN chunks c ON c.id = t.chunk_id
     ON CONFLICT (chunk_id, model) DO UPDATE SET dimensions = excluded.dimensions, embedding = excluded.embedding,
       access_list_id = excluded.access_list_id`,
    [
      teamId,
      model,
      JSON.stringify(
        rows.map((row) => ({
          chunk_id: row.chunkId,
          dimensions: row.vector.length,
          embedding: `[${row.vector.join(',')}]`,
        })),
      ),
    ],
  );
}

/**
 * Records a file that was skipped or failed. When `dropChunks`, its old chunks go too (the file is
 * gone, unreadable or no longer ours to show) and the document's stored state becomes the outcome;
 * otherwise they stay searchable and the document stays as stored, with the outcome as its last
 * job's.
 */
export async function recordDocumentOutcome(
  connection: SqlConnection,
  fields: DocumentFields,
  outcome: {
    status: 'skipped' | 'failed';
    reason: string;
    message: string | null;
    dropChunks: boolean;
    jobId?: string | null;
  },
  within?: (transaction: SqlExecutor, documentId: number, chunkCount: number) => Promise<void>,
): Promise<number> {
  const existing = await findDocumentState(connection, fields);
  if (existing !== undefined && !writableBy(existing, fields)) throw new DocumentHeldByAnother(fields);
  if (outcome.dropChunks && existing !== undefined && existing.chunkCount > ATOMIC_REPLACE_CHUNKS) {
    await deleteChunksInBatches(connection, existing.id);
  }
  return connection.transaction(async (transaction) => {
    const current = await findDocumentState(transaction, fields);
    const keepChunks = !outcome.dropChunks && current !== undefined && current.status !== 'indexing';
    const lastJob: DocumentJobOutcome = {
      jobId: outcome.jobId ?? null,
      status: outcome.status,
      reason: outcome.reason,
      message: outcome.message,
    };
    const accessListId = await saveAccessList(transaction, fields.teamId, fields.access);
    const { rows } = await transaction.executeSql<{ id: Integer }>(
      UPSERT_DOCUMENT,
      documentParameters(
        fields,
        accessListId,
        keepChunks
          ? {
              status: current.status,
              reason: current.reason,
              message: current.message,
              contentHash: current.contentHash,
              chunkCount: current.chunkCount,
              indexed: false,
            }
          : {
              status: outcome.status,
              reason: outcome.reason,
              message: outcome.message,
              contentHash: null,
              chunkCount: 0,
              indexed: false,
            },
        lastJob,
      ),
    );
    const documentId = upsertedId(rows, fields);
    if (!keepChunks) await transaction.executeSql('DELETE FROM chunks WHERE document_id = $1', [documentId]);
    else await spreadDocumentAccess(transaction, documentId);
    const chunkCount = keepChunks ? current.chunkCount : 0;
    await within?.(transaction, documentId, chunkCount);
    return documentId;
  });
}

/**
 * Records a document found unchanged (same content, perhaps new change markers or title): its
 * chunks and stored state stay. When its source now gives it another access list (a Drive file
 * shared anew), the list reaches its chunks, postings and vectors without embedding them again,
 * and the job's outcome is `indexed`, not `unchanged`: an unchanged document keeps who may open
 * it. Answers whether the access list changed; `within` runs in the same transaction.
 */
export async function markDocumentUnchanged(
  connection: SqlConnection,
  documentId: number,
  fields: Pick<
    DocumentFields,
    'teamId' | 'title' | 'url' | 'sourceVersion' | 'sourceModifiedAt' | 'originId' | 'access'
  >,
  jobId: string | null,
  within?: (transaction: SqlExecutor, accessChanged: boolean) => Promise<void>,
): Promise<boolean> {
  return connection.transaction(async (transaction) => {
    const accessListId = await saveAccessList(transaction, fields.teamId, fields.access);
    const { rows } = await transaction.executeSql<{ access_list_id: Integer }>(
      'SELECT access_list_id FROM documents WHERE id = $1 FOR UPDATE',
      [documentId],
    );
    const accessChanged = rows[0] !== undefined && Number(rows[0].access_list_id) !== accessListId;
    await transaction.executeSql(
      `UPDATE documents SET title = $2, url = $3, access_list_id = $8,
         source_version = COALESCE($4, source_version), source_modified_at = COALESCE($5, source_modified_at),
         origin_id = COALESCE($6, origin_id), last_job_id = COALESCE($7, last_job_id),
         last_job_status = $9, last_job_reason = $10, last_job_message = NULL,
         last_job_at = now(), updated_at = now()
       WHERE id = $1`,
      [
        documentId,
        fields.title,
        fields.url,
        fields.sourceVersion,
        fields.sourceModifiedAt,
        fields.originId,
        jobId,
        accessListId,
        accessChanged ? 'indexed' : 'skipped',
        accessChanged ? null : 'unchanged',
      ],
    );
    if (accessChanged) await spreadDocumentAccess(transaction, documentId);
    await within?.(transaction, accessChanged);
    return accessChanged;
  });
}

/**
 * Whether `replacer` may replace a stored document someone else brought in: an active owner or
 * admin of the document's team who may open it.
 */
export async function mayReplaceAnothersDocument(
  db: SqlExecutor,
  documentId: number,
  replacer: Reader,
): Promise<boolean> {
  if (replacer.userId === null) return false;
  const values: unknown[] = [documentId, replacer.userId];
  const readable = readableDocumentCondition('d', replacer, values);
  const { rows } = await db.executeSql<{ allowed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM users AS u WHERE u.id = $2 AND u.team_id = d.team_id AND u.is_active
         AND u.role IN ('owner', 'admin')) AND ${readable} AS allowed
     FROM documents AS d WHERE d.id = $1`,
    values,
  );
  return rows[0]?.allowed === true;
}

/**
 * Deletes a connector's documents that a complete listing no longer contains (files moved out of
 * a re-indexed folder, wiki pages removed). `originId` narrows it to one Drive folder's files.
 */
export async function deleteDocumentsNotListed(
  db: SqlExecutor,
  teamId: number,
  source: string,
  connectorId: number,
  listedExternalIds: readonly string[],
  originId?: string,
): Promise<number> {
  const { rows } = await db.executeSql<{ id: Integer }>(
    `DELETE FROM documents WHERE team_id = $1 AND source = $2 AND connector_id = $3
       AND ($5::text IS NULL OR origin_id = $5) AND NOT (external_id = ANY($4::text[]))
     RETURNING id`,
    [teamId, source, connectorId, listedExternalIds, originId ?? null],
  );
  return rows.length;
}

/** A document as listings show it: what is stored, and what its latest job did. */
export interface ListedDocument {
  readonly id: number;
  readonly externalId: string;
  readonly title: string;
  /** The file's name as it was uploaded (`pino-api.md`); null when it came as JSON or from a connector. */
  readonly fileName: string | null;
  readonly source: string;
  readonly status: string;
  readonly reason: string | null;
  readonly chunkCount: number;
  readonly url: string | null;
  readonly connectorId: number | null;
  readonly mimeType: string | null;
  readonly createdAt: Date | null;
  readonly updatedAt: Date | null;
  readonly indexedAt: Date | null;
  /** Its access list (`findAccessLists` reads it). */
  readonly accessListId: number;
  readonly indexedBy: number | null;
  readonly lastJob: {
    readonly id: string | null;
    readonly status: string;
    readonly reason: string | null;
    readonly message: string | null;
    readonly at: Date | null;
  } | null;
}

/** The columns of a listed document (`d`). */
const LISTED_DOCUMENT_COLUMNS = `d.id, d.external_id, d.title, d.file_name, d.source, d.status, d.reason,
  d.chunk_count, d.url, d.connector_id, d.mime_type, d.created_at, d.updated_at, d.indexed_at, d.last_job_id,
  d.last_job_status, d.last_job_reason, d.last_job_message, d.last_job_at, d.access_list_id, d.indexed_by`;

/** A `documents` row as selected with LISTED_DOCUMENT_COLUMNS. */
interface ListedDocumentRow {
  id: Integer;
  external_id: string;
  title: string;
  file_name: string | null;
  source: string;
  status: string;
  reason: string | null;
  chunk_count: Integer;
  url: string | null;
  connector_id: Integer | null;
  mime_type: string | null;
  created_at: Timestamp | null;
  updated_at: Timestamp | null;
  indexed_at: Timestamp | null;
  last_job_id: string | null;
  last_job_status: string | null;
  last_job_reason: string | null;
  last_job_message: string | null;
  last_job_at: Timestamp | null;
  access_list_id: Integer;
  indexed_by: Integer | null;
}

function listedDocumentFromRow(row: ListedDocumentRow): ListedDocument {
  return {
    id: Number(row.id),
    externalId: String(row.external_id),
    title: String(row.title),
    fileName: row.file_name ?? null,
    source: String(row.source),
    status: String(row.status),
    reason: row.reason ?? null,
    chunkCount: Number(row.chunk_count),
    url: row.url ?? null,
    connectorId:
      row.connector_id === null || row.connector_id === undefined ? null : Number(row.connector_id),
    mimeType: row.mime_type ?? null,
    createdAt: dateOrNull(row.created_at),
    updatedAt: dateOrNull(row.updated_at),
    indexedAt: dateOrNull(row.indexed_at),
    accessListId: Number(row.access_list_id),
    indexedBy: row.indexed_by === null || row.indexed_by === undefined ? null : Number(row.indexed_by),
    lastJob:
      row.last_job_status === null || row.last_job_status === undefined
        ? null
        : {
            id: row.last_job_id === null || row.last_job_id === undefined ? null : String(row.last_job_id),
            status: String(row.last_job_status),
            reason: row.last_job_reason ?? null,
            message: row.last_job_message ?? null,
            at: dateOrNull(row.last_job_at),
          },
  };
}

/** One document the reader may open, or undefined (another team's, or not theirs to open). */
export async function findReadableDocument(
  db: SqlExecutor,
  reader: Reader,
  documentId: number,
): Promise<ListedDocument | undefined> {
  const values: unknown[] = [documentId];
  const readable = readableDocumentCondition('d', reader, values);
  const { rows } = await db.executeSql<ListedDocumentRow>(
    `SELECT ${LISTED_DOCUMENT_COLUMNS} FROM documents AS d WHERE d.id = $1 AND ${readable}`,
    values,
  );
  const row = rows[0];
  return row === undefined ? undefined : listedDocumentFromRow(row);
}

/** A page of the documents the reader may open (of one source, or all when `source` is null), newest first. */
export async function listReadableDocuments(
  db: SqlExecutor,
  reader: Reader,
  page: { readonly source: string | null; readonly limit: number; readonly offset: number },
): Promise<ListedDocument[]> {
  const values: unknown[] = [page.source, page.limit, page.offset];
  const readable = readableDocumentCondition('d', reader, values);
  const { rows } = await db.executeSql<ListedDocumentRow>(
    `SELECT ${LISTED_DOCUMENT_COLUMNS}
     FROM documents AS d WHERE ${readable} AND ($1::text IS NULL OR d.source = $1)
     ORDER BY d.id DESC LIMIT $2 OFFSET $3`,
    values,
  );
  return rows.map(listedDocumentFromRow);
}

/** How many documents the reader may open (of one source, or all when `source` is null). */
export async function countReadableDocuments(
  db: SqlExecutor,
  reader: Reader,
  source: string | null,
): Promise<number> {
  const values: unknown[] = [source];
  const readable = readableDocumentCondition('d', reader, values);
  const { rows } = await db.executeSql<{ total: Integer }>(
    `SELECT count(*) AS total FROM documents AS d WHERE ${readable} AND ($1::text IS NULL OR d.source = $1)`,
    values,
  );
  return Number(rows[0]?.total ?? 0);
}

/** How many documents of the connector the reader may open. */
export async function countReadableConnectorDocuments(
  db: SqlExecutor,
  reader: Reader,
  connectorId: number,
): Promise<number> {
  const values: unknown[] = [connectorId];
  const readable = readableDocumentCondition('d', reader, values);
  const { rows } = await db.executeSql<{ total: Integer }>(
    `SELECT count(*) AS total FROM documents AS d WHERE d.connector_id = $1 AND ${readable}`,
    values,
  );
  return Number(rows[0]?.total ?? 0);
}

/** A connector's stored file, with the outcome of its latest indexing. */
export interface ConnectorFile {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly reason: string | null;
  readonly chunks: number;
  readonly url: string | null;
}

/** The first `limit` documents of the connector the reader may open, oldest first, as its files. */
export async function listReadableConnectorFiles(
  db: SqlExecutor,
  reader: Reader,
  connectorId: number,
  limit: number,
): Promise<ConnectorFile[]> {
  const values: unknown[] = [connectorId, limit];
  const readable = readableDocumentCondition('d', reader, values);
  const { rows } = await db.executeSql<{
    id: string;
    name: string;
    status: string;
    reason: string | null;
    chunks: Integer;
    url: string | null;
  }>(
    `SELECT d.external_id AS id, d.title AS name, d.status, d.reason, d.chunk_count AS chunks, d.url
     FROM documents AS d WHERE d.connector_id = $1 AND ${readable} ORDER BY d.id LIMIT $2`,
    values,
  );
  return rows.map((row) => ({
    id: String(row.id),
    name: String(row.name),
    status: String(row.status),
    reason: row.reason ?? null,
    chunks: Number(row.chunks),
    url: row.url ?? null,
  }));
}

/** A stored chunk as a document's page shows it. */
export interface DocumentChunk {
  readonly id: number;
  readonly position: number;
  readonly text: string;
  readonly headingPath: string[];
}

/** The first `limit` chunks of a document the reader may open, in order (nothing otherwise). */
export async function listReadableDocumentChunks(
  db: SqlExecutor,
  reader: Reader,
  documentId: number,
  limit: number,
): Promise<DocumentChunk[]> {
  const values: unknown[] = [documentId, limit];
  const readable = readableDocumentCondition('d', reader, values);
  const { rows } = await db.executeSql<{
    id: Integer;
    position: number;
    text: string;
    heading_path: string[] | null;
  }>(
    `SELECT c.id, c.position, c.text, c.heading_path FROM documents AS d
     JOIN chunks AS c ON c.document_id = d.id AND c.team_id = d.team_id
     WHERE d.id = $1 AND ${readable} ORDER BY c.position LIMIT $2`,
    values,
  );
  return rows.map((row) => ({
    id: Number(row.id),
    position: Number(row.position),
    text: String(row.text),
    headingPath: Array.isArray(row.heading_path) ? row.heading_path.map(String) : [],
  }));
}

function dateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : new Date(value as string | Date);
}
