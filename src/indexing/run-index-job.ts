import { SourceError } from '../adapters/source-error.js';
import { Batcher } from '../batcher.js';
import { isDatabaseUnavailable } from '../db/database-availability.js';
import { markConnectorSynced } from '../db/repositories/connectors.js';
import {
  type ChunkToStore,
  type DocumentFields,
  DocumentHeldByAnother,
  findDocumentState,
  markDocumentUnchanged,
  recordDocumentOutcome,
  type StoredDocumentState,
} from '../db/repositories/documents.js';
import {
  claimItems,
  findIndexJob,
  finishJob,
  type IndexJobItemRow,
  type IndexJobKind,
  type IndexJobRow,
  type ItemClaim,
  type ItemToClaim,
  itemIndexed,
  jobProgress,
  listItems,
  markJobExpanded,
  markJobRunning,
  setItemOutcome,
} from '../db/repositories/index-jobs.js';
import { runAsBackgroundWork } from '../db/sql-connection.js';
import { causeChain } from '../errors.js';
import { type Chunk, contextualText, FileFailure } from './document.js';
import {
  EmbeddingRefused,
  exhausted,
  type FinalOutcome,
  outcomeOfError,
  type RetryOutcome,
} from './file-outcome.js';
import type { ChunkEmbedder, IndexingDependencies } from './indexing-dependencies.js';
import { DriveSource } from './sources/drive-source.js';
import type { IndexSource } from './sources/index-source.js';
import { UploadSource } from './sources/upload-source.js';
import { WikiSource } from './sources/wiki-source.js';
import { DocumentStore } from './store-documents.js';

export interface RunContext {
  /** Aborted when the attempt must stop (time-out, lost lease, shutdown). */
  readonly signal: AbortSignal;
  /** No retry follows this attempt: files still failing retryably are recorded as failed. */
  readonly finalAttempt: boolean;
}

export type RunResult =
  | { readonly kind: 'finished'; readonly status: 'completed' | 'failed' }
  /** Some files hit a retryable failure: run the job again (after `retryAfterSeconds` at least). */
  | {
      readonly kind: 'retry';
      readonly pending: number;
      readonly reason: RetryOutcome['reason'];
      readonly message: string;
      readonly retryAfterSeconds: number | undefined;
    }
  /** The job is gone (its team deleted) or already finished by an earlier attempt. */
  | { readonly kind: 'nothing_to_do' };

function sourceFor(kind: IndexJobKind, deps: IndexingDependencies): IndexSource {
  if (kind === 'googledrive') return new DriveSource(deps);
  if (kind === 'wiki') return new WikiSource(deps);
  return new UploadSource(deps);
}

/**
 * Runs one index job: lists what it covers (once), then fetches, parses, chunks, embeds and stores
 * each file that is not done yet. Idempotent: every file's outcome is committed with its
 * document, so an attempt cut short anywhere resumes where it stopped, and re-running a finished
 * file is impossible (it is no longer pending). One file's failure is recorded on that file only.
 */
export function runIndexJob(
  deps: IndexingDependencies,
  jobId: string,
  context: RunContext,
): Promise<RunResult> {
  // Its reads and writes yield to requests' queries on PGlite's one connection.
  return runAsBackgroundWork(async () => {
    const started = performance.now();
    const job = await findIndexJob(deps.sql, jobId);
    if (job === undefined || job.status === 'completed' || job.status === 'failed') {
      return { kind: 'nothing_to_do' } as const;
    }
    deps.logger.info({ jobId, source: job.kind, attempt: job.attempts + 1 }, 'index job started');
    const result = await runStartedJob(deps, job, context);
    const progress = await jobProgress(deps.sql, jobId);
    const outcome = {
      jobId,
      source: job.kind,
      files: progress.total,
      indexed: progress.indexed,
      skipped: progress.skipped,
      failed: progress.failed,
      durationMs: Math.round(performance.now() - started),
    };
    if (result.kind === 'retry') {
      deps.logger.info(
        {
          ...outcome,
          pending: result.pending,
          reason: result.reason,
          retryAfterSeconds: result.retryAfterSeconds,
        },
        'index job paused: files to try again later',
      );
    } else if (result.kind === 'finished') {
      deps.logger.info({ ...outcome, status: result.status }, 'index job finished');
    }
    return result;
  });
}

