import type { SqlConnection, SqlExecutor } from '../sql-connection.js';

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
  readonly contentHash: string | null;
  readonly sourceVersion: string | null;
  readonly chunkCount: number;
}

export async function findDocumentState(
  db: SqlExecutor,
  key: DocumentKey,
): Promise<StoredDocumentState | undefined> {
  const { rows } = await db.executeSql(
    `SELECT id, status, reason, content_hash, source_version, chunk_count FROM documents
     WHERE team_id = $1 AND source = $2 AND external_id = $3`,
    [key.teamId, key.source, key.externalId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    id: Number(row.id),
    status: String(row.status),
    reason: row.reason ?? null,
    contentHash: row.content_hash ?? null,
    sourceVersion: row.source_version ?? null,
    chunkCount: Number(row.chunk_count),
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

// PGlite runs on the main thread: a few hundred rows a statement keeps each call short.
const CHUNK_ROWS_PER_STATEMENT = 200;

const UPSERT_DOCUMENT = `
  INSERT INTO documents (team_id, source, external_id, connector_id, title, url, mime_type, source_version,
    source_modified_at, origin_id, metadata, status, reason, message, content_hash, chunk_count, indexed_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16, $17)
  ON CONFLICT (team_id, source, external_id) DO UPDATE SET
    connector_id = excluded.connector_id, title = excluded.title, url = excluded.url,
    mime_type = excluded.mime_type, source_version = excluded.source_version,
    source_modified_at = excluded.source_modified_at,
    origin_id = COALESCE(excluded.origin_id, documents.origin_id), metadata = excluded.metadata,
    status = excluded.status, reason = excluded.reason, message = excluded.message,
    content_hash = COALESCE(excluded.content_hash, documents.content_hash),
    chunk_count = excluded.chunk_count, indexed_at = COALESCE(excluded.indexed_at, documents.indexed_at),
    updated_at = now()
  RETURNING id`;

function documentParameters(
  fields: DocumentFields,
  outcome: {
    status: string;
    reason: string | null;
    message: string | null;
    contentHash: string | null;
    chunkCount: number;
    indexed: boolean;
  },
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
    outcome.status,
    outcome.reason,
    outcome.message,
    outcome.contentHash,
    outcome.chunkCount,
    outcome.indexed ? new Date() : null,
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
 * Replaces a document's chunks (and their vectors) in one transaction: readers see the old
 * chunks or the new ones, never both and never none. `within` runs in the same transaction
 * (the job item's outcome), so a crash cannot leave the document stored but its item pending.
 */
export async function replaceDocument(
  connection: SqlConnection,
  fields: DocumentFields,
  contentHash: string,
  chunks: readonly ChunkToStore[],
  embeddings: EmbeddingsToStore | undefined,
  within?: (transaction: SqlExecutor, documentId: number) => Promise<void>,
): Promise<number> {
  return connection.transaction(async (transaction) => {
    const { rows } = await transaction.executeSql(
      UPSERT_DOCUMENT,
      documentParameters(fields, {
        status: 'indexed',
        reason: null,
        message: null,
        contentHash,
        chunkCount: chunks.length,
        indexed: true,
      }),
    );
    const documentId = Number(rows[0]?.id);
    await transaction.executeSql('DELETE FROM chunks WHERE document_id = $1', [documentId]);
    for (let start = 0; start < chunks.length; start += CHUNK_ROWS_PER_STATEMENT) {
      const slice = chunks.slice(start, start + CHUNK_ROWS_PER_STATEMENT);
      const inserted = await transaction.executeSql(
        `WITH inserted AS (
           INSERT INTO chunks (document_id, team_id, connector_id, source, position, text, heading_path,
             page_labels, token_count, search, lexical_length)
           SELECT $1, $2, $3, $4, t.position, t.text,
             ARRAY(SELECT jsonb_array_elements_text(t.heading_path)),
             ARRAY(SELECT jsonb_array_elements_text(t.page_labels)),
             t.token_count, v.search,
             (SELECT coalesce(sum(array_length(l.positions, 1)), 0) FROM unnest(v.search) AS l)
           FROM jsonb_to_recordset($5::jsonb)
             AS t(position int, text text, heading_path jsonb, page_labels jsonb, token_count int, contextual text)
           CROSS JOIN LATERAL (SELECT to_tsvector('english', t.contextual) AS search) AS v
           RETURNING id, position, search, lexical_length
         ), postings AS (
           INSERT INTO chunk_terms (chunk_id, term, team_id, frequency, chunk_length, impact, connector_id, source)
           SELECT i.id, l.lexeme, $2, f.frequency, i.lexical_length,
             ${postingImpactSql('f.frequency', 'i.lexical_length')}, $3, $4
           FROM inserted AS i, unnest(i.search) AS l,
             LATERAL (SELECT coalesce(array_length(l.positions, 1), 1) AS frequency) AS f
         )
         SELECT id, position FROM inserted`,
        [
          documentId,
          fields.teamId,
          fields.connectorId,
          fields.source,
          JSON.stringify(
            slice.map((chunk) => ({
              position: chunk.position,
              text: chunk.text,
              heading_path: chunk.headingPath,
              page_labels: chunk.pageLabels,
              token_count: chunk.tokenCount,
              contextual: chunk.contextualText,
            })),
          ),
        ],
      );
      if (embeddings !== undefined) {
        const idByPosition = new Map<number, number>(
          inserted.rows.map((row) => [Number(row.position), Number(row.id)]),
        );
        await insertEmbeddings(
          transaction,
          fields.teamId,
          embeddings.model,
          slice.map((chunk, index) => ({
            chunkId: idByPosition.get(chunk.position) ?? -1,
            vector: embeddings.vectors[start + index] ?? [],
          })),
        );
      }
    }
    await within?.(transaction, documentId);
    return documentId;
  });
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
    `INSERT INTO chunk_embeddings (chunk_id, team_id, model, dimensions, embedding)
     SELECT t.chunk_id, COALESCE($1, c.team_id), $2, t.dimensions, t.embedding::vector
     FROM jsonb_to_recordset($3::jsonb) AS t(chunk_id bigint, dimensions int, embedding text)
     JOIN chunks c ON c.id = t.chunk_id
     ON CONFLICT (chunk_id, model) DO UPDATE SET dimensions = excluded.dimensions, embedding = excluded.embedding`,
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
 * gone, unreadable or no longer ours to show); otherwise they stay searchable.
 */
export async function recordDocumentOutcome(
  connection: SqlConnection,
  fields: DocumentFields,
  outcome: { status: 'skipped' | 'failed'; reason: string; message: string | null; dropChunks: boolean },
  within?: (transaction: SqlExecutor, documentId: number, chunkCount: number) => Promise<void>,
): Promise<number> {
  return connection.transaction(async (transaction) => {
    const existing = await findDocumentState(transaction, fields);
    const keepChunks = !outcome.dropChunks && existing !== undefined;
    const chunkCount = keepChunks ? existing.chunkCount : 0;
    const { rows } = await transaction.executeSql(
      UPSERT_DOCUMENT,
      documentParameters(fields, {
        status: outcome.status,
        reason: outcome.reason,
        message: outcome.message,
        contentHash: null,
        chunkCount,
        indexed: false,
      }),
    );
    const documentId = Number(rows[0]?.id);
    if (!keepChunks) {
      await transaction.executeSql('DELETE FROM chunks WHERE document_id = $1', [documentId]);
      await transaction.executeSql('UPDATE documents SET content_hash = NULL WHERE id = $1', [documentId]);
    }
    await within?.(transaction, documentId, chunkCount);
    return documentId;
  });
}

/** Marks a document unchanged: same content, new change markers; its chunks stay. */
export async function markDocumentUnchanged(
  connection: SqlConnection,
  documentId: number,
  fields: Pick<DocumentFields, 'title' | 'url' | 'sourceVersion' | 'sourceModifiedAt' | 'originId'>,
  within?: (transaction: SqlExecutor) => Promise<void>,
): Promise<void> {
  await connection.transaction(async (transaction) => {
    await transaction.executeSql(
      `UPDATE documents SET status = 'skipped', reason = 'unchanged', message = NULL, title = $2, url = $3,
         source_version = COALESCE($4, source_version), source_modified_at = COALESCE($5, source_modified_at),
         origin_id = COALESCE($6, origin_id), updated_at = now()
       WHERE id = $1`,
      [documentId, fields.title, fields.url, fields.sourceVersion, fields.sourceModifiedAt, fields.originId],
    );
    await within?.(transaction);
  });
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
  const { rows } = await db.executeSql(
    `DELETE FROM documents WHERE team_id = $1 AND source = $2 AND connector_id = $3
       AND ($5::text IS NULL OR origin_id = $5) AND NOT (external_id = ANY($4::text[]))
     RETURNING id`,
    [teamId, source, connectorId, listedExternalIds, originId ?? null],
  );
  return rows.length;
}
