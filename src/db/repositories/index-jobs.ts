import type { Reader } from '../../access.js';
import type { SqlExecutor } from '../sql-connection.js';
import { readableDocumentCondition } from './access-lists.js';
import {
  type CompletingWrite,
  type ConnectorFile,
  type DocumentKey,
  STORED_STATE_COLUMNS,
  type StoredDocumentState,
  type StoredStateRow,
  storedStateOf,
} from './documents.js';
import { parameterIn } from './parameters.js';

export type IndexJobKind = 'googledrive' | 'wiki' | 'upload';
export type IndexJobStatus = 'queued' | 'running' | 'completed' | 'failed';
export type ItemStatus = 'queued' | 'indexing' | 'indexed' | 'skipped' | 'failed';

export interface IndexJobRow {
  readonly id: string;
  readonly teamId: number;
  readonly connectorId: number | null;
  readonly kind: IndexJobKind;
  readonly status: IndexJobStatus;
  /** The user who asked for it (null once that user is gone), and their e-mail. */
  readonly requestedBy: number | null;
  readonly requestedByEmail: string | null;
  /** Whether that user's address is proven (it then counts in access lists). */
  readonly requestedByEmailVerified: boolean;
  readonly request: Record<string, unknown>;
  readonly secretsSealed: string | null;
  /** Attempts started before this one. */
  readonly attempts: number;
  readonly expandedAt: Date | null;
  readonly error: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
}

export interface IndexJobItemRow {
  readonly externalId: string;
  readonly position: number;
  readonly name: string;
  readonly status: ItemStatus;
  readonly reason: string | null;
  readonly message: string | null;
  readonly chunks: number;
  readonly documentId: number | null;
  readonly payload: Record<string, unknown>;
}

export interface NewIndexJobItem {
  readonly externalId: string;
  readonly name: string;
  readonly payload: Record<string, unknown>;
  /** An uploaded file's bytes. */
  readonly content?: Uint8Array;
}

export interface NewIndexJob {
  readonly id: string;
  readonly teamId: number;
  readonly connectorId: number | null;
  readonly kind: IndexJobKind;
  readonly requestedBy: number | null;
  readonly request: Record<string, unknown>;
  readonly requestHash: string | null;
  readonly secretsSealed: string | null;
  readonly items: readonly NewIndexJobItem[];
}

/** A timestamp as either driver answers it. */
type Timestamp = Date | string;

/** An `index_jobs` row as selected with JOB_COLUMNS (bigint-like values may come back as text). */
interface JobDbRow {
  id: string;
  team_id: number | string;
  connector_id: number | string | null;
  kind: IndexJobKind;
  status: IndexJobStatus;
  requested_by: number | string | null;
  requested_by_email: string | null;
  requested_by_email_verified: boolean | null;
  /** jsonb: parsed by the driver, or its text. */
  request: Record<string, unknown> | string | null;
  secrets_sealed: string | null;
  attempts: number | string | null;
  expanded_at: Timestamp | null;
  error: string | null;
  created_at: Timestamp | null;
  updated_at: Timestamp | null;
  finished_at: Timestamp | null;
}

/** An `index_job_items` row as status views select it. */
interface ItemDbRow {
  external_id: string;
  position: number | string;
  name: string;
  status: ItemStatus;
  reason: string | null;
  message: string | null;
  chunks: number | string;
  document_id: number | string | null;
  /** jsonb: parsed by the driver, or its text. */
  payload: Record<string, unknown> | string | null;
}

/** Counts as `count(*)` answers them: bigint, which drivers may give as text. */
type Count = number | string | null;

/** The columns of `index_jobs AS j`, with its requester's address and whether it is proven. */
const JOB_COLUMNS = `j.id, j.team_id, j.connector_id, j.kind, j.status, j.request, j.secrets_sealed, j.attempts,
  j.expanded_at, j.error, j.created_at, j.updated_at, j.finished_at, j.requested_by,
  requester.email AS requested_by_email, requester.email_verified_at IS NOT NULL AS requested_by_email_verified`;

