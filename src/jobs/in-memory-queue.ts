import { randomUUID } from 'node:crypto';
import {
  assertDefinition,
  failureFromOutput,
  type JobDefinition,
  type JobHandler,
  type JobOutput,
  type JobQueue,
  type JobSnapshot,
  type JobState,
  type PayloadValidator,
  parsePayload,
  payloadValidator,
  raceAbort,
  type SendOptions,
} from './job-queue.js';
import { assertRetrySettings, JobError, retryDelaySeconds, shouldRetry, toJobError } from './retry-policy.js';

/** One attempt as the fake saw it, for assertions. */
export interface AttemptRecord {
  readonly attempt: number;
  readonly startedAt: Date;
  readonly failure: JobError | null;
  /** Seconds until the next attempt, when one follows. */
  readonly retryDelaySeconds: number | null;
}

interface StoredJob {
  readonly id: string;
  readonly name: string;
  readonly payload: unknown;
  readonly singletonKey: string | null;
  readonly createdOn: Date;
  state: JobState;
  startAfter: number;
  attempts: number;
  completedOn: Date | null;
  output: unknown;
  readonly history: AttemptRecord[];
}

interface Registered {
  readonly definition: JobDefinition<object>;
  readonly validate: PayloadValidator<object>;
  handler: JobHandler<object> | undefined;
}

/**
 * A `JobQueue` in memory for unit tests of handlers and of code that sends jobs. It applies the
 * same rules as the pg-boss adapter (payload checks, typed failures, retry limits, backoff and
 * `Retry-After`, attempt time-outs), but runs nothing by itself: call `runUntilIdle()`, which runs
 * due jobs one at a time and moves a virtual clock over the waits instead of sleeping.
 */
export class InMemoryJobQueue implements JobQueue {
  private readonly registered = new Map<string, Registered>();
  private readonly stored = new Map<string, StoredJob>();
  private offsetMs = 0;
  private stopped = false;

  constructor(
    private readonly options: { readonly now?: () => number; readonly random?: () => number } = {},
  ) {}

  /** The virtual time: the real (or given) clock plus every wait `runUntilIdle` skipped. */
  now(): number {
    return (this.options.now ?? Date.now)() + this.offsetMs;
  }

  async start(): Promise<void> {
    this.stopped = false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }

  async define<P extends object>(definition: JobDefinition<P>): Promise<void> {
    const general = definition as unknown as JobDefinition<object>;
    assertDefinition(general);
    assertRetrySettings(definition.name, definition.retry);
    const previous = this.registered.get(definition.name);
    this.registered.set(definition.name, {
      definition: general,
      validate: payloadValidator(general),
      handler: previous?.handler,
    });
  }

  async sendMany(name: string, payloads: readonly object[]): Promise<string[]> {
    const validate = this.require(name).validate;
    for (const payload of payloads) parsePayload(name, validate, payload);
    const ids: string[] = [];
    for (const payload of payloads) ids.push((await this.send(name, payload)) ?? '');
    return ids;
  }

  async send(name: string, payload: object, options: SendOptions = {}): Promise<string | null> {
    const entry = this.require(name);
    parsePayload(name, entry.validate, payload);
    const key = options.singletonKey ?? null;
    const policy = entry.definition.policy ?? 'standard';
    if (
      key !== null &&
      (policy === 'short' || policy === 'stately') &&
      [...this.stored.values()].some(
        (job) => job.name === name && job.singletonKey === key && job.state === 'created',
      )
    ) {
      return null;
    }
    const id = options.id ?? randomUUID();
    if (this.stored.has(id)) return null;
    this.stored.set(id, {
      id,
      name,
      // A copy through JSON, as the database would store it.
      payload: JSON.parse(JSON.stringify(payload)),
      singletonKey: key,
      createdOn: new Date(this.now()),
      state: 'created',
      startAfter: this.now() + (options.startAfterSeconds ?? 0) * 1000,
      attempts: 0,
      completedOn: null,
      output: null,
      history: [],
    });
    return id;
  }

