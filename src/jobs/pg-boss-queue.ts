import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import { whileLocked } from '../db/client.js';
import {
  ALWAYS_AVAILABLE,
  type DatabaseAvailability,
  isDatabaseUnavailable,
} from '../db/database-availability.js';
import { type RawDatabase, type SqlConnection, sqlConnection } from '../db/sql-connection.js';
import { isUuid } from '../uuid.js';
import {
  assertDefinition,
  failureFromOutput,
  type HeartbeatSettings,
  type JobDefinition,
  type JobHandler,
  type JobOutput,
  type JobQueue,
  type JobSnapshot,
  type PayloadValidator,
  parsePayload,
  payloadValidator,
  raceAbort,
  type SendOptions,
  type StopOptions,
} from './job-queue.js';
import {
  assertRetrySettings,
  JobError,
  MAX_RETRY_AFTER_SECONDS,
  type RetrySettings,
  toJobError,
} from './retry-policy.js';

/*
 * How a killed worker's job comes back, in pg-boss 10.4.2 (node_modules/pg-boss/src):
 *
 * - An active job is released only by maintenance: `Boss.maintain()` runs `failJobsByTimeout`
 *   (plans.js: `state = 'active' AND started_on + expire_in < now()`), which moves it to `retry`
 *   (or `failed` once `retry_count = retry_limit`) with `start_after = now() + backoff`.
 * - Maintenance runs on a `setInterval` of `maintenanceIntervalSeconds` (attorney.js: default 120,
 *   minimum 1; boss.js `supervise`), first one interval after start, and only when the shared
 *   `version.maintained_on` is more than an interval old (plans.js `trySetTimestamp`, strict `>`),
 *   so across processes it runs about once an interval, and a tick can slip to two intervals.
 *   `monitorStateIntervalSeconds` only emits counts and releases nothing.
 * - `expire_in` defaults to 15 minutes (plans.js `insertJob`, `createTableJob`); it must be under
 *   24 h (attorney.js MAX_EXPIRATION_HOURS). pg-boss 10 has no heartbeat (maintainer, issue
 *   timgit/pg-boss#436: "tune the expiration to what should be considered normal execution
 *   time"), and its own `work()` also fails a job locally once it runs past `expire_in`
 *   (manager.js `resolveWithinSeconds`).
 *
 * So with pg-boss alone one number is both "how long a healthy attempt may run" and "how long a
 * dead worker's job waits". We separate them: our own worker loop (pg-boss `fetch`, `complete`,
 * `fail`, not `work()`) keeps `expire_in` as a short lease and renews it while the handler runs
 * (`expire_in = now() - started_on + lease`), and enforces the attempt's own limit,
 * `expireInSeconds`, with an AbortSignal. With the defaults (lease 20 s renewed every 5 s,
 * maintenance every 5 s, polling 2 s, first retry delay d) a job whose worker died is running
 * again at most lease + 2 maintenance intervals + 2d + polling = 34 s + 2d after the restart (or
 * after the kill, when another worker is up); it completes within 60 s when its run takes under
 * 26 s - 2d. A healthy attempt is never expired however long it runs, as long as the event loop
 * renews the lease: a loop stalled for longer than lease - interval (15 s) loses it, and the job
 * runs again elsewhere (handlers are idempotent, so that costs time, not correctness).
 *
 * Our worker also fences each attempt by its `retry_count` (pg-boss increments it on every
 * re-fetch, plans.js `fetchNextJob`): renewal, completion and failure apply only while the row is
 * still that attempt, so a worker that lost its lease never completes someone else's attempt.
 */

/** The database pg-boss runs on; the caller owns it and closes it after `stop()`. */
export type JobDatabase = RawDatabase;

/** What the adapter logs through: a pino logger fits. */
export interface JobLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface PgBossJobQueueOptions {
  readonly database: JobDatabase;
  /** Where pg-boss keeps its tables. Default `pgboss`. */
  readonly schema?: string;
  /** How often expired leases are released (and old jobs archived). Default 5 s; pg-boss: 120 s. */
  readonly maintenanceIntervalSeconds?: number;
  /** How often an idle worker asks for a job. Default 2 s; pg-boss's minimum is 0.5 s. */
  readonly pollingIntervalSeconds?: number;
  /**
   * Whether this process runs pg-boss's maintenance (releasing expired leases, archiving). Default
   * true; an API-only process may leave it to the workers (it is shared: any one process does).
   */
  readonly supervise?: boolean;
  /**
   * Whether the database answers: while it does not, workers wait for it instead of polling, and
   * an attempt the outage interrupted is recorded once it is back. Default: always.
   */
  readonly availability?: DatabaseAvailability;
  readonly logger?: JobLogger;
}

