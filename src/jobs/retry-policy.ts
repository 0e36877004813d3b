import { type HeaderSource, headerValue, parseRetryAfter } from '../adapters/http/headers.js';
import { SourceError } from '../adapters/source-error.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../db/database-availability.js';
import { ServiceError } from '../errors.js';

/** Failures that another attempt may cure: the job is retried with backoff. */
export type RetryableReason =
  /** 429 from a source; its `Retry-After` is honoured. */
  | 'rate_limited'
  /** 5xx from a source. */
  | 'upstream_unavailable'
  /** The attempt ran longer than the job's `expireInSeconds`, or a request timed out (408, 504). */
  | 'timeout'
  /** Connection refused or reset, DNS failure. */
  | 'network'
  /** The database dropped the connection, or a transaction hit a deadlock or serialization failure. */
  | 'database_unavailable'
  /** The worker died or stalled: its lease ran out and pg-boss's maintenance released the job. */
  | 'lease_expired'
  /** The worker was stopped before the attempt finished. */
  | 'shutdown';

/** Failures no retry can cure: the job fails at once, whatever its retry limit. */
export type PermanentReason =
  | 'invalid_payload'
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unsupported'
  /** Anything not known to be retryable: a bug is not cured by running it again. */
  | 'internal';

export type JobFailureReason = RetryableReason | PermanentReason;

/** What a failed attempt stored, as `getJob` reports it. */
export interface JobFailure {
  readonly reason: JobFailureReason;
  readonly retryable: boolean;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

/**
 * The typed failure of a job attempt. Adapters and handlers throw it (or errors `toJobError`
 * understands) so the queue knows whether a retry can help.
 */
export class JobError extends Error {
  private constructor(
    readonly reason: JobFailureReason,
    readonly retryable: boolean,
    message: string,
    /** A source's own word on when to come back (`Retry-After`); the next attempt waits at least this. */
    readonly retryAfterSeconds: number | undefined,
    options: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'JobError';
  }

  static retryable(
    reason: RetryableReason,
    message: string,
    options: { retryAfterSeconds?: number; cause?: unknown } = {},
  ): JobError {
    const hint = options.retryAfterSeconds;
    const retryAfter =
      hint === undefined || !Number.isFinite(hint) ? undefined : Math.max(0, Math.ceil(hint));
    return new JobError(reason, true, message, retryAfter, { cause: options.cause });
  }

  static permanent(reason: PermanentReason, message: string, options: { cause?: unknown } = {}): JobError {
    return new JobError(reason, false, message, undefined, { cause: options.cause });
  }

  toFailure(): JobFailure {
    return {
      reason: this.reason,
      retryable: this.retryable,
      message: this.message,
      ...(this.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: this.retryAfterSeconds }),
    };
  }
}

export interface RetrySettings {
  /** Retries after the first attempt: a job runs at most `limit + 1` times. */
  readonly limit: number;
  readonly backoff: {
    /** `exponential`: the n-th retry waits `delaySeconds * 2^(n-1)` to twice that (random jitter). */
    readonly type: 'exponential' | 'fixed';
    /** Whole seconds (pg-boss stores an integer); exponential backoff uses at least 1. */
    readonly delaySeconds: number;
  };
}

/** The longest `Retry-After` we wait for; a source asking for more is asked again after this. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * The delay before the retry that follows failed attempt `attempt` (1-based), as pg-boss 10.4
 * computes it in `failJobs` (node_modules/pg-boss/src/plans.js): fixed `retry_delay`, or
 * `retry_delay * 2^min(16, retry_count + 1) / 2 * (1 + random())` with `retry_count = attempt - 1`;
 * then at least the source's `Retry-After`, capped at `MAX_RETRY_AFTER_SECONDS`.
 */
