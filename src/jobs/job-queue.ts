import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { SqlExecutor } from '../db/sql-connection.js';
import { JobError, type JobFailure, type RetrySettings } from './retry-policy.js';

/** pg-boss's job states, which the fake uses too. */
export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

/** What a handler is told about the attempt it runs. */
export interface JobContext {
  readonly jobId: string;
  readonly name: string;
  /** 1 for the first run; every retry, including one after a crash, counts up. */
  readonly attempt: number;
  /**
   * No retry follows this attempt should it fail: its job's retries are spent. Not simply
   * `attempt > retry.limit`: attempts a database outage cut short are given back.
   */
  readonly finalAttempt: boolean;
  /**
   * Aborted when the attempt runs out of time (`expireInSeconds`), loses its lease to another
   * worker, or the worker stops. Pass it to fetch and database calls; a handler that ignores it
   * is left running, unawaited, while its job is retried elsewhere.
   */
  readonly signal: AbortSignal;
}

/** What a handler may return: stored as the job's output (JSON). */
export type JobOutput = Readonly<Record<string, unknown>>;

// biome-ignore lint/suspicious/noConfusingVoidType: lets `async () => {}` handlers return nothing
export type JobHandler<P> = (payload: P, context: JobContext) => Promise<JobOutput | undefined | void>;

/** Parses an unknown payload into `P` or throws (any error: it becomes `invalid_payload`). */
export type PayloadValidator<P> = (value: unknown) => P;

/** How a running job proves its worker is alive (pg-boss 10 has no heartbeat: see pg-boss-queue.ts). */
export interface HeartbeatSettings {
  /** How often the worker renews the lease. */
  readonly intervalSeconds: number;
  /** How long a job whose worker stopped renewing stays claimed; at least twice the interval. */
  readonly leaseSeconds: number;
}

/** Settings that bring a killed worker's job back within a minute (see pg-boss-queue.ts). */
export const DEFAULT_HEARTBEAT: HeartbeatSettings = { intervalSeconds: 5, leaseSeconds: 20 };

/** pg-boss's queue policies: which duplicates a `singletonKey` prevents. */
export type QueuePolicy =
  /** No deduplication: `singletonKey` is only a label. */
  | 'standard'
  /** At most one queued (created) job per key. */
  | 'short'
  /** At most one active job per key. */
  | 'singleton'
  /** At most one queued and one active job per key: "run again once the current run ends". */
  | 'stately';

/** A job kind as data: its name, what its payload looks like, what runs it and how it retries. */
export interface JobDefinition<P extends object = object> {
  /** Queue name: letters, digits, `-` and `_`. */
  readonly name: string;
  readonly payloadSchema: PayloadValidator<P> | TSchema;
  /** Must be idempotent: an attempt may be cut short anywhere and run again. */
  readonly handler: JobHandler<P>;
  readonly retry: RetrySettings;
  /** The longest one attempt may run; then its signal aborts and it fails as retryable `timeout`. */
  readonly expireInSeconds: number;
  /**
   * Lease renewal while the attempt runs. `false` leaves pg-boss's plain expiry: a dead worker's
   * job then waits `expireInSeconds` before anyone retries it.
   */
  readonly heartbeat: HeartbeatSettings | false;
  /** Default `standard`. */
  readonly policy?: QueuePolicy;
  /** Attempts of this job one worker process runs at once. Default 1. */
  readonly concurrency?: number;
}

export interface SendOptions {
  /** The job's id (a UUID), when the caller names it: e.g. the id of the row the job works on. */
  readonly id?: string;
  /** Deduplication key; what it prevents depends on the definition's `policy`. */
  readonly singletonKey?: string;
  /** Not before this many seconds from now. */
  readonly startAfterSeconds?: number;
  /**
   * Queue inside the caller's open transaction, so the job exists exactly when the caller's rows
   * do. Workers in this process are not woken (the job is invisible until commit): call `wake`.
   */
  readonly db?: SqlExecutor;
}

export interface StopOptions {
  /** Wait for running attempts (default true); otherwise abort them and hand their jobs back. */
  readonly graceful?: boolean;
  /** How long a graceful stop waits before aborting what still runs. Default 30 s. */
  readonly timeoutMs?: number;
}

/** A job as `getJob` reports it. */
export interface JobSnapshot {
  readonly id: string;
  readonly name: string;
  readonly state: JobState;
  /** Attempts started so far (0 while it waits for its first). */
  readonly attempts: number;
  readonly retryLimit: number;
  readonly singletonKey: string | null;
  readonly createdOn: Date;
  readonly startAfter: Date;
  readonly completedOn: Date | null;
  /** The handler's output, once completed. */
  readonly output: JobOutput | null;
  /** Why the last attempt failed, in states `retry` and `failed`. */
  readonly failure: JobFailure | null;
}

/**
 * Durable background jobs. At-least-once: a job may run more than once (a worker killed
 * mid-attempt, a lease lost), so handlers must be idempotent.
 */