/**
 * Attempts a job may be given back because a database outage, not the job, cut them short
 * (see `giveBackAttempt`): enough for every outage of a long job, few enough that a job whose
 * own statements bring the server down still ends.
 */
const MAX_ATTEMPTS_GIVEN_BACK = 10;

/** How long an attempt's end waits for the database to record it. */
const FINISH_WAIT_MS = 5 * 60_000;

export const DEFAULT_MAINTENANCE_INTERVAL_SECONDS = 5;
export const DEFAULT_POLLING_INTERVAL_SECONDS = 2;

/**
 * The longest a job whose worker died waits before it runs again, with these settings (see the
 * note at the top of this file). Its own run time comes on top.
 */
export function crashRecoveryBoundSeconds(settings: {
  readonly heartbeat: HeartbeatSettings | false;
  readonly expireInSeconds: number;
  readonly retry: RetrySettings;
  readonly maintenanceIntervalSeconds: number;
  readonly pollingIntervalSeconds: number;
}): number {
  const lease = settings.heartbeat === false ? settings.expireInSeconds : settings.heartbeat.leaseSeconds;
  const { type, delaySeconds } = settings.retry.backoff;
  const firstRetryDelay = type === 'fixed' ? delaySeconds : 2 * Math.max(delaySeconds, 1);
  return lease + 2 * settings.maintenanceIntervalSeconds + firstRetryDelay + settings.pollingIntervalSeconds;
}

// Any constant: the same in every process of a deployment, and not the migrations' key.
const PG_BOSS_START_LOCK_KEY = 7_345_112_902;

const silentLogger: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

interface Registered {
  readonly definition: JobDefinition<object>;
  readonly validate: PayloadValidator<object>;
  /** What pg-boss stores as `expire_in` when a job is queued or retried. */
  readonly initialExpireSeconds: number;
  worker: QueueWorker | undefined;
}

/** The `JobQueue` on pg-boss 10, on PGlite (embedded) or PostgreSQL. */
export class PgBossJobQueue implements JobQueue {
  private readonly boss: PgBoss;
  private readonly database: JobDatabase;
  private readonly connection: SqlConnection;
  private readonly logger: JobLogger;
  private readonly availability: DatabaseAvailability;
  private readonly pollingMs: number;
  private readonly registered = new Map<string, Registered>();
  private started = false;
  private readonly statements: ReturnType<typeof statementsFor>;

