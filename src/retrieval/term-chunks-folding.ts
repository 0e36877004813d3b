import { foldTeamTermChunks } from '../db/repositories/search.js';
import { runAsBackgroundWork, type SqlExecutor } from '../db/sql-connection.js';

/**
 * Folds the `team_term_chunks` rows of terms a search found crowded (db/repositories/search.ts),
 * as background work: every write adds a row per term it touched, and a search sums a term's
 * rows. One fold per team at a time; a failed one is simply asked for again by a later search.
 */
export class TermChunksFolding {
  private readonly folding = new Set<number>();

  constructor(private readonly sql: SqlExecutor) {}

  request(teamId: number, terms: readonly string[]): void {
    if (terms.length === 0 || this.folding.has(teamId)) return;
    this.folding.add(teamId);
    void runAsBackgroundWork(() => foldTeamTermChunks(this.sql, teamId, terms))
      .catch(() => {})
      .finally(() => this.folding.delete(teamId));
  }
}