export function retryDelaySeconds(
  settings: RetrySettings,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number {
  const { type, delaySeconds } = settings.backoff;
  const backoff =
    type === 'fixed'
      ? delaySeconds
      : ((Math.max(delaySeconds, 1) * 2 ** Math.min(16, attempt)) / 2) * (1 + random());
  return Math.max(backoff, Math.min(retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS));
}

/** Whether a failed attempt is followed by another: retryable, and retries left. */
export function shouldRetry(settings: RetrySettings, attempt: number, error: JobError): boolean {
  return error.retryable && attempt <= settings.limit;
}

/** Checks retry settings as pg-boss will (integers, non-negative); throws on nonsense. */
export function assertRetrySettings(name: string, settings: RetrySettings): void {
  const { limit, backoff } = settings;
  if (!Number.isInteger(limit) || limit < 0)
    throw new Error(`${name}: retry.limit must be a whole number >= 0`);
  if (!Number.isInteger(backoff.delaySeconds) || backoff.delaySeconds < 0) {
    throw new Error(`${name}: retry.backoff.delaySeconds must be a whole number >= 0`);
  }
}

/**
 * The failure an HTTP status from a source means: 429, 408 and 5xx (but 501) are retryable, with
 * `Retry-After` honoured; other 4xx are permanent.
 */
export function jobErrorFromHttpStatus(status: number, headers?: HeaderSource, message?: string): JobError {
  const text = message ?? `source answered HTTP ${status}`;
  const retryAfterSeconds = parseRetryAfter(headerValue(headers, 'retry-after'));
  if (status === 429) return JobError.retryable('rate_limited', text, { retryAfterSeconds });
  if (status === 408 || status === 504) return JobError.retryable('timeout', text, { retryAfterSeconds });
  if (status >= 500 && status !== 501 && status !== 505) {
    return JobError.retryable('upstream_unavailable', text, { retryAfterSeconds });
  }
  if (status === 401) return JobError.permanent('unauthorized', text);
  if (status === 403) return JobError.permanent('forbidden', text);
  if (status === 404 || status === 410) return JobError.permanent('not_found', text);
  if (status === 409) return JobError.permanent('conflict', text);
  if (status === 415 || status === 501 || status === 505) return JobError.permanent('unsupported', text);
  return JobError.permanent('bad_request', text);
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** SQLSTATE classes a new attempt can get past: connection (08), rollback (40), resources (53), shutdown (57P0x). */
function isTransientSqlState(code: string): boolean {
  return /^(08|40|53)/.test(code) || /^57P0[1-3]$/.test(code);
}

/** A knowledge source's failure: its own retryability, and its Retry-After, carried over. */
function fromSourceError(error: SourceError): JobError {
  const options = { cause: error, retryAfterSeconds: error.retryAfterSeconds };
  switch (error.failure) {
    case 'rate_limited':
      return JobError.retryable('rate_limited', error.message, options);
    case 'timeout':
      return JobError.retryable('timeout', error.message, options);
    case 'unavailable':
      return JobError.retryable('upstream_unavailable', error.message, options);
    case 'unauthorized':
      return JobError.permanent('unauthorized', error.message, { cause: error });
    case 'permission_denied':
    case 'refused':
      return JobError.permanent('forbidden', error.message, { cause: error });
    case 'not_found':
      return JobError.permanent('not_found', error.message, { cause: error });
    case 'too_large':
      return JobError.permanent('unsupported', error.message, { cause: error });
    default:
      return JobError.permanent('bad_request', error.message, { cause: error });
  }
}

/**
 * Whatever a handler threw, as a `JobError`. Understands our own errors, `ServiceError`, HTTP
 * errors carrying a `status` (and headers), abort/time-out errors, Node and undici network codes,
 * PostgreSQL SQLSTATEs and errors that say `isRetryable`. Anything else is permanent `internal`.
 */
export function toJobError(error: unknown): JobError {
  if (error instanceof JobError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // node-postgres's "Connection terminated unexpectedly" carries no code, yet is an outage too.
  if (isDatabaseUnavailable(error)) {
    return JobError.retryable('database_unavailable', DATABASE_UNAVAILABLE_MESSAGE, { cause: error });
  }
  if (error instanceof SourceError) return fromSourceError(error);
  if (error instanceof ServiceError) {
    if (error.code === 'gateway_timeout') return JobError.retryable('timeout', message, { cause: error });
    if (error.retryable || error.code === 'bad_gateway' || error.code === 'unavailable') {
      return JobError.retryable('upstream_unavailable', message, { cause: error });
    }
    const permanent: Partial<Record<ServiceError['code'], PermanentReason>> = {
      validation: 'bad_request',
      bad_request: 'bad_request',
      unauthenticated: 'unauthorized',
      forbidden: 'forbidden',
      not_found: 'not_found',
      conflict: 'conflict',
      unsupported_media_type: 'unsupported',
    };
    return JobError.permanent(permanent[error.code] ?? 'internal', message, { cause: error });
  }
  if (typeof error !== 'object' || error === null) return JobError.permanent('internal', message);
  const record = error as Record<string, unknown>;
  if (record.name === 'AbortError' || record.name === 'TimeoutError') {
    return JobError.retryable('timeout', message, { cause: error });
  }
  const response = record.response as Record<string, unknown> | undefined;
  const status = [record.status, record.statusCode, response?.status].find(
    (value): value is number => typeof value === 'number' && value >= 400 && value <= 599,
  );
  if (status !== undefined) {
    // headerValue reads whatever headers the client attached, or nothing.
    const headers = (record.headers ?? response?.headers) as HeaderSource | undefined;
    const classified = jobErrorFromHttpStatus(status, headers, message);
    return classified.retryable
      ? JobError.retryable(classified.reason as RetryableReason, message, {
          retryAfterSeconds: classified.retryAfterSeconds,
          cause: error,
        })
      : JobError.permanent(classified.reason as PermanentReason, message, { cause: error });
  }
  const code = typeof record.code === 'string' ? record.code : undefined;
  if (code !== undefined) {
    if (TIMEOUT_CODES.has(code)) return JobError.retryable('timeout', message, { cause: error });
    if (NETWORK_CODES.has(code)) return JobError.retryable('network', message, { cause: error });
    if (/^[0-9A-Z]{5}$/.test(code) && isTransientSqlState(code)) {
      return JobError.retryable('database_unavailable', message, { cause: error });
    }
  }
  if (record.cause !== undefined && record.cause !== error) {
    const cause = toJobError(record.cause);
    if (cause.retryable) return cause;
  }
  if (record.isRetryable === true)
    return JobError.retryable('upstream_unavailable', message, { cause: error });
  return JobError.permanent('internal', message, { cause: error });
}
