export type OutcomeStatus = 'indexed' | 'skipped' | 'failed';

/** What became of one document or file. */
export interface ItemOutcome {
  readonly status: OutcomeStatus;
  /** The external_id, when known. */
  readonly id: string | null;
  /** The line of a JSONL file the document came from. */
  readonly line?: number;
  readonly name: string;
  readonly reason: string | null;
  readonly message: string | null;
}

/** How many skipped and failed items are kept with their details; the rest are only counted. */
export const MAX_EXAMPLES = 100;

/** The tally of a run: counts by status and reason, with the first few problems in detail. */
export class Outcomes {
  indexed = 0;
  readonly skippedReasons = new Map<string, number>();
  readonly failedReasons = new Map<string, number>();
  readonly skippedExamples: ItemOutcome[] = [];
  readonly failedExamples: ItemOutcome[] = [];

  record(outcome: ItemOutcome): void {
    if (outcome.status === 'indexed') {
      this.indexed += 1;
      return;
    }
    const reasons = outcome.status === 'skipped' ? this.skippedReasons : this.failedReasons;
    const examples = outcome.status === 'skipped' ? this.skippedExamples : this.failedExamples;
    const reason = outcome.reason ?? 'unknown';
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    // "unchanged" is the normal state of a re-run: thousands of them say nothing worth listing.
    if (examples.length < MAX_EXAMPLES && reason !== 'unchanged') examples.push(outcome);
  }

  get skipped(): number {
    return sum(this.skippedReasons);
  }

  get failed(): number {
    return sum(this.failedReasons);
  }

  /** Items whose fate is known. */
  get settled(): number {
    return this.indexed + this.skipped + this.failed;
  }
}

function sum(counts: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}
