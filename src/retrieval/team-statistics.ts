import { foldTeamChunkTotals, readTeamChunkTotals } from '../db/repositories/search.js';
import type { SqlExecutor } from '../db/sql-connection.js';
import { BackgroundFolds } from './background-folds.js';

/** What BM25 needs to know about a team's whole collection. */
export interface TeamStatistics {
  /** Chunks the team has (BM25's N). */
  readonly chunks: number;
  /** Mean `lexical_length` of those chunks (BM25's avgdl). */
  readonly averageLength: number;
}

interface CacheEntry {
  readonly value: Promise<TeamStatistics>;
  /** The value once it arrived: what a search uses while the next count is under way. */
  known?: TeamStatistics;
  expiresAt: number;
  refreshing: boolean;
}

export interface TeamStatisticsTimings {
  /** How long a count is used as it is. */
  readonly ttlMs: number;
  /** How much longer it may be used while a new count is made in the background. */
  readonly staleMs: number;
}

const DEFAULT_TIMINGS: TeamStatisticsTimings = { ttlMs: 10_000, staleMs: 60_000 };

/**
 * A team's rows of `team_chunk_totals` beyond which reading them folds them into one: every
 * statement that stores or deletes chunks adds a row, and a search sums them all.
 */
export const FOLD_TOTALS_AFTER_ROWS = 64;

/**
 * Team statistics, kept for a few seconds per process: N and avgdl barely move while documents
 * come and go, and a few seconds' lag changes scores by far less than any ranking decision, so a
 * search need not read them each time. Once a count is older than `ttlMs`, searches keep using it
 * while one new count runs beside them (a search never waits for a recount); a count older still
 * is waited for. Concurrent misses share one query; a failed query is not kept. A count that had
 * to sum many rows folds them, as background work, for the next.
 */
export class TeamStatisticsCache {
  private readonly entries = new Map<number, CacheEntry>();
  private readonly folds = new BackgroundFolds();

  constructor(
    private readonly sql: SqlExecutor,
    private readonly timings: TeamStatisticsTimings = DEFAULT_TIMINGS,
    private readonly maxTeams = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(teamId: number): Promise<TeamStatistics> {
    const now = this.now();
    const cached = this.entries.get(teamId);
    if (cached !== undefined && cached.expiresAt > now) return cached.value;
    if (cached?.known !== undefined && cached.expiresAt + this.timings.staleMs > now) {
      if (!cached.refreshing) this.refresh(teamId, cached);
      return Promise.resolve(cached.known);
    }
    return this.load(teamId).value;
  }

  /** A new count for an entry in use; it replaces the entry once it arrives. */
  private refresh(teamId: number, stale: CacheEntry): void {
    stale.refreshing = true;
    const fresh = this.load(teamId, stale);
    fresh.value.catch(() => {
      stale.refreshing = false;
    });
  }

  /** Reads the team's totals; until they arrive, `replacing` (if any) stays the team's entry. */
  private load(teamId: number, replacing?: CacheEntry): CacheEntry {
    const value = readTeamChunkTotals(this.sql, teamId).then(({ chunks, averageLength, rows }) => {
      if (rows > FOLD_TOTALS_AFTER_ROWS)
        this.folds.request(teamId, () => foldTeamChunkTotals(this.sql, teamId));
      return { chunks, averageLength };
    });
    if (this.entries.size >= this.maxTeams && !this.entries.has(teamId)) this.entries.clear();
    const entry: CacheEntry = { value, expiresAt: this.now() + this.timings.ttlMs, refreshing: false };
    if (replacing === undefined) this.entries.set(teamId, entry);
    value.then(
      (statistics) => {
        // An empty team is not remembered: its first documents are searchable the moment their job
        // completes (a count of 0 ends a search before it reads anything). Counting nothing is cheap.
        if (statistics.chunks === 0) {
          if (this.entries.get(teamId) === (replacing ?? entry)) this.entries.delete(teamId);
          return;
        }
        entry.known = statistics;
        entry.expiresAt = this.now() + this.timings.ttlMs;
        if (replacing === undefined || this.entries.get(teamId) === replacing)
          this.entries.set(teamId, entry);
      },
      () => {
        if (this.entries.get(teamId) === entry) this.entries.delete(teamId);
      },
    );
    return entry;
  }
}
