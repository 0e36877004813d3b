import { SourceError } from '../adapters/source-error.js';
import { FileFailure, type FileReason } from './document.js';

/** A final outcome for one file: recorded on its job item and its document. */
export interface FinalOutcome {
  readonly kind: 'final';
  readonly status: 'skipped' | 'failed';
  readonly reason: FileReason;
  readonly message: string;
  /**
   * The stored chunks go too: the file is gone, unreadable now, no longer ours to show, or
   * `empty` (it holds nothing now, so a search must not find what it used to say).
   */
  readonly dropChunks: boolean;
}

/** A failure another attempt may cure: the item waits for the job's next attempt. */
export interface RetryOutcome {
  readonly kind: 'retry';
  readonly reason: 'rate_limited' | 'source_unavailable';
  readonly message: string;
  readonly retryAfterSeconds: number | undefined;
}

/** The embedding server refused for reasons of its own configuration; see `run-index-job.ts`. */
export class EmbeddingRefused extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'EmbeddingRefused';
  }
}

/**
 * What an error while indexing one file means for that file. Abort errors (the job stopping) are
 * not outcomes: callers rethrow them before asking.
 */
export function outcomeOfError(error: unknown): FinalOutcome | RetryOutcome {
  if (error instanceof FileFailure) {
    return {
      kind: 'final',
      status: error.status,
      reason: error.reason,
      message: error.message,
      dropChunks: error.reason !== 'rate_limited' && error.reason !== 'unchanged',
    };
  }
  if (error instanceof EmbeddingRefused) {
    return {
      kind: 'final',
      status: 'failed',
      reason: 'internal_error',
      message: error.message,
      dropChunks: false,
    };
  }
  if (error instanceof SourceError) {
    switch (error.failure) {
      case 'rate_limited':
      case 'unavailable':
      case 'timeout':
        return {
          kind: 'retry',
          reason: error.failure === 'rate_limited' ? 'rate_limited' : 'source_unavailable',
          message: error.message,
          retryAfterSeconds: error.retryAfterSeconds,
        };
      case 'not_found':
        return final('failed', 'not_found', error.message);
      case 'too_large':
        return final('skipped', 'too_large', error.message);
      case 'bad_response':
        return final('failed', 'parse_error', error.message);
      default:
        // unauthorized, permission_denied, refused: we may not read it.
        return final('failed', 'permission_denied', error.message);
    }
  }
  return final('failed', 'internal_error', error instanceof Error ? error.message : String(error));
}

/** The final outcome a retryable failure becomes once the job has no retries left. */
export function exhausted(outcome: RetryOutcome): FinalOutcome {
  return {
    kind: 'final',
    status: 'failed',
    reason: outcome.reason,
    message: outcome.message,
    dropChunks: false,
  };
}

function final(status: 'skipped' | 'failed', reason: FileReason, message: string): FinalOutcome {
  return { kind: 'final', status, reason, message, dropChunks: true };
}