async function runStartedJob(
  deps: IndexingDependencies,
  job: IndexJobRow,
  context: RunContext,
): Promise<RunResult> {
  const { sql } = deps;
  const jobId = job.id;
  await markJobRunning(sql, jobId);
  const source = sourceFor(job.kind, deps);
  if (job.expandedAt === null) {
    try {
      await source.expand(job, context.signal);
    } catch (error) {
      if (context.signal.aborted || isDatabaseError(error)) throw error;
      const outcome = outcomeOfError(error);
      if (outcome.kind === 'retry' && !context.finalAttempt) return retryResult(outcome, 1);
      // The listing itself cannot be had (the wiki rejects the token, the space is gone): the
      // job fails, naming why, and so does every file it was going to look at.
      const final = outcome.kind === 'retry' ? exhausted(outcome) : outcome;
      if (final.reason === 'internal_error') {
        deps.logger.error({ err: error, jobId }, 'listing the files of an index job failed');
      }
      for (const item of await listItems(sql, jobId, ['queued', 'indexing'])) {
        await setItemOutcome(sql, jobId, item.externalId, final);
      }
      await finishJob(sql, jobId, 'failed', final.message);
      return { kind: 'finished', status: 'failed' };
    }
    await markJobExpanded(sql, jobId);
  }
  const pending = await listItems(sql, jobId, ['queued', 'indexing']);
  const retries = new Map<string, RetryOutcome>();
  const slots: JobSlots = {
    claims: new Batcher((items) => claimItems(sql, jobId, items), {
      maxBatchSize: DOCUMENTS_PER_STORE,
      maxConcurrentRuns: 1,
    }),
    fetch: new Slots(deps.limits.fileConcurrency),
    store: new DocumentStore(sql, {
      concurrency: Math.max(1, Math.floor(deps.limits.fileConcurrency / 2)),
      maxDocuments: DOCUMENTS_PER_STORE,
    }),
  };
  // Beyond the files being fetched, as many again wait for their store: they go together.
  const lanes =
    deps.embedder === undefined
      ? 2 * deps.limits.fileConcurrency
      : Math.max(2 * deps.limits.fileConcurrency, FILES_WAITING_FOR_VECTORS);
  await forEachConcurrently(pending, lanes, context.signal, async (item) => {
    const retry = await indexItem(deps, source, job, item, slots, context.signal);
    if (retry !== undefined) retries.set(item.externalId, retry);
  });
  if (retries.size > 0) {
    if (!context.finalAttempt) {
      const latest = [...retries.values()].reduce((a, b) =>
        (b.retryAfterSeconds ?? 0) > (a.retryAfterSeconds ?? 0) ? b : a,
      );
      return retryResult(latest, retries.size);
    }
    for (const [externalId, retry] of retries) {
      const item = pending.find((candidate) => candidate.externalId === externalId);
      if (item === undefined) continue;
      await recordFinal(deps, source, job, item, exhausted(retry));
      await release(deps, source, job, item);
    }
  }
  await finishJob(sql, jobId, 'completed', null);
  // A wiki job syncs the whole space; a Drive job only what was picked, so the Drive re-sync
  // (services/sync-drive.ts) marks its own rounds and a pick does not postpone them.
  if (job.connectorId !== null && job.kind === 'wiki') {
    await markConnectorSynced(sql, job.connectorId);
  }
  return { kind: 'finished', status: 'completed' };
}

/**
 * Files of one job that may wait for their vectors at once: with about 1.2 chunks a file, enough
 * to fill two batches of 64 while the embedding server works on the previous two.
 */
const FILES_WAITING_FOR_VECTORS = 128;

/** Most documents one batch of a job's store takes (`DocumentStore`). */
const DOCUMENTS_PER_STORE = 16;

/**
 * What a job's files take turns on. `claims`: marking the item `indexing` and reading its stored
 * document, the items taken up together (as a batch of stores ends) by one statement. `fetch`:
 * fetching and parsing, `fileConcurrency` at a time. `store`: storing, documents ready together in
 * one batch, half as many batches at a time.
 */