  async work(name: string, handler?: JobHandler<never>): Promise<void> {
    const entry = this.require(name);
    entry.handler = (handler as JobHandler<object> | undefined) ?? entry.definition.handler;
  }

  /** Nothing runs by itself here: `runUntilIdle` does the work. */
  wake(_name: string): void {}

  async getJob(name: string, id: string): Promise<JobSnapshot | null> {
    const job = this.stored.get(id);
    return job === undefined || job.name !== name ? null : this.snapshot(job);
  }

  /** Every job of a name (or all), oldest first. */
  jobs(name?: string): JobSnapshot[] {
    return [...this.stored.values()]
      .filter((job) => name === undefined || job.name === name)
      .map((job) => this.snapshot(job));
  }

  /** The attempts a job has had, oldest first. */
  attempts(id: string): readonly AttemptRecord[] {
    return this.stored.get(id)?.history ?? [];
  }

  /**
   * Runs due jobs of worked names until none is left, skipping waits on the virtual clock.
   * Stops after `maxAttempts` (default 1000) so a handler that never succeeds cannot hang a test.
   */
  async runUntilIdle(options: { readonly maxAttempts?: number } = {}): Promise<number> {
    let ran = 0;
    const limit = options.maxAttempts ?? 1000;
    while (!this.stopped && ran < limit) {
      const waiting = [...this.stored.values()].filter(
        (job) => (job.state === 'created' || job.state === 'retry') && this.registered.get(job.name)?.handler,
      );
      if (waiting.length === 0) break;
      const next = waiting.reduce((first, job) => (job.startAfter < first.startAfter ? job : first));
      if (next.startAfter > this.now()) this.offsetMs += next.startAfter - this.now();
      await this.runAttempt(next);
      ran += 1;
    }
    return ran;
  }

  private async runAttempt(job: StoredJob): Promise<void> {
    const entry = this.require(job.name);
    const handler = entry.handler as JobHandler<object>;
    const { definition } = entry;
    job.state = 'active';
    job.attempts += 1;
    const attempt = job.attempts;
    const startedAt = new Date(this.now());
    const controller = new AbortController();
    const timer = setTimeout(
      () =>
        controller.abort(
          JobError.retryable('timeout', `${job.name}: attempt exceeded ${definition.expireInSeconds} s`),
        ),
      definition.expireInSeconds * 1000,
    );
    try {
      const payload = parsePayload(job.name, entry.validate, job.payload);
      const output = await raceAbort(
        handler(payload, {
          jobId: job.id,
          name: job.name,
          attempt,
          finalAttempt: attempt > definition.retry.limit,
          signal: controller.signal,
        }),
        controller.signal,
      );
      job.state = 'completed';
      job.completedOn = new Date(this.now());
      job.output = output ?? null;
      job.history.push({ attempt, startedAt, failure: null, retryDelaySeconds: null });
    } catch (thrown) {
      const error = toJobError(controller.signal.aborted ? controller.signal.reason : thrown);
      const retry = shouldRetry(definition.retry, attempt, error);
      const delay = retry
        ? retryDelaySeconds(definition.retry, attempt, error.retryAfterSeconds, this.options.random)
        : null;
      job.history.push({ attempt, startedAt, failure: error, retryDelaySeconds: delay });
      job.output = error.toFailure();
      if (delay === null) {
        job.state = 'failed';
        job.completedOn = new Date(this.now());
      } else {
        job.state = 'retry';
        job.startAfter = this.now() + delay * 1000;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private snapshot(job: StoredJob): JobSnapshot {
    return {
      id: job.id,
      name: job.name,
      state: job.state,
      attempts: job.attempts,
      retryLimit: this.require(job.name).definition.retry.limit,
      singletonKey: job.singletonKey,
      createdOn: job.createdOn,
      startAfter: new Date(job.startAfter),
      completedOn: job.completedOn,
      output: job.state === 'completed' ? (job.output as JobOutput | null) : null,
      failure: failureFromOutput(job.state, job.output),
    };
  }

  private require(name: string): Registered {
    const entry = this.registered.get(name);
    if (entry === undefined) throw new Error(`job "${name}" is not defined`);
    return entry;
  }
}
