import {
  type ChunkTable,
  checkpoint,
  currentWalPosition,
  reindexTable,
  tableSizes,
  vacuumTable,
  walBytesSince,
} from './repositories/storage.js';
import { runAsBackgroundWork, type SqlConnection } from './sql-connection.js';

/**
 * Keeps the database's files in proportion to what it holds. PostgreSQL does it itself
 * (checkpointer, autovacuum); PGlite runs PostgreSQL in single-user mode, where neither runs:
 * without help its WAL grows until a restart and deleted rows' space is never reused
 * (bench/indexing measured a 1.9 GB data folder after 60 MB of uploads were indexed and deleted).
 */
export interface StorageMaintenance {
  /** Chunks were deleted (a document removed or replaced): their space is to be reclaimed. */
  noteDeleted(chunks: number): void;
  /** Runs what is due now: a checkpoint after much WAL, a vacuum after many deletes. */
  runDue(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

/** PostgreSQL maintains itself. */
export const selfMaintainedStorage: StorageMaintenance = {
  noteDeleted: () => {},
  runDue: async () => {},
  start: () => {},
  stop: async () => {},
};

export interface MaintenanceLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface EmbeddedMaintenanceSettings {
  /** WAL written since the last checkpoint that calls for the next one. */
  readonly walBytesPerCheckpoint: number;
  /** Deleted chunks that call for a vacuum of the chunk tables. */
  readonly deletedChunksPerVacuum: number;
  /** How often what is due is checked. */
  readonly intervalMs: number;
  /** How long deletes must pause before the vacuum runs (a user deleting documents one by one). */
  readonly quietMs: number;
}

export const EMBEDDED_MAINTENANCE_DEFAULTS: EmbeddedMaintenanceSettings = {
  walBytesPerCheckpoint: 128 * 1024 * 1024,
  deletedChunksPerVacuum: 1000,
  intervalMs: 5000,
  quietMs: 3000,
};

/** Indexes larger than this many times their table (plus the slack) are rebuilt after a vacuum. */
const INDEX_BLOAT_FACTOR = 3;
const INDEX_BLOAT_SLACK_BYTES = 1024 * 1024;

/** Tables whose deleted rows are many after documents go (a chunk's postings are its terms). */
const CHUNK_TABLES: readonly ChunkTable[] = [
  'chunks',
  'chunk_terms',
  'chunk_embeddings',
  'documents',
  'index_job_items',
];

/**
 * PGlite's maintenance, done by the process that owns it, as background work (requests' queries
 * go first): a CHECKPOINT once enough WAL was written (its segments are then recycled;
 * `max_wal_size` at start bounds how many are kept), and after many chunks were deleted, a VACUUM
 * of the chunk tables (their space reusable, their empty end given back), then a REINDEX of those
 * whose indexes still hold the deleted rows' pages.
 */
export class EmbeddedStorageMaintenance implements StorageMaintenance {
  private lastCheckpointLsn: string | undefined;
  private deletedSinceVacuum = 0;
  private lastDeleteAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly sql: SqlConnection,
    private readonly logger: MaintenanceLogger,
    private readonly settings: EmbeddedMaintenanceSettings = EMBEDDED_MAINTENANCE_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  noteDeleted(chunks: number): void {
    if (chunks <= 0) return;
    this.deletedSinceVacuum += chunks;
    this.lastDeleteAt = this.now();
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      void this.runDue().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'database maintenance failed; it is tried again later'),
      );
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
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
    const vacuumDue =
      this.deletedSinceVacuum >= this.settings.deletedChunksPerVacuum &&
      this.now() - this.lastDeleteAt >= this.settings.quietMs;
    if (vacuumDue) await this.vacuum();
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
        'database checkpoint: its WAL can be recycled',
      );
    }
  }

  private async vacuum(): Promise<void> {
    const deleted = this.deletedSinceVacuum;
    this.deletedSinceVacuum = 0;
    const began = performance.now();
    const rebuilt: string[] = [];
    for (const table of CHUNK_TABLES) {
      await vacuumTable(this.sql, table);
      const { heap, indexes } = await tableSizes(this.sql, table);
      // A table's indexes hold about what its rows do (chunk_terms' covering index, all of it);
      // far more means they still hold the deleted rows' pages, which only a rebuild gives back.
      // Rebuilding costs what remains: little, after a delete that large.
      if (indexes > INDEX_BLOAT_FACTOR * heap + INDEX_BLOAT_SLACK_BYTES) {
        await reindexTable(this.sql, table);
        rebuilt.push(table);
      }
    }
    this.logger.info(
      { deletedChunks: deleted, reindexed: rebuilt, durationMs: Math.round(performance.now() - began) },
      'database vacuumed after deletes',
    );
  }

  private currentLsn(): Promise<string> {
    return currentWalPosition(this.sql);
  }
}
