import {
  type ChunkTable,
  checkpoint,
  currentWalPosition,
  liveRowBytes,
  reindexTable,
  rewriteTable,
  tableSizes,
  vacuumTable,
  walBytesSince,
} from './repositories/storage.js';
import {
  foldTermChunksAfter,
  type TermChunksPosition,
  termChunkRowsOutnumberPostings,
} from './repositories/team-term-chunks.js';
import { runAsBackgroundWork, type SqlConnection } from './sql-connection.js';

/**
 * Keeps the database's files in proportion to what it holds and its planner informed. PostgreSQL
 * does it itself (checkpointer, autovacuum); PGlite runs PostgreSQL in single-user mode, where
 * neither runs, and a PostgreSQL may run with autovacuum off. Without help the WAL grows until a
 * restart, deleted rows' space is never reused (bench/indexing measured a 1.9 GB data folder after
 * 60 MB of uploads were indexed and deleted), and the chunk tables' pages are never marked
 * all-visible: BM25's postings reads then visit the table for every row, on plans made without
 * row counts (a search of 66k chunks took 17 ms at p50 and 68 ms at p99 instead of 7 and 15).
 */
export interface StorageMaintenance {
  /** Chunks were deleted (a document removed or replaced): their space is to be reclaimed. */
  noteDeleted(chunks: number): void;
  /** Chunks were stored: the statistics and the visibility map are to follow the tables' growth. */
  noteInserted(chunks: number): void;
  /**
   * Runs what is due now: a vacuum after many deletes or writes, an analysis once writes pause, a
   * checkpoint after much WAL.
   */
  runDue(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

/** PostgreSQL with autovacuum maintains itself. */
export const selfMaintainedStorage: StorageMaintenance = {
  noteDeleted: () => {},
  noteInserted: () => {},
  runDue: async () => {},
  start: () => {},
  stop: async () => {},
};

export interface MaintenanceLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface StorageMaintenanceSettings {
  /** Whether the service asks for checkpoints (PGlite); PostgreSQL's checkpointer runs on its own. */
  readonly checkpoints: boolean;
  /**
   * Whether vacuums also analyse: on PostgreSQL, where another process samples the tables; not on
   * PGlite, whose ANALYZE of a big index held its one thread (and /healthz) for half a second. A
   * vacuum alone keeps the planner's row counts, and searches plan well on those.
   */
  readonly analyses: boolean;
  /**
   * Whether a table whose file stays far larger than its rows after the vacuum after deletes is
   * written anew (VACUUM FULL): on PGlite, whose folder is the user's disk; not on PostgreSQL,
   * where it would hold the table from every other process meanwhile, and freed space is reused.
   */
  readonly rewritesBloatedTables: boolean;
  /** WAL written since the last checkpoint that calls for the next one. */
  readonly walBytesPerCheckpoint: number;
  /** Deleted chunks that call for a vacuum of the chunk tables. */
  readonly deletedChunksPerVacuum: number;
  /**
   * Stored chunks that call for a vacuum while indexing goes on, and for an analysis once writes
   * pause. A vacuum after inserts costs what was written since the last one (the rest of the table
   * is all-visible and skipped), not the table's size: a fixed count keeps each pause short (on
   * PGlite it holds the one thread) however big the index grows.
   */
  readonly insertedChunksPerVacuum: number;
  /** How often what is due is checked. */
  readonly intervalMs: number;
  /**
   * How long deletes (a user deleting documents one by one) or writes must pause before the vacuum
   * after deletes, or the analysis after writes, runs.
   */
  readonly quietMs: number;
}

/** PGlite's maintenance: its checkpoints and vacuums are the service's. */
export const EMBEDDED_MAINTENANCE_DEFAULTS: StorageMaintenanceSettings = {
  checkpoints: true,
  analyses: false,
  rewritesBloatedTables: true,
  walBytesPerCheckpoint: 128 * 1024 * 1024,
  deletedChunksPerVacuum: 1000,
  insertedChunksPerVacuum: 2000,
  intervalMs: 5000,
  quietMs: 3000,
};

/** A PostgreSQL whose autovacuum is off: its vacuums and analyses are the service's, not its checkpoints. */
export const UNVACUUMED_POSTGRES_MAINTENANCE: StorageMaintenanceSettings = {
  ...EMBEDDED_MAINTENANCE_DEFAULTS,
  checkpoints: false,
  analyses: true,
  rewritesBloatedTables: false,
};

/** Indexes larger than this many times their table (plus the slack) are rebuilt after a vacuum. */
const INDEX_BLOAT_FACTOR = 3;
const INDEX_BLOAT_SLACK_BYTES = 1024 * 1024;

/** Tables (with TOAST) larger than this many times their live rows (plus the slack) are rewritten. */
const TABLE_BLOAT_FACTOR = 3;
const TABLE_BLOAT_SLACK_BYTES = 1024 * 1024;

/** Rows of `team_term_chunks` one folding statement looks at. */
const FOLD_SPAN_ROWS = 5000;

/** Rows of `team_term_chunks` beyond twice the postings' that call for a fold after a start. */
const CROWDED_TERM_ROWS_SLACK = 10_000;

/** Logged at start when a vacuum after deletes was cut short by the last stop, and is to be taken up. */
export const STARTUP_VACUUM_MESSAGE =
  'the vacuum after deletes was cut short by the last stop: the next maintenance takes it up';
/** Logged when a vacuum after deletes (and its space given back) is done. */
export const VACUUMED_AFTER_DELETES_MESSAGE = 'database vacuumed after deletes';
/** Logged after a checkpoint, on PGlite (then its WAL can be recycled). */
export const CHECKPOINT_MESSAGE = 'database checkpoint: its WAL can be recycled';

/**
 * Tables whose deleted rows are many after documents go (a chunk's postings are its terms), the
 * teams' totals and term counts, whose rows are folded away as writes add them, and the change
 * log of postings, whose old rows are deleted.
 */
const CHUNK_TABLES: readonly ChunkTable[] = [
  'chunks',
  'chunk_terms',
  'chunk_embeddings',
  'documents',
  'index_job_items',
  'team_chunk_totals',
  'team_term_chunks',
  'lexical_changes',
];

/**
 * Maintenance done by the service where the database does not do it (PGlite; PostgreSQL with
 * autovacuum off), as background work (on PGlite, requests' queries go first):
 * - after many chunks were deleted and deletes paused, the term counts' rows folded, a VACUUM of
 *   the chunk tables (their space reusable, their empty end given back), then, on PGlite, a VACUUM
 *   FULL of those whose files are still far larger than their rows, and a REINDEX of those whose
 *   indexes still hold the deleted rows' pages;
 * - every 2,000 chunks stored, a VACUUM of the new pages (a few ms each time: searches of the
 *   growing index read postings from the index alone), and on PostgreSQL, once writes pause, an ANALYZE
 *   (its whole-table sample is a stall not to repeat while indexing);
 * - on PGlite, a CHECKPOINT once enough WAL was written (its segments are then recycled;
 *   `max_wal_size` at start bounds how many are kept).
 * Each process counts its own writes; on PostgreSQL a table another process is vacuuming is skipped.
 */
export class InProcessStorageMaintenance implements StorageMaintenance {
  private lastCheckpointLsn: string | undefined;
  private deletedSinceVacuum = 0;
  private lastDeleteAt = 0;
  private insertedSinceVacuum = 0;
  private insertedSinceAnalysis = 0;
  private lastInsertAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private startupCheck: Promise<void> | undefined;

  constructor(
    private readonly sql: SqlConnection,
    private readonly logger: MaintenanceLogger,
    private readonly settings: StorageMaintenanceSettings = EMBEDDED_MAINTENANCE_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  noteDeleted(chunks: number): void {
    if (chunks <= 0) return;
    this.deletedSinceVacuum += chunks;
    this.lastDeleteAt = this.now();
  }

  noteInserted(chunks: number): void {
    if (chunks <= 0) return;
    this.insertedSinceVacuum += chunks;
    this.insertedSinceAnalysis += chunks;
    this.lastInsertAt = this.now();
  }

  start(): void {
    if (this.timer !== undefined) return;
    // A stop during the vacuum after deletes (its folding can take a minute after a large file)
    // leaves rows that cancel out: the first run after a start takes it up again.
    this.startupCheck = termChunkRowsOutnumberPostings(this.sql, CROWDED_TERM_ROWS_SLACK).then(
      (crowded) => {
        if (!crowded) return;
        this.deletedSinceVacuum = Math.max(this.deletedSinceVacuum, this.settings.deletedChunksPerVacuum);
        this.logger.info({}, STARTUP_VACUUM_MESSAGE);
      },
      (error: unknown) => this.logger.warn({ err: error }, 'the term counts could not be checked'),
    );
    this.timer = setInterval(() => {
      void this.runDue().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'database maintenance failed; it is tried again later'),
      );
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }

  /** One run at a time; a call while one runs waits for it. */
  runDue(): Promise<void> {
    this.running ??= runAsBackgroundWork(() => this.maintain()).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async maintain(): Promise<void> {
    await this.startupCheck;
    const { settings } = this;
    const vacuumDue =
      this.deletedSinceVacuum >= settings.deletedChunksPerVacuum &&
      this.now() - this.lastDeleteAt >= settings.quietMs;
    const analysisDue =
      settings.analyses &&
      this.insertedSinceAnalysis >= settings.insertedChunksPerVacuum &&
      this.now() - this.lastInsertAt >= settings.quietMs;
    const growthDue = this.insertedSinceVacuum >= settings.insertedChunksPerVacuum;
    if (vacuumDue) await this.vacuum();
    else if (analysisDue || growthDue) await this.vacuumAfterInserts(analysisDue);
    if (!settings.checkpoints) return;
    const lsn = await this.currentLsn();
    if (this.lastCheckpointLsn === undefined) {
      this.lastCheckpointLsn = lsn;
      if (!vacuumDue) return;
    }
    const written = await walBytesSince(this.sql, this.lastCheckpointLsn);
    if (vacuumDue || written >= this.settings.walBytesPerCheckpoint) {
      const began = performance.now();
      await checkpoint(this.sql);
      this.lastCheckpointLsn = await this.currentLsn();
      this.logger.info(
        { walBytes: written, durationMs: Math.round(performance.now() - began) },
        CHECKPOINT_MESSAGE,
      );
    }
  }

  private async vacuum(): Promise<void> {
    const deleted = this.deletedSinceVacuum;
    this.deletedSinceVacuum = 0;
    this.insertedSinceVacuum = 0;
    this.insertedSinceAnalysis = 0;
    const began = performance.now();
    const rebuilt: string[] = [];
    const rewritten: string[] = [];
    // The deleted postings' terms left rows that cancel out: folded first, so the vacuum frees them
    // (a statement at a time; a stop leaves the rest to the next vacuum after deletes).
    let position: TermChunksPosition | undefined;
    do position = await foldTermChunksAfter(this.sql, position, FOLD_SPAN_ROWS);
    while (position !== undefined && !this.stopping);
    for (const table of CHUNK_TABLES) {
      await vacuumTable(this.sql, table, { analyse: this.settings.analyses, afterInserts: false });
      const { heap, indexes } = await tableSizes(this.sql, table);
      // A vacuum gives back only the empty end of a file: rows written after the deleted ones (a
      // document kept that was stored later, the folded sums) hold the rest of it.
      if (
        this.settings.rewritesBloatedTables &&
        heap > TABLE_BLOAT_SLACK_BYTES &&
        heap > TABLE_BLOAT_FACTOR * (await liveRowBytes(this.sql, table)) + TABLE_BLOAT_SLACK_BYTES
      ) {
        await rewriteTable(this.sql, table);
        rewritten.push(table);
        continue;
      }
      // A table's indexes hold about what its rows do (chunk_terms' covering index, all of it);
      // far more means they still hold the deleted rows' pages, which only a rebuild gives back.
      // Rebuilding costs what remains: little, after a delete that large.
      if (indexes > INDEX_BLOAT_FACTOR * heap + INDEX_BLOAT_SLACK_BYTES) {
        await reindexTable(this.sql, table);
        rebuilt.push(table);
      }
    }
    this.logger.info(
      {
        deletedChunks: deleted,
        reindexed: rebuilt,
        rewritten,
        durationMs: Math.round(performance.now() - began),
      },
      VACUUMED_AFTER_DELETES_MESSAGE,
    );
  }

  /** After many writes: the new pages vacuumed, and analysed with the rest once writes pause. */
  private async vacuumAfterInserts(analyse: boolean): Promise<void> {
    const inserted = this.insertedSinceVacuum;
    this.insertedSinceVacuum = 0;
    if (analyse) this.insertedSinceAnalysis = 0;
    const began = performance.now();
    for (const table of CHUNK_TABLES) await vacuumTable(this.sql, table, { analyse, afterInserts: true });
    this.logger.info(
      {
        insertedChunks: inserted,
        analysed: analyse,
        durationMs: Math.round(performance.now() - began),
      },
      'database vacuumed after writes',
    );
  }

  private currentLsn(): Promise<string> {
    return currentWalPosition(this.sql);
  }
}