/** `index_jobs AS j` with its requester (if still there), as JOB_COLUMNS reads them. */
const JOBS_WITH_REQUESTER = 'index_jobs AS j LEFT JOIN users AS requester ON requester.id = j.requested_by';

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(String(value));
}

function jobFromRow(row: JobDbRow): IndexJobRow {
  return {
    id: String(row.id),
    teamId: Number(row.team_id),
    connectorId: row.connector_id === null ? null : Number(row.connector_id),
    kind: row.kind,
    status: row.status,
    requestedBy:
      row.requested_by === null || row.requested_by === undefined ? null : Number(row.requested_by),
    requestedByEmail: row.requested_by_email ?? null,
    requestedByEmailVerified: row.requested_by_email_verified === true,
    request: (typeof row.request === 'string' ? JSON.parse(row.request) : row.request) ?? {},
    secretsSealed: row.secrets_sealed ?? null,
    attempts: Number(row.attempts ?? 0),
    expandedAt: toDate(row.expanded_at),
    error: row.error ?? null,
    createdAt: toDate(row.created_at) ?? new Date(0),
    updatedAt: toDate(row.updated_at) ?? new Date(0),
    finishedAt: toDate(row.finished_at),
  };
}

function itemFromRow(row: ItemDbRow): IndexJobItemRow {
  return {
    externalId: String(row.external_id),
    position: Number(row.position),
    name: String(row.name),
    status: row.status,
    reason: row.reason ?? null,
    message: row.message ?? null,
    chunks: Number(row.chunks),
    documentId: row.document_id === null ? null : Number(row.document_id),
    payload: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) ?? {},
  };
}

/** An active job of the team asking for exactly this again, if one is queued or running. */
export async function findActiveJobByHash(
  db: SqlExecutor,
  teamId: number,
  requestHash: string,
): Promise<string | undefined> {
  const { rows } = await db.executeSql<{ id: string }>(
    `SELECT id FROM index_jobs WHERE team_id = $1 AND request_hash = $2 AND status IN ('queued', 'running')
     ORDER BY created_at DESC LIMIT 1`,
    [teamId, requestHash],
  );
  return rows[0] === undefined ? undefined : String(rows[0].id);
}

