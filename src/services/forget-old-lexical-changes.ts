import { MEMORY_INDEX_RELOAD_AFTER_MS } from '../retrieval/team-search.js';
import type { ServiceDependencies } from './dependencies.js';

/**
 * How long the log of changed postings (`lexical_changes`) is kept. A process whose in-memory
 * postings of a team have not caught up for `MEMORY_INDEX_RELOAD_AFTER_MS` loads them again
 * instead of reading the log, so rows older than that plus the longest transaction are read by no
 * one; four times it leaves a writing transaction 18 hours.
 */
export const LEXICAL_CHANGE_RETENTION_MS = 4 * MEMORY_INDEX_RELOAD_AFTER_MS;
const BATCH = 5_000;

/** Deletes the change rows older than the retention; answers how many. */
export async function forgetOldLexicalChanges(
  deps: Pick<ServiceDependencies, 'data' | 'now'>,
): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - LEXICAL_CHANGE_RETENTION_MS);
  let total = 0;
  for (;;) {
    const deleted = await deps.data.lexicalChanges.deleteOldLexicalChanges(cutoff, BATCH);
    total += deleted;
    if (deleted < BATCH) return total;
  }
}
