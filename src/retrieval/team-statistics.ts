import { countTeamChunks } from '../db/repositories/search.js';
import type { SqlExecutor } from '../db/sql-connection.js';

/** What BM25 needs to know about a team's whole collection. */
export interface TeamStatistics {
  /** Chunks the team has (BM25's N). */
  readonly chunks: number;
  /** Mean `lexical_length` of those chunks (BM25's avgdl). */
  readonly averageLength: number;
}

interface CacheEntry {
  readonly expiresAt: number;
  readonly value: Promise<TeamStatistics>;
}

/**
 * Team statistics, kept for a few seconds per process. Counting a big team's chunks costs more
 * than the rest of a query, and N and avgdl barely move while documents come and go: a few
 * seconds' lag changes scores by far less than any ranking decision. Concurrent misses share one
 * query; a failed query is not kept.
 */
export class TeamStatisticsCache {
  private readonly entries = new Map<number, CacheEntry>();

  constructor(
    private readonly sql: SqlExecutor,
    private readonly ttlMs = 10_000,
    private readonly maxTeams = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(teamId: number): Promise<TeamStatistics> {
    const cached = this.entries.get(teamId);
    if (cached !== undefined && cached.expiresAt > this.now()) return cached.value;
    const value = this.load(teamId);
    if (this.entries.size >= this.maxTeams) this.entries.clear();
    const entry = { expiresAt: this.now() + this.ttlMs, value };
    this.entries.set(teamId, entry);
    const forget = () => {
      if (this.entries.get(teamId) === entry) this.entries.delete(teamId);
    };
    // An empty team is not remembered: its first documents are searchable the moment their job
    // completes (a count of 0 ends a search before it reads anything). Counting nothing is cheap.
    value.then((statistics) => statistics.chunks === 0 && forget(), forget);
    return value;
  }

  private load(teamId: number): Promise<TeamStatistics> {
    return countTeamChunks(this.sql, teamId);
  }
}