interface JobSlots {
  readonly claims: Batcher<ItemToClaim, ItemClaim>;
  readonly fetch: Slots;
  readonly store: DocumentStore;
}

/** Work under a key runs one at a time, in order of arrival; other keys do not wait. */
class KeyedLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const turn = previous.then(work, work);
    const tail = turn.catch(() => {});
    this.tails.set(key, tail);
    try {
      return await turn;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

const documentLocks = new WeakMap<IndexingDependencies, KeyedLocks>();

function documentLocksOf(deps: IndexingDependencies): KeyedLocks {
  let locks = documentLocks.get(deps);
  if (locks === undefined) {
    locks = new KeyedLocks();
    documentLocks.set(deps, locks);
  }
  return locks;
}

/** At most `size` holders at a time; the others wait in line. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async use<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.free += 1;
      else next();
    }
  }
}

function retryResult(outcome: RetryOutcome, pending: number): RunResult {
  return {
    kind: 'retry',
    pending,
    reason: outcome.reason,
    message: outcome.message,
    retryAfterSeconds: outcome.retryAfterSeconds,
  };
}

/** One file through fetch -> parse -> chunk -> embed -> store; answers a retryable failure, if any. */
async function indexItem(
  deps: IndexingDependencies,
  source: IndexSource,
  job: IndexJobRow,
  item: IndexJobItemRow,
  slots: JobSlots,
  signal: AbortSignal,
): Promise<RetryOutcome | undefined> {
  const key = source.fields(job, item);
  // Two jobs of this process holding the same document (overlapping uploads of the same
  // external_id) take turns: the second then finds it stored and unchanged instead of indexing it again.
  const retry = await documentLocksOf(deps).run(
    `${key.teamId}\u0000${key.source}\u0000${key.externalId}`,
    () => indexItemAlone(deps, source, job, item, slots, signal),
  );
  if (retry === undefined) await release(deps, source, job, item);
  return retry;
}

/** The item's outcome is final: its source may drop what it kept for it (a missed one is swept later). */
async function release(
  deps: IndexingDependencies,
  source: IndexSource,
  job: IndexJobRow,
  item: IndexJobItemRow,
): Promise<void> {
  await source.release?.(item).catch((error: unknown) => {
    if (isDatabaseUnavailable(error)) return;
    deps.logger.warn(
      { err: error, jobId: job.id, item: item.externalId },
      'releasing an indexed file failed',
    );
  });
}

async function indexItemAlone(
  deps: IndexingDependencies,
  source: IndexSource,
  job: IndexJobRow,
  item: IndexJobItemRow,
  slots: JobSlots,
  signal: AbortSignal,
): Promise<RetryOutcome | undefined> {
  const { sql } = deps;
  try {
    const { claimed, stored } = await slots.claims.submit({
      externalId: item.externalId,
      document: source.fields(job, item),
    });
    if (!claimed) return undefined;
    // Fetching and parsing take one of a few slots; a file then waits for its vectors without
    // one, so many files' chunks meet in the embedding batcher (full batches, bench/indexing).
    const prepared = await slots.fetch.use(async () => {
      if (stored !== undefined && !(await mayReplace(source, job, stored))) {
        await refuseReplacement(deps, job, item);
        return undefined;
      }
      const fetched = await source.fetch(job, item, stored, signal);
      if (fetched.kind === 'unchanged') {
        if (stored === undefined) throw new Error('a source answered unchanged for a document never stored');
        await markUnchanged(deps, job, item, stored.id, stored.chunkCount, fetched.fields);
        return undefined;
      }
      const parsed = await deps.parser.parse(
        {
          mimeType: fetched.mimeType,
          bytes: fetched.bytes,
          title: fetched.fields.title,
          ...(fetched.fileName === undefined ? {} : { fileName: fetched.fileName }),
        },
        signal,
      );
      return { fetched, parsed };
    });
    if (prepared === undefined) return undefined;
    const { fetched, parsed } = prepared;
    if (parsed.chunks.length === 0) throw new FileFailure('parse_error', 'The file holds no text to index');
    const ownTitle = fetched.titleIsFallback === true || fetched.fields.title.trim() === '';
    const fields: DocumentFields = {
      ...fetched.fields,
      // Checked above: the requester may replace the stored document, whoever brought it in (one
      // stored since by someone else is still guarded, for uploads).
      ...(stored === undefined ? {} : { onlyItsIndexer: false }),
      ...(ownTitle && parsed.title !== undefined ? { title: parsed.title } : {}),
      // A file labelled `application/octet-stream` keeps the type it was read as.
      ...(parsed.mimeType === undefined ? {} : { mimeType: parsed.mimeType }),
    };
    // Same content under a new modification time: nothing to re-embed.
    if (stored?.contentHash === parsed.contentHash && stored.chunkCount === parsed.chunks.length) {
      await markUnchanged(deps, job, item, stored.id, stored.chunkCount, fields);
      return undefined;
    }
    const chunks: ChunkToStore[] = parsed.chunks.map(
      (chunk) => new ChunkInContext(chunk, fields.title, fields.fileName ?? null),
    );
    const embeddings =
      deps.embedder === undefined
        ? undefined
        : { model: deps.embedder.model, vectors: await embed(deps.embedder, chunks, signal) };
    await slots.store.store(
      {
        fields,
        contentHash: parsed.contentHash,
        chunks,
        embeddings,
        options: {
          jobId: job.id,
          storedChunks: stored?.chunkCount,
          onChunksCommitted: (count) => deps.storage.noteInserted(count),
          completes: itemIndexed(job.id, item.externalId, chunks.length),
        },
      },
      signal,
    );
    if (stored !== undefined) deps.storage.noteDeleted(stored.chunkCount);
    return undefined;
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    // Someone else stored it between the check and the write (another process): theirs stays.
    if (error instanceof DocumentHeldByAnother) {
      await refuseReplacement(deps, job, item);
      return undefined;
    }
    // The database failing is not this file's fault: the attempt stops and the job layer retries it.
    if (isDatabaseError(error)) throw error;
    const outcome = outcomeOfError(error);
    if (outcome.kind === 'retry') {
      await setItemOutcome(sql, job.id, item.externalId, {
        status: 'queued',
        reason: outcome.reason,
        message: outcome.message,
      });
      return outcome;
    }
    if (outcome.reason === 'internal_error') {
      deps.logger.error({ err: error, jobId: job.id, item: item.externalId }, 'indexing a file failed');
    }
    await recordFinal(deps, source, job, item, outcome);
    return undefined;
  }
}

/**
 * A parsed chunk as it is stored, its contextual text made when a statement (or the embedder)
 * reads it: a big file's tens of thousands of chunks would otherwise hold a second copy of their
 * text throughout. A class rather than object literals with a getter, which cost each chunk a
 * closure and an accessor of its own: for the 60k chunks of a 30 MiB file the literals held the
 * main thread 25 ms, and the scavenges they set off 80 ms more, in one stretch (a CPU profile of
 * the service while bench/indexing's big file was indexed on PostgreSQL).
 */
class ChunkInContext implements ChunkToStore {
  constructor(
    private readonly chunk: Chunk,
    private readonly title: string,
    private readonly fileName: string | null,
  ) {}

  get position(): number {
    return this.chunk.position;
  }

  get text(): string {
    return this.chunk.text;
  }

  get headingPath(): readonly string[] {
    return this.chunk.headingPath;
  }

  get pageLabels(): readonly string[] {
    return this.chunk.pageLabels;
  }

  get tokenCount(): number {
    return this.chunk.tokenCount;
  }

  get contextualText(): string {
    return contextualText(this.title, this.chunk, this.fileName);
  }
}

/**
 * The embedding server's refusal (a wrong key, an unknown model) is not the file's fault: the file
 * fails without losing its stored chunks, and the message says where to look. Retryable failures
 * (429, 5xx) wait for the job's next attempt like a source's.
 */
async function embed(
  embedder: ChunkEmbedder,
  chunks: readonly ChunkToStore[],
  signal: AbortSignal,
): Promise<number[][]> {
  try {
    return await embedder.embed(
      chunks.map((chunk) => chunk.contextualText),
      signal,
    );
  } catch (error) {
    if (error instanceof SourceError && !error.retryable) {
      throw new EmbeddingRefused(`The embedding server refused the chunks: ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Whether the job may replace a stored document: one its requester brought in, or, when someone
 * else did, as the source says (an upload: an owner or admin who may open it; Drive and wiki
 * documents are the source's, whoever reads them).
 */
async function mayReplace(
  source: IndexSource,
  job: IndexJobRow,
  stored: StoredDocumentState,
): Promise<boolean> {
  if (job.requestedBy !== null && stored.indexedBy === job.requestedBy) return true;
  return source.mayReplace === undefined || (await source.mayReplace(job, stored));
}

/**
 * The item may not replace the stored document: it fails `permission_denied`, and the document, its
 * chunks and its access list stay as they are. The message is the same whatever the item holds,
 * so it tells nothing of the stored document's content, title or access.
 */
async function refuseReplacement(deps: IndexingDependencies, job: IndexJobRow, item: IndexJobItemRow) {
  await setItemOutcome(deps.sql, job.id, item.externalId, {
    status: 'failed',
    reason: 'permission_denied',
    message: REPLACEMENT_REFUSED,
  });
}

const REPLACEMENT_REFUSED =
  "Another member brought in a document with this external_id: only they, or the team's owner or an admin who may open it, may replace it. Post it under another external_id.";

/**
 * Records an item whose document did not change. When only who may open it changed (a Drive file
 * shared anew), the document was updated, so the item is `indexed`; an `unchanged` item never
 * changed who may open the document.
 */
async function markUnchanged(
  deps: IndexingDependencies,
  job: IndexJobRow,
  item: IndexJobItemRow,
  documentId: number,
  chunkCount: number,
  fields: DocumentFields,
): Promise<void> {
  await markDocumentUnchanged(deps.sql, documentId, fields, job.id, (transaction, accessChanged) =>
    setItemOutcome(
      transaction,
      job.id,
      item.externalId,
      accessChanged
        ? { status: 'indexed', chunks: chunkCount, documentId }
        : { status: 'skipped', reason: 'unchanged', chunks: chunkCount, documentId },
    ),
  );
}

async function recordFinal(
  deps: IndexingDependencies,
  source: IndexSource,
  job: IndexJobRow,
  item: IndexJobItemRow,
  outcome: FinalOutcome,
): Promise<void> {
  const described = source.fields(job, item);
  const stored = await findDocumentState(deps.sql, described);
  if (stored !== undefined && !(await mayReplace(source, job, stored))) {
    await refuseReplacement(deps, job, item);
    return;
  }
  const fields = stored === undefined ? described : { ...described, onlyItsIndexer: false };
  try {
    await recordDocumentOutcome(
      deps.sql,
      fields,
      {
        status: outcome.status,
        reason: outcome.reason,
        message: outcome.message,
        dropChunks: outcome.dropChunks,
        jobId: job.id,
      },
      (transaction, documentId, chunkCount) =>
        setItemOutcome(transaction, job.id, item.externalId, {
          status: outcome.status,
          reason: outcome.reason,
          message: outcome.message,
          chunks: chunkCount,
          documentId,
        }),
    );
  } catch (error) {
    if (!(error instanceof DocumentHeldByAnother)) throw error;
    await refuseReplacement(deps, job, item);
  }
}

/**
 * A PostgreSQL error (it carries a SQLSTATE) or a lost connection: a problem of the database, not
 * of the file, which must not be recorded as the file's outcome.
 */
function isDatabaseError(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  return causeChain(error).some((link) => {
    const code = (link as { code?: unknown }).code;
    return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(22|23)/.test(code);
  });
}

/**
 * Runs `work` over the items, at most `limit` at a time. Once aborted, or once one call throws,
 * no new item starts; the calls under way finish, then the first error is thrown.
 */
async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length && !failed) {
      signal.throwIfAborted();
      const item = items[next] as T;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  });
  const settled = await Promise.allSettled(lanes);
  const rejection = settled.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
  if (rejection !== undefined) throw rejection.reason;
}
