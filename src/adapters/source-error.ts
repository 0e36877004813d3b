/** Why a request to an outside knowledge source (Drive, wiki, embedding server) failed. */
export type SourceFailure =
  /** 401: the token or credentials were rejected. */
  | 'unauthorized'
  /** 403: the caller may not read this item. */
  | 'permission_denied'
  /** 404 or 410. */
  | 'not_found'
  /** 429, or a 403 whose reason says rate limit; carries `retryAfterSeconds` when the source sent it. */
  | 'rate_limited'
  /** 5xx, a refused or reset connection. */
  | 'unavailable'
  /** No answer in time. */
  | 'timeout'
  /** Over a size limit: ours, or the source's own (Drive's 10 MB export cap). */
  | 'too_large'
  /** The source refused the request as malformed (other 4xx) or answered something unreadable. */
  | 'bad_response'
  /** Our own outbound policy refused the address (private network, host not allowed). */
  | 'refused';

const RETRYABLE: ReadonlySet<SourceFailure> = new Set(['rate_limited', 'unavailable', 'timeout']);

/**
 * The one error adapters of knowledge sources throw. `retryable` tells the job layer whether
 * another attempt can help; `status` and `retryAfterSeconds` carry the source's own words.
 */
export class SourceError extends Error {
  constructor(
    readonly failure: SourceFailure,
    message: string,
    readonly options: {
      readonly status?: number;
      readonly retryAfterSeconds?: number;
      readonly cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'SourceError';
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.failure);
  }

  get status(): number | undefined {
    return this.options.status;
  }

  get retryAfterSeconds(): number | undefined {
    return this.options.retryAfterSeconds;
  }
}
