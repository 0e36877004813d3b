import { runAsBackgroundWork } from '../db/sql-connection.js';

/**
 * Folds of a team's delta rows (`team_chunk_totals`, `team_term_chunks`: every write appends, a
 * read sums) into fewer, as background work. One fold per team at a time: one asked for while
 * another runs is dropped, and a failed one too, since the next read that finds the rows many
 * asks again.
 */
export class BackgroundFolds {
  private readonly running = new Set<number>();

  request(teamId: number, fold: () => Promise<void>): void {
    if (this.running.has(teamId)) return;
    this.running.add(teamId);
    void runAsBackgroundWork(fold)
      .catch(() => {})
      .finally(() => this.running.delete(teamId));
  }
}