  constructor(options: PgBossJobQueueOptions) {
    const schema = options.schema ?? 'pgboss';
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid pg-boss schema name "${schema}"`);
    this.database = options.database;
    this.connection = sqlConnection(options.database);
    this.logger = options.logger ?? silentLogger;
    this.availability = options.availability ?? ALWAYS_AVAILABLE;
    this.pollingMs = (options.pollingIntervalSeconds ?? DEFAULT_POLLING_INTERVAL_SECONDS) * 1000;
    this.statements = statementsFor(schema);
    this.boss = new PgBoss({
      db: this.connection,
      schema,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? DEFAULT_MAINTENANCE_INTERVAL_SECONDS,
      supervise: options.supervise ?? true,
      // No cron schedules yet: the timekeeper would poll its own queue every 5 s for nothing.
      schedule: false,
    });
    // pg-boss emits maintenance and fetch errors as events; an unheard 'error' event would throw.
    // A database outage is logged once, by the database's watch, not at every maintenance tick.
    this.boss.on('error', (error) => {
      if (!isDatabaseUnavailable(error)) this.logger.error({ err: error }, 'job queue maintenance failed');
    });
  }

  async start(): Promise<void> {
    if (this.started) return;
    // Processes starting together on a new database would race to create pg-boss's schema, each
    // in its own transaction behind pg-boss's advisory lock: the loser's catalog view predates the
    // winner's commit, and it failed on pg_namespace's unique index (1 start in 4 with
    // API_PROCESSES=2). One at a time, a later start finds the schema installed.
    await whileLocked(this.database, PG_BOSS_START_LOCK_KEY, () => this.boss.start());
    this.started = true;
    for (const entry of this.registered.values()) await this.createQueue(entry);
    for (const entry of this.registered.values()) entry.worker?.start();
  }

  async stop(options: StopOptions = {}): Promise<void> {
    if (!this.started) return;
    this.started = false;
    const workers = [...this.registered.values()].flatMap((entry) => (entry.worker ? [entry.worker] : []));
    await Promise.all(
      workers.map((worker) => worker.stop(options.graceful ?? true, options.timeoutMs ?? 30_000)),
    );
    await this.boss.stop({ graceful: false, close: false, wait: true });
  }

  /**
   * Hands back every job still marked active, at once instead of when its lease runs out. Only
   * for a database no other worker can be using (PGlite, which one process opens): there every
   * active job at start belongs to a process that died.
   */
  /** Hands back every active job (their process died); answers them, for the log. */
  async releaseOrphanedJobs(): Promise<{ job: string; jobId: string }[]> {
    const { rows } = await this.connection.executeSql<{ name: string; id: string }>(
      this.statements.releaseActive,
    );
    return rows.map((row) => ({ job: row.name, jobId: String(row.id) }));
  }

  async define<P extends object>(definition: JobDefinition<P>): Promise<void> {
    const general = definition as unknown as JobDefinition<object>;
    assertDefinition(general);
    assertRetrySettings(definition.name, definition.retry);
    if (this.registered.get(definition.name)?.worker !== undefined) {
      throw new Error(`job "${definition.name}" is already worked in this process: define it before work()`);
    }
    const entry: Registered = {
      definition: general,
      validate: payloadValidator(general),
      initialExpireSeconds:
        definition.heartbeat === false
          ? Math.ceil(definition.expireInSeconds)
          : definition.heartbeat.leaseSeconds,
      worker: undefined,
    };
    this.registered.set(definition.name, entry);
    if (this.started) await this.createQueue(entry);
  }

  async send(name: string, payload: object, options: SendOptions = {}): Promise<string | null> {
    const entry = this.require(name);
    parsePayload(name, entry.validate, payload);
    const { retry } = entry.definition;
    const id = await this.boss.send(name, payload, {
      // Every job row carries its definition's settings, whatever the queue row says.
      retryLimit: retry.limit,
      retryDelay: retry.backoff.delaySeconds,
      retryBackoff: retry.backoff.type === 'exponential',
      expireInSeconds: entry.initialExpireSeconds,
      ...(options.singletonKey === undefined ? {} : { singletonKey: options.singletonKey }),
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(options.db === undefined ? {} : { db: options.db as PgBoss.Db }),
      ...(options.startAfterSeconds === undefined || options.startAfterSeconds <= 0
        ? {}
        : { startAfter: options.startAfterSeconds }),
    });
    const due = !(options.startAfterSeconds && options.startAfterSeconds > 0);
    if (id !== null && due && options.db === undefined) entry.worker?.wake();
    return id;
  }

  async sendMany(
    name: string,
    payloads: readonly object[],
    options: Pick<SendOptions, 'db'> = {},
  ): Promise<string[]> {
    const entry = this.require(name);
    for (const payload of payloads) parsePayload(name, entry.validate, payload);
    if (payloads.length === 0) return [];
    const { retry } = entry.definition;
    // pg-boss's batch insert answers no ids: they are chosen here.
    const ids = payloads.map(() => randomUUID());
    await this.boss.insert(
      payloads.map((data, index) => ({
        id: ids[index],
        name,
        data,
        retryLimit: retry.limit,
        retryDelay: retry.backoff.delaySeconds,
        retryBackoff: retry.backoff.type === 'exponential',
        expireInSeconds: entry.initialExpireSeconds,
      })),
      options.db === undefined ? {} : { db: options.db as PgBoss.Db },
    );
    if (options.db === undefined) entry.worker?.wake();
    return ids;
  }

  wake(name: string): void {
    this.registered.get(name)?.worker?.wake();
  }

  async work(name: string, handler?: JobHandler<never>): Promise<void> {
    const entry = this.require(name);
    if (entry.worker !== undefined) throw new Error(`job "${name}" is already worked in this process`);
    entry.worker = new QueueWorker(
      entry,
      (handler as JobHandler<object> | undefined) ?? entry.definition.handler,
      this.boss,
      this.connection,
      this.statements,
      this.logger,
      this.pollingMs,
      this.availability,
    );
    if (this.started) entry.worker.start();
  }

  async getJob(name: string, id: string): Promise<JobSnapshot | null> {
    if (!isUuid(id)) return null;
    const job = await this.boss.getJobById<JobOutput>(name, id, { includeArchive: true });
    if (job === null) return null;
    return {
      id: job.id,
      name: job.name,
      state: job.state,
      attempts: job.startedOn === null ? 0 : Number(job.retryCount) + 1,
      retryLimit: Number(job.retryLimit),
      singletonKey: job.singletonKey,
      createdOn: job.createdOn,
      startAfter: job.startAfter,
      completedOn: job.completedOn,
      output: job.state === 'completed' ? ((job.output as JobOutput | null) ?? null) : null,
      failure: failureFromOutput(job.state, job.output),
    };
  }

  /**
   * Creates the queue, or brings an existing one to this definition. pg-boss's `create_queue`
   * inserts the queue row, then adds a foreign key to the queue table, which waits for every
   * other transaction that inserted there: two processes creating queues at once deadlock
   * (seen on PostgreSQL with three workers starting together). One advisory lock serializes it.
   */
  private async createQueue(entry: Registered): Promise<void> {
    const { name, retry, policy = 'standard' } = entry.definition;
    // The options object as pg-boss's own createQueue builds it (manager.js).
    const options = {
      policy,
      retryLimit: retry.limit,
      retryDelay: retry.backoff.delaySeconds,
      retryBackoff: retry.backoff.type === 'exponential',
      expireInSeconds: entry.initialExpireSeconds,
    };
    await this.connection.transaction(async (transaction) => {
      await transaction.executeSql(this.statements.lockQueues, [this.statements.queueLockName]);
      await transaction.executeSql(this.statements.createQueue, [name, options]);
      // create_queue leaves an existing queue as it is.
      await transaction.executeSql(this.statements.updateQueue, [
        name,
        options.policy,
        options.retryLimit,
        options.retryDelay,
        options.retryBackoff,
        options.expireInSeconds,
      ]);
    });
  }

  private require(name: string): Registered {
    const entry = this.registered.get(name);
    if (entry === undefined) throw new Error(`job "${name}" is not defined`);
    return entry;
  }
}

/** Our SQL on pg-boss's tables: queue creation, lease renewal and the attempt fence (see the note above). */
function statementsFor(schema: string) {
  const attempt = `name = $1 AND id = $2 AND state = 'active' AND retry_count = $3`;
  return {
    queueLockName: `${schema}.create_queue`,
    lockQueues: `SELECT pg_advisory_xact_lock(hashtext($1))`,
    createQueue: `SELECT ${schema}.create_queue($1, $2)`,
    updateQueue: `UPDATE ${schema}.queue
      SET policy = $2, retry_limit = $3, retry_delay = $4, retry_backoff = $5, expire_seconds = $6, updated_on = now()
      WHERE name = $1
        AND (policy, retry_limit, retry_delay, retry_backoff, expire_seconds)
          IS DISTINCT FROM ($2::text, $3::int, $4::int, $5::bool, $6::int)`,
    renewLease: `UPDATE ${schema}.job SET expire_in = (now() - started_on) + $4::int * interval '1 second'
      WHERE ${attempt} RETURNING 1`,
    lockAttempt: `SELECT 1 FROM ${schema}.job WHERE ${attempt} FOR UPDATE`,
    // Maintenance then fails them by timeout (plans.js failJobsByTimeout), which schedules their retry.
    releaseActive: `UPDATE ${schema}.job SET expire_in = interval '0' WHERE state = 'active' RETURNING name, id`,
    // failJobs retries while retry_count < retry_limit: equal means "fail now".
    makePermanent: `UPDATE ${schema}.job SET retry_limit = retry_count WHERE ${attempt}`,
    // An attempt a database outage cut short does not count against the job's retries.
    giveBackAttempt: `UPDATE ${schema}.job SET retry_limit = retry_limit + 1 WHERE ${attempt} AND retry_limit < $4`,
    // Retry-After: pg-boss's own delay, or the source's hint if later. The lease stretched by
    // this attempt's heartbeats goes back to its initial length for the next one.
    scheduleRetry: `UPDATE ${schema}.job
      SET start_after = GREATEST(start_after, now() + $3::int * interval '1 second'),
        expire_in = $4::int * interval '1 second'
      WHERE name = $1 AND id = $2 AND state = 'retry'`,
  };
}

interface Attempt {
  readonly controller: AbortController;
}

/** Fetches and runs one job name's jobs in this process: `concurrency` loops, one job each. */
class QueueWorker {
  private readonly running = new Set<Attempt>();
  private loops: Promise<void>[] = [];
  private stopping = false;
  /** Set once a stop stops waiting: attempts still running, or starting, are aborted with it. */
  private abortReason: JobError | undefined;
  private wakers = new Set<() => void>();
  /** Aborted when the worker stops: ends waits for the database. */
  private stopController = new AbortController();

  constructor(
    private readonly entry: Registered,
    private readonly handler: JobHandler<object>,
    private readonly boss: PgBoss,
    private readonly connection: SqlConnection,
    private readonly statements: ReturnType<typeof statementsFor>,
    private readonly logger: JobLogger,
    private readonly pollingMs: number,
    private readonly availability: DatabaseAvailability,
  ) {}

  private get name(): string {
    return this.entry.definition.name;
  }

  start(): void {
    this.stopping = false;
    this.abortReason = undefined;
    this.stopController = new AbortController();
    const concurrency = this.entry.definition.concurrency ?? 1;
    this.loops = Array.from({ length: concurrency }, () => this.loop());
  }

  /** A job was queued in this process: stop idling and fetch it. */
  wake(): void {
    for (const wake of this.wakers) wake();
  }

  async stop(graceful: boolean, timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.stopController.abort();
    this.wake();
    const loops = Promise.all(this.loops);
    if (graceful) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loops, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    }
    this.abortReason = JobError.retryable('shutdown', `${this.name}: the worker stopped`);
    for (const attempt of this.running) attempt.controller.abort(this.abortReason);
    await loops;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let jobId: string | undefined;
      try {
        await this.databaseAnswers();
        if (this.stopping) break;
        // pg-boss's fetch answers [] when the database fails (manager.js): that is idling too.
        const [job] = await this.boss.fetch<object>(this.name, { batchSize: 1, includeMetadata: true });
        if (job === undefined) {
          await this.idle();
          continue;
        }
        jobId = job.id;
        await this.run(job);
      } catch (error) {
        // The job stays active; its lease runs out and maintenance hands it back.
        if (!isDatabaseUnavailable(error)) {
          this.logger.error({ err: error, job: this.name, jobId }, 'job attempt bookkeeping failed');
        }
        await this.idle();
      }
    }
  }

  /** While the database is away, waits for it (or for a stop) instead of polling it. */
  private async databaseAnswers(): Promise<void> {
    if (this.availability.available) return;
    await this.availability.whenAvailable(this.stopController.signal).catch(() => {});
  }

  private idle(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.pollingMs);
      this.wakers.add(done);
    });
  }

  private async run(job: PgBoss.JobWithMetadata<object>): Promise<void> {
    const { definition, validate } = this.entry;
    const retryCount = Number(job.retryCount);
    const fence = [this.name, job.id, retryCount];
    const attempt: Attempt = { controller: new AbortController() };
    const { signal } = attempt.controller;
    this.running.add(attempt);
    if (this.abortReason !== undefined) attempt.controller.abort(this.abortReason);
    let leaseLost = false;
    let settled = false;
    let renewing: Promise<void> | undefined;
    const renew = async (): Promise<void> => {
      if (definition.heartbeat === false) return;
      try {
        const { rows } = await this.connection.executeSql(this.statements.renewLease, [
          ...fence,
          definition.heartbeat.leaseSeconds,
        ]);
        if (rows.length === 0 && !settled) {
          leaseLost = true;
          attempt.controller.abort(
            JobError.retryable('lease_expired', `${this.name}: lease lost; the job runs again elsewhere`),
          );
        }
      } catch (error) {
        // Keep running: the next renewal may get through before the lease ends.
        if (!isDatabaseUnavailable(error)) {
          this.logger.warn({ err: error, job: this.name, jobId: job.id }, 'job lease renewal failed');
        }
      }
    };
    // A retried row may carry the lease its last attempt stretched: shorten it to one lease now.
    await renew();
    if (leaseLost) {
      this.running.delete(attempt);
      return;
    }
    const heartbeat =
      definition.heartbeat === false
        ? undefined
        : setInterval(() => {
            renewing ??= renew().finally(() => {
              renewing = undefined;
            });
          }, definition.heartbeat.intervalSeconds * 1000);
    const timeout = setTimeout(
      () =>
        attempt.controller.abort(
          JobError.retryable('timeout', `${this.name}: attempt exceeded ${definition.expireInSeconds} s`),
        ),
      Math.min(definition.expireInSeconds * 1000, 2 ** 31 - 1),
    );
    let output: JobOutput | undefined;
    let failure: JobError | undefined;
    try {
      // Stopped while the lease was being set up: hand the job back without starting it.
      signal.throwIfAborted();
      const payload = parsePayload(this.name, validate, job.data);
      output =
        (await raceAbort(
          this.handler(payload, {
            jobId: job.id,
            name: this.name,
            attempt: retryCount + 1,
            finalAttempt: retryCount >= Number(job.retryLimit),
            signal,
          }),
          signal,
        )) ?? undefined;
    } catch (thrown) {
      failure = toJobError(signal.aborted ? signal.reason : thrown);
    } finally {
      settled = true;
      clearInterval(heartbeat);
      clearTimeout(timeout);
      this.running.delete(attempt);
    }
    await renewing;
    if (leaseLost) {
      this.logger.warn({ job: this.name, jobId: job.id }, 'job lease lost; its result is discarded');
      return;
    }
    await this.finishOnceDatabaseAnswers(job.id, fence, output, failure);
  }

  /**
   * An attempt that ended while the database was away (often because it was away) is recorded
   * when it is back, while the attempt still holds its lease, so that its retry comes after the
   * job's own backoff rather than after the lease ran out.
   */
  private async finishOnceDatabaseAnswers(
    id: string,
    fence: readonly unknown[],
    output: JobOutput | undefined,
    failure: JobError | undefined,
  ): Promise<void> {
    // Past this, maintenance will have released the attempt anyway (its lease lapsed).
    const giveUpAt = Date.now() + FINISH_WAIT_MS;
    for (;;) {
      try {
        await this.finish(id, fence, output, failure);
        return;
      } catch (error) {
        if (!isDatabaseUnavailable(error) || this.stopping || Date.now() > giveUpAt) throw error;
        // Not yet known as an outage (the watch is checking): a moment, then again.
        if (this.availability.available) await new Promise((resolve) => setTimeout(resolve, 500));
        await this.databaseAnswers();
      }
    }
  }

  /** Completes or fails the attempt, in one transaction, only if the row is still this attempt. */
  private async finish(
    id: string,
    fence: readonly unknown[],
    output: JobOutput | undefined,
    failure: JobError | undefined,
  ): Promise<void> {
    const outage = failure?.retryable === true && isDatabaseUnavailable(failure);
    const outcome = await this.connection.transaction(async (transaction) => {
      const { rows } = await transaction.executeSql(this.statements.lockAttempt, [...fence]);
      if (rows.length === 0) return 'lost' as const;
      const db = { db: transaction as PgBoss.Db };
      if (failure === undefined) {
        // null stores no output (manager.js mapCompletionDataArg).
        await this.boss.complete(this.name, id, (output ?? null) as object, db);
        return 'completed' as const;
      }
      if (!failure.retryable) await transaction.executeSql(this.statements.makePermanent, [...fence]);
      if (outage) {
        await transaction.executeSql(this.statements.giveBackAttempt, [
          ...fence,
          this.entry.definition.retry.limit + MAX_ATTEMPTS_GIVEN_BACK,
        ]);
      }
      await this.boss.fail(this.name, id, { ...failure.toFailure() }, db);
      await transaction.executeSql(this.statements.scheduleRetry, [
        this.name,
        id,
        Math.min(failure.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS),
        this.entry.initialExpireSeconds,
      ]);
      return 'failed' as const;
    });
    if (outcome === 'lost') {
      this.logger.warn({ job: this.name, jobId: id }, 'job attempt was taken over; its result is discarded');
    } else if (failure !== undefined) {
      const details = {
        job: this.name,
        jobId: id,
        reason: failure.reason,
        retryable: failure.retryable,
        err: failure,
      };
      if (outage) this.logger.info(details, 'job attempt cut short by a database outage; it will run again');
      else if (failure.retryable)
        this.logger.warn(details, 'job attempt failed; it will be retried if retries are left');
      else this.logger.error(details, 'job failed permanently');
    }
  }
}