/** Inserts a job and its items; run it in the transaction that also queues the background job. */
export async function insertIndexJob(db: SqlExecutor, job: NewIndexJob): Promise<void> {
  await db.executeSql(
    `INSERT INTO index_jobs (id, team_id, connector_id, kind, requested_by, request, request_hash, secrets_sealed)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
    [
      job.id,
      job.teamId,
      job.connectorId,
      job.kind,
      job.requestedBy,
      JSON.stringify(job.request),
      job.requestHash,
      job.secretsSealed,
    ],
  );
  await insertItems(db, job.id, job.items, 0);
}

/** Most items one statement adds. */
const ITEMS_PER_STATEMENT = 500;
/**
 * About the most characters of items' JSON one statement carries: each statement is serialised and
 * written on the event loop in one go (a request of 250 abstracts held it for about 10 ms), and
 * PGlite answers nothing else while it runs.
 */
const ITEM_CHARS_PER_STATEMENT = 128 * 1024;

/** Adds items (folder contents, wiki pages) after `firstPosition`; ones already there stay as they are. */
export async function insertItems(
  db: SqlExecutor,
  jobId: string,
  items: readonly NewIndexJobItem[],
  firstPosition: number,
): Promise<void> {
  let rows: string[] = [];
  let chars = 0;
  const send = async () => {
    await db.executeSql(
      `INSERT INTO index_job_items (job_id, external_id, position, name, payload)
       SELECT $1, t.external_id, t.position, t.name, t.payload
       FROM jsonb_to_recordset($2::jsonb) AS t(external_id text, position int, name text, payload jsonb)
       ON CONFLICT (job_id, external_id) DO NOTHING`,
      [jobId, `[${rows.join(',')}]`],
    );
    rows = [];
    chars = 0;
  };
  for (const [index, item] of items.entries()) {
    const row = JSON.stringify({
      external_id: item.externalId,
      position: firstPosition + index,
      name: item.name,
      payload: item.payload,
    });
    rows.push(row);
    chars += row.length;
    if (rows.length >= ITEMS_PER_STATEMENT || chars >= ITEM_CHARS_PER_STATEMENT) await send();
  }
  if (rows.length > 0) await send();
  for (const item of items) {
    if (item.content === undefined) continue;
    await db.executeSql('UPDATE index_job_items SET content = $3 WHERE job_id = $1 AND external_id = $2', [
      jobId,
      item.externalId,
      Buffer.from(item.content),
    ]);
  }
}

/** A job by id; with `visibleTo`, only of that reader's team and one they may see (`visibleJobCondition`). */
export async function findIndexJob(
  db: SqlExecutor,
  jobId: string,
  visibleTo?: Reader,
): Promise<IndexJobRow | undefined> {
  if (visibleTo === undefined) {
    const { rows } = await db.executeSql<JobDbRow>(
      `SELECT ${JOB_COLUMNS} FROM ${JOBS_WITH_REQUESTER} WHERE j.id = $1`,
      [jobId],
    );
    return rows[0] === undefined ? undefined : jobFromRow(rows[0]);
  }
  const values: unknown[] = [jobId, visibleTo.teamId];
  const visible = visibleJobCondition(visibleTo, values);
  const { rows } = await db.executeSql<JobDbRow>(
    `SELECT ${JOB_COLUMNS} FROM ${JOBS_WITH_REQUESTER} WHERE j.id = $1 AND j.team_id = $2 AND ${visible}`,
    values,
  );
  return rows[0] === undefined ? undefined : jobFromRow(rows[0]);
}

/**
 * A job's items in order, optionally only those in `statuses`. `withPayload: false` leaves out
 * what each item carries for the pipeline (an upload's whole text), for status views.
 */
export async function listItems(
  db: SqlExecutor,
  jobId: string,
  statuses?: readonly ItemStatus[],
  options: { withPayload?: boolean; readableBy?: Reader } = {},
): Promise<IndexJobItemRow[]> {
  const payload = options.withPayload === false ? "'{}'::jsonb AS payload" : 'i.payload';
  const values: unknown[] = [jobId, statuses ?? null];
  const readable =
    options.readableBy === undefined ? 'true' : readableItemCondition(options.readableBy, values);
  const { rows } = await db.executeSql<ItemDbRow>(
    `SELECT i.external_id, i.position, i.name, i.status, i.reason, i.message, i.chunks, i.document_id, ${payload}
     FROM index_job_items AS i JOIN index_jobs AS j ON j.id = i.job_id
     WHERE i.job_id = $1 AND ($2::text[] IS NULL OR i.status = ANY($2::text[])) AND ${readable}
     ORDER BY i.position`,
    values,
  );
  return rows.map(itemFromRow);
}

/**
 * An item of job `j` (`index_job_items AS i`) the reader may see: every item of a job they asked
 * for, else only those whose stored document they may open (a file's name is its content's too).
 * Listings, counts and progress all go by it, so a job tells nobody of files they may not open.
 */
function readableItemCondition(reader: Reader, values: unknown[]): string {
  values.push(reader.userId);
  const requester = `$${values.length}`;
  return `(j.requested_by = ${requester}::int OR EXISTS (SELECT 1 FROM documents AS d
    WHERE d.source = j.kind AND d.external_id = i.external_id AND ${readableDocumentCondition('d', reader, values)}))`;
}

/** An uploaded file's bytes. */
export async function readItemContent(
  db: SqlExecutor,
  jobId: string,
  externalId: string,
): Promise<Uint8Array | undefined> {
  const { rows } = await db.executeSql<{ content: Uint8Array | null }>(
    'SELECT content FROM index_job_items WHERE job_id = $1 AND external_id = $2',
    [jobId, externalId],
  );
  const content = rows[0]?.content;
  return content === null || content === undefined ? undefined : new Uint8Array(content);
}

export async function nextItemPosition(db: SqlExecutor, jobId: string): Promise<number> {
  const { rows } = await db.executeSql<{ next: number | string | null }>(
    'SELECT COALESCE(MAX(position) + 1, 0) AS next FROM index_job_items WHERE job_id = $1',
    [jobId],
  );
  return Number(rows[0]?.next ?? 0);
}

export async function deleteItem(db: SqlExecutor, jobId: string, externalId: string): Promise<void> {
  await db.executeSql('DELETE FROM index_job_items WHERE job_id = $1 AND external_id = $2', [
    jobId,
    externalId,
  ]);
}

export interface ItemOutcome {
  readonly status: ItemStatus;
  readonly reason?: string | null;
  readonly message?: string | null;
  readonly chunks?: number;
  readonly documentId?: number | null;
}

/** Records one item's outcome; an uploaded file's bytes are dropped once it is final. */
export async function setItemOutcome(
  db: SqlExecutor,
  jobId: string,
  externalId: string,
  outcome: ItemOutcome,
): Promise<void> {
  const final = outcome.status !== 'queued' && outcome.status !== 'indexing';
  await db.executeSql(
    `UPDATE index_job_items SET status = $3, reason = $4, message = $5, chunks = COALESCE($6, chunks),
       document_id = COALESCE($7, document_id), updated_at = now(),
       content = CASE WHEN $8 THEN NULL ELSE content END
     WHERE job_id = $1 AND external_id = $2`,
    [
      jobId,
      externalId,
      outcome.status,
      outcome.reason ?? null,
      outcome.message ?? null,
      outcome.chunks ?? null,
      outcome.documentId ?? null,
      final,
    ],
  );
}

/**
 * The item's outcome once its document is stored: `indexed`, with the document and its chunks, in
 * the transaction or the statement that stores them (`replaceDocument`).
 */
export function itemIndexed(jobId: string, externalId: string, chunks: number): CompletingWrite {
  return {
    within: (transaction, documentId) =>
      setItemOutcome(transaction, jobId, externalId, { status: 'indexed', chunks, documentId }),
    cte: (values, target) => {
      const parameter = parameterIn(values);
      return `${target.name} AS (
         UPDATE index_job_items SET status = 'indexed', reason = NULL, message = NULL,
           chunks = ${parameter(chunks)}::int, document_id = stored_document.id, updated_at = now(), content = NULL
         FROM ${target.document} AS stored_document
         WHERE job_id = ${parameter(jobId)}::uuid AND external_id = ${parameter(externalId)}::text
       )`;
    },
  };
}

/** An item to claim, with the document it indexes into. */
export interface ItemToClaim {
  readonly externalId: string;
  readonly document: DocumentKey;
}

/** A claim's answer: `claimed` false when the job was cancelled meanwhile (connector deleted). */
export interface ItemClaim {
  readonly claimed: boolean;
  /** The item's document as stored now, if it is. */
  readonly stored: StoredDocumentState | undefined;
}

/**
 * Marks an item as being indexed and answers its document as stored now, if any, in one round
 * trip (`claimItems` of one).
 */
export async function claimItem(
  db: SqlExecutor,
  jobId: string,
  externalId: string,
  document: DocumentKey,
): Promise<ItemClaim> {
  const [claim] = await claimItems(db, jobId, [{ externalId, document }]);
  return claim ?? { claimed: false, stored: undefined };
}

/**
 * Marks items of a job as being indexed and answers each one's document as stored now, in one
 * statement for all of them: the items a job's files take up together (after a batch of them was
 * stored) cost one round trip, not one each. Answers in the order asked.
 */
export async function claimItems(
  db: SqlExecutor,
  jobId: string,
  items: readonly ItemToClaim[],
): Promise<ItemClaim[]> {
  if (items.length === 0) return [];
  const wanted = items.map((item, ordinal) => ({
    ordinal,
    external_id: item.externalId,
    team_id: item.document.teamId,
    source: item.document.source,
    document: item.document.externalId,
  }));
  // The stored documents are looked up one by one (LATERAL … LIMIT 1, by their unique key): joined
  // to the list as a whole, the planner read every document of the database.
  const { rows } = await db.executeSql<StoredStateRow & { ordinal: number; claimed: boolean }>(
    `WITH claimed AS (
       UPDATE index_job_items SET status = 'indexing', updated_at = now()
       WHERE job_id = $1 AND external_id = ANY($2::text[])
         AND EXISTS (SELECT 1 FROM index_jobs WHERE id = $1 AND status = 'running')
       RETURNING external_id
     )
     SELECT w.ordinal, EXISTS (SELECT 1 FROM claimed AS c WHERE c.external_id = w.external_id) AS claimed,
       ${STORED_STATE_COLUMNS}
     FROM jsonb_to_recordset($3::jsonb) AS w(ordinal int, external_id text, team_id int, source text, document text)
     LEFT JOIN LATERAL (
       SELECT ${STORED_STATE_COLUMNS} FROM documents AS d
       WHERE d.team_id = w.team_id AND d.source = w.source AND d.external_id = w.document
       LIMIT 1
     ) AS d ON true
     ORDER BY w.ordinal`,
    [jobId, items.map((item) => item.externalId), JSON.stringify(wanted)],
  );
  const claims: ItemClaim[] = items.map(() => ({ claimed: false, stored: undefined }));
  for (const row of rows) {
    claims[Number(row.ordinal)] = { claimed: row.claimed === true, stored: storedStateOf(row) };
  }
  return claims;
}

/** Marks the job running and counts the attempt. */
export async function markJobRunning(db: SqlExecutor, jobId: string): Promise<void> {
  await db.executeSql(
    `UPDATE index_jobs SET status = 'running', attempts = attempts + 1, updated_at = now()
     WHERE id = $1 AND status IN ('queued', 'running')`,
    [jobId],
  );
}

export async function markJobExpanded(db: SqlExecutor, jobId: string): Promise<void> {
  await db.executeSql('UPDATE index_jobs SET expanded_at = now(), updated_at = now() WHERE id = $1', [jobId]);
}

/** Ends the job: its secrets are deleted with it. */
export async function finishJob(
  db: SqlExecutor,
  jobId: string,
  status: 'completed' | 'failed',
  error: string | null,
): Promise<void> {
  await db.executeSql(
    `UPDATE index_jobs SET status = $2, error = $3, secrets_sealed = NULL, finished_at = now(), updated_at = now()
     WHERE id = $1 AND status IN ('queued', 'running')`,
    [jobId, status, error],
  );
}

export interface JobProgress {
  readonly total: number;
  readonly done: number;
  readonly indexed: number;
  readonly skipped: number;
  readonly failed: number;
}

/** A job's counts by status: of every item, or only of those `readableBy` may see. */
export async function jobProgress(db: SqlExecutor, jobId: string, readableBy?: Reader): Promise<JobProgress> {
  const values: unknown[] = [jobId];
  const readable = readableBy === undefined ? 'true' : readableItemCondition(readableBy, values);
  const { rows } = await db.executeSql<{ total: Count; indexed: Count; skipped: Count; failed: Count }>(
    `SELECT count(*) AS total,
       count(*) FILTER (WHERE i.status = 'indexed') AS indexed,
       count(*) FILTER (WHERE i.status = 'skipped') AS skipped,
       count(*) FILTER (WHERE i.status = 'failed') AS failed
     FROM index_job_items AS i JOIN index_jobs AS j ON j.id = i.job_id
     WHERE i.job_id = $1 AND ${readable}`,
    values,
  );
  const row = rows[0];
  const indexed = Number(row?.indexed ?? 0);
  const skipped = Number(row?.skipped ?? 0);
  const failed = Number(row?.failed ?? 0);
  return { total: Number(row?.total ?? 0), done: indexed + skipped + failed, indexed, skipped, failed };
}

/** Upload keys that index jobs still need (items not done yet). */
export async function uploadKeysInUse(db: SqlExecutor): Promise<Set<string>> {
  const { rows } = await db.executeSql<{ key: string }>(
    `SELECT payload->>'uploadKey' AS key FROM index_job_items
     WHERE status IN ('queued', 'indexing') AND payload ? 'uploadKey'`,
  );
  return new Set(rows.map((row) => String(row.key)));
}

/** Which jobs a listing shows: `active` (queued or running), `finished` (completed or failed). */
export type IndexJobStatusFilter = 'active' | 'finished';

const STATUSES_OF: Readonly<Record<IndexJobStatusFilter, readonly IndexJobStatus[]>> = {
  active: ['queued', 'running'],
  finished: ['completed', 'failed'],
};

/**
 * Job `j` as the reader may see it: one they asked for, a sync of the team's wiki (the team's own
 * connector, scheduled or started by an admin: its pages still show only as far as the reader may
 * open them), or one holding a file they may open (`readableItemCondition`). Any other, someone's
 * uploads or Drive picks of which they may open nothing, is none of theirs.
 */
function visibleJobCondition(reader: Reader, values: unknown[]): string {
  values.push(reader.userId);
  const requester = `$${values.length}`;
  return `(j.requested_by = ${requester}::int OR j.kind = 'wiki' OR EXISTS (SELECT 1 FROM index_job_items AS i
    WHERE i.job_id = j.id AND ${readableItemCondition(reader, values)}))`;
}

/**
 * A page of the reader's team's jobs they may see (`visibleJobCondition`), newest first, in one
 * statement (index_jobs_team_idx). Neither the sealed secrets nor the request (a Drive job's whole
 * file list) are read: a listing needs neither.
 */
export async function listTeamJobs(
  db: SqlExecutor,
  reader: Reader,
  page: {
    readonly status?: IndexJobStatusFilter | undefined;
    readonly limit: number;
    readonly offset: number;
  },
): Promise<IndexJobRow[]> {
  const statuses = page.status === undefined ? null : STATUSES_OF[page.status];
  const values: unknown[] = [reader.teamId, statuses, page.limit, page.offset];
  const visible = visibleJobCondition(reader, values);
  const { rows } = await db.executeSql<JobDbRow>(
    `SELECT j.id, j.team_id, j.connector_id, j.kind, j.status, '{}'::jsonb AS request, NULL AS secrets_sealed,
       j.attempts, j.expanded_at, j.error, j.created_at, j.updated_at, j.finished_at, j.requested_by,
       NULL AS requested_by_email, NULL AS requested_by_email_verified
     FROM index_jobs AS j WHERE j.team_id = $1 AND ($2::text[] IS NULL OR j.status = ANY($2::text[]))
       AND ${visible}
     ORDER BY j.created_at DESC, j.id DESC LIMIT $3 OFFSET $4`,
    values,
  );
  return rows.map(jobFromRow);
}

/** A job's counts and its first failed items, as a listing shows them. */
export interface JobSummary {
  readonly progress: JobProgress & { readonly pending: number };
  /** The first failed items in position order (payloads left out). */
  readonly failures: IndexJobItemRow[];
  /** The name of the job's first item (its only one, for a one-file upload); null before it has one. */
  readonly firstItemName: string | null;
}

/**
 * The counts, first item's name and first `failuresEach` failed items of each job, in one statement
 * whatever the number of jobs; a job without items (or unknown) has zero counts and no failures.
 */
export async function summarizeJobs(
  db: SqlExecutor,
  jobIds: readonly string[],
  failuresEach: number,
  reader: Reader,
): Promise<Map<string, JobSummary>> {
  const summaries = new Map<string, JobSummary>();
  if (jobIds.length === 0) return summaries;
  const values: unknown[] = [jobIds, failuresEach];
  const readable = readableItemCondition(reader, values);
  const { rows } = await db.executeSql<{
    id: string;
    total: Count;
    indexed: Count;
    skipped: Count;
    failed: Count;
    /** jsonb: the failed items without their payloads, parsed by the driver or as text. */
    failures: Omit<ItemDbRow, 'payload'>[] | string | null;
    first_item_name: string | null;
  }>(
    `SELECT u.id, p.total, p.indexed, p.skipped, p.failed, f.failures,
       (SELECT i.name FROM index_job_items AS i WHERE i.job_id = u.id AND ${readable}
        ORDER BY i.position LIMIT 1) AS first_item_name
     FROM unnest($1::uuid[]) AS u(id) LEFT JOIN index_jobs AS j ON j.id = u.id
     CROSS JOIN LATERAL (
       SELECT count(*) AS total,
         count(*) FILTER (WHERE i.status = 'indexed') AS indexed,
         count(*) FILTER (WHERE i.status = 'skipped') AS skipped,
         count(*) FILTER (WHERE i.status = 'failed') AS failed
       FROM index_job_items AS i WHERE i.job_id = u.id AND ${readable}
     ) p
     CROSS JOIN LATERAL (
       SELECT COALESCE(jsonb_agg(jsonb_build_object(
           'external_id', i.external_id, 'position', i.position, 'name', i.name, 'status', i.status,
           'reason', i.reason, 'message', i.message, 'chunks', i.chunks, 'document_id', i.document_id
         ) ORDER BY i.position), '[]'::jsonb) AS failures
       FROM (
         SELECT i.external_id, i.position, i.name, i.status, i.reason, i.message, i.chunks, i.document_id
         FROM index_job_items AS i WHERE i.job_id = u.id AND i.status = 'failed' AND ${readable}
         ORDER BY i.position LIMIT $2
       ) i
     ) f`,
    values,
  );
  for (const row of rows) {
    const indexed = Number(row.indexed ?? 0);
    const skipped = Number(row.skipped ?? 0);
    const failed = Number(row.failed ?? 0);
    const total = Number(row.total ?? 0);
    const done = indexed + skipped + failed;
    const failures: Omit<ItemDbRow, 'payload'>[] =
      (typeof row.failures === 'string' ? JSON.parse(row.failures) : row.failures) ?? [];
    summaries.set(String(row.id), {
      progress: { total, done, indexed, skipped, failed, pending: total - done },
      failures: failures.map((item) => itemFromRow({ ...item, payload: {} })),
      firstItemName:
        row.first_item_name === null || row.first_item_name === undefined
          ? null
          : String(row.first_item_name),
    });
  }
  return summaries;
}

/**
 * Cancels the team's unfinished jobs of a connector (being deleted): failed with `error`, their
 * stored secrets dropped.
 */
export async function cancelConnectorJobs(
  db: SqlExecutor,
  teamId: number,
  connectorId: number,
  error: string,
): Promise<void> {
  await db.executeSql(
    `UPDATE index_jobs SET status = 'failed', error = $3, secrets_sealed = NULL,
       finished_at = now(), updated_at = now()
     WHERE connector_id = $1 AND team_id = $2 AND status IN ('queued', 'running')`,
    [connectorId, teamId, error],
  );
}

/**
 * The first `limit` files that the team's queued or running jobs of a connector have not settled
 * yet, oldest job first, each in its job's order (no URL: they are not stored yet).
 */
export async function listPendingConnectorFiles(
  db: SqlExecutor,
  reader: Reader,
  connectorId: number,
  limit: number,
): Promise<ConnectorFile[]> {
  const values: unknown[] = [connectorId, reader.teamId, limit];
  const readable = readableItemCondition(reader, values);
  const { rows } = await db.executeSql<{
    id: string;
    name: string;
    status: string;
    reason: string | null;
    chunks: number | string;
  }>(
    `SELECT i.external_id AS id, i.name, i.status, i.reason, i.chunks
     FROM index_job_items AS i JOIN index_jobs AS j ON j.id = i.job_id
     WHERE j.connector_id = $1 AND j.team_id = $2 AND j.status IN ('queued', 'running')
       AND i.status IN ('queued', 'indexing') AND ${readable}
     ORDER BY j.created_at, i.position LIMIT $3`,
    values,
  );
  return rows.map((row) => ({
    id: String(row.id),
    name: String(row.name),
    status: String(row.status),
    reason: row.reason ?? null,
    chunks: Number(row.chunks),
    url: null,
  }));
}

/** Adds to a queued item's payload (e.g. the Drive file's metadata read while expanding) and renames it. */
export async function extendItemPayload(
  db: SqlExecutor,
  jobId: string,
  externalId: string,
  payload: Record<string, unknown>,
  name: string,
): Promise<void> {
  await db.executeSql(
    `UPDATE index_job_items SET payload = payload || $3::jsonb, name = $4 WHERE job_id = $1 AND external_id = $2`,
    [jobId, externalId, JSON.stringify(payload), name],
  );
}