export interface JobQueue {
  start(): Promise<void>;
  /** Stops fetching; see `StopOptions`. Does not close the database, which the caller owns. */
  stop(options?: StopOptions): Promise<void>;
  /** Registers a job kind (and creates its queue). Every process that sends or works it defines it. */
  define<P extends object>(definition: JobDefinition<P>): Promise<void>;
  /** Queues a job; the payload is checked against the definition. Null when `singletonKey` deduplicated it. */
  send(name: string, payload: object, options?: SendOptions): Promise<string | null>;
  /**
   * Queues many jobs of one kind in one statement, each payload checked first; answers their ids
   * in order. No `singletonKey` deduplication. `db` joins the caller's transaction, as in `send`.
   */
  sendMany(name: string, payloads: readonly object[], options?: Pick<SendOptions, 'db'>): Promise<string[]>;
  /** Workers of this job name in this process look for work now instead of at their next poll. */
  wake(name: string): void;
  /** Starts working a defined job in this process, with its definition's handler unless one is given. */
  work(name: string, handler?: JobHandler<never>): Promise<void>;
  getJob(name: string, id: string): Promise<JobSnapshot | null>;
}

/** Typed job definitions: the payload type follows a TypeBox schema or a validator function. */
export function defineJob<P extends object>(
  definition: Omit<JobDefinition<P>, 'payloadSchema'> & { readonly payloadSchema: PayloadValidator<P> },
): JobDefinition<P>;
export function defineJob<const S extends TSchema>(
  definition: Omit<JobDefinition<Static<S> & object>, 'payloadSchema'> & { readonly payloadSchema: S },
): JobDefinition<Static<S> & object>;
export function defineJob(definition: JobDefinition): JobDefinition {
  return definition;
}

/** The definition's payload check as one function; TypeBox schemas are compiled once. */
export function payloadValidator<P extends object>(definition: JobDefinition<P>): PayloadValidator<P> {
  const schema = definition.payloadSchema;
  if (typeof schema === 'function') return schema as PayloadValidator<P>;
  const compiled = Compile(schema);
  return (value) => {
    if (compiled.Check(value)) return value as P;
    const problems = compiled
      .Errors(value)
      .slice(0, 5)
      .map((issue) => `${issue.instancePath || '/'} ${issue.message}`);
    throw new Error(problems.join('; '));
  };
}

/** Runs a validator; any complaint becomes a permanent `invalid_payload` failure. */
export function parsePayload<P>(name: string, validate: PayloadValidator<P>, value: unknown): P {
  try {
    return validate(value);
  } catch (error) {
    throw JobError.permanent(
      'invalid_payload',
      `${name}: invalid payload: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Checks a definition's numbers before anything is queued; throws on nonsense. */
export function assertDefinition(definition: JobDefinition<object>): void {
  const { name, expireInSeconds, heartbeat, concurrency } = definition;
  if (!/^[\w-]+$/.test(name)) throw new Error(`job name "${name}" may hold only letters, digits, - and _`);
  if (!(expireInSeconds >= 1)) throw new Error(`${name}: expireInSeconds must be at least 1`);
  if (heartbeat !== false) {
    if (!(heartbeat.intervalSeconds > 0) || !(heartbeat.leaseSeconds >= 2 * heartbeat.intervalSeconds)) {
      throw new Error(`${name}: heartbeat.leaseSeconds must be at least twice heartbeat.intervalSeconds`);
    }
    if (!Number.isInteger(heartbeat.leaseSeconds))
      throw new Error(`${name}: heartbeat.leaseSeconds must be whole`);
  } else if (expireInSeconds >= 24 * 3600) {
    // pg-boss refuses expirations of 24 h or more (attorney.js POLICY.MAX_EXPIRATION_HOURS).
    throw new Error(`${name}: expireInSeconds must be under 24 h without a heartbeat`);
  }
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new Error(`${name}: concurrency must be a whole number >= 1`);
  }
}

/** Reads what a failed attempt stored as its output, including pg-boss's own expiry note. */
export function failureFromOutput(state: JobState, output: unknown): JobFailure | null {
  if (state !== 'retry' && state !== 'failed') return null;
  const record = (typeof output === 'object' && output !== null ? output : {}) as Record<string, unknown>;
  if (typeof record.reason === 'string' && typeof record.retryable === 'boolean') {
    return {
      reason: record.reason as JobFailure['reason'],
      retryable: record.retryable,
      message: typeof record.message === 'string' ? record.message : '',
      ...(typeof record.retryAfterSeconds === 'number'
        ? { retryAfterSeconds: record.retryAfterSeconds }
        : {}),
    };
  }
  const value = record.value as Record<string, unknown> | undefined;
  const message = typeof value?.message === 'string' ? value.message : JSON.stringify(output ?? null);
  // pg-boss's maintenance writes this when a job stayed active past its expiry (plans.js failJobsByTimeout).
  if (message.includes('failed by timeout in active state')) {
    return { reason: 'lease_expired', retryable: true, message };
  }
  return { reason: 'internal', retryable: false, message };
}

/** Settles with the promise, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The handler's own rejection, if any, must not go unhandled.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
