import { causeChain, ServiceError } from '../errors.js';
import { DatabaseThreadExitedError } from './pglite-worker/pglite-worker.js';

/** What the whole service answers while its database is away. */
export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable; try again shortly';
/** How long a client is asked to wait before trying again (`Retry-After`). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Thrown at once, without trying, while the database is known to be away. */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';

  constructor() {
    super(DATABASE_UNAVAILABLE_MESSAGE);
  }
}

/**
 * Socket errors of a database connection. The same codes come from any other socket (a source's
 * API resetting a connection is no database outage), so they count only for errors a
 * ConnectionWatch heard from the database's own connections, which it marks.
 */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Socket errors heard from the database's connections (see CONNECTION_ERROR_CODES). */
const databaseSocketErrors = new WeakSet<object>();

/**
 * node-postgres's own words for a connection that ended, never came or cannot be used (it gives
 * them no code): pg/lib/client.js and pg-pool/index.js.
 */
const CONNECTION_ERROR_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
]);

/**
 * True when `error` (or what it wraps: drizzle wraps driver errors) says the database could not be
 * reached or dropped the connection: a refused or reset socket of a database connection,
 * node-postgres's "Connection terminated", SQLSTATE class 08 (connection exception) or
 * 57P01–57P03 (the server shutting down, crashed, or not yet accepting connections). Such a
 * failure is nobody's input's fault, and the same request succeeds once the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return causeChain(error).some((link) => {
    if (link instanceof DatabaseUnavailableError || databaseSocketErrors.has(link)) return true;
    // The embedded database's thread stopped: nothing answers until the service restarts.
    if (link instanceof DatabaseThreadExitedError) return true;
    const { code, message } = link as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code))) return true;
    return typeof message === 'string' && CONNECTION_ERROR_MESSAGES.has(message);
  });
}

function markSocketErrors(error: unknown): void {
  for (const link of causeChain(error)) {
    const { code } = link as { code?: unknown };
    if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) databaseSocketErrors.add(link);
  }
}

/** The domain's error for an outage: 503 with `Retry-After` over HTTP, a retry for jobs. */
export function databaseUnavailableError(): ServiceError {
  return new ServiceError('unavailable', DATABASE_UNAVAILABLE_MESSAGE, {
    retryable: true,
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
}

/** Whether the database answers, as the process last saw it. */
export interface DatabaseAvailability {
  /** False from the moment an outage is confirmed until the database answers again. */
  readonly available: boolean;
  /** Resolves once the database answers (at once when it does); rejects when `signal` aborts. */
  whenAvailable(signal?: AbortSignal): Promise<void>;
}

/** PGlite lives in this process: it is there as long as the process is. */
export const ALWAYS_AVAILABLE: DatabaseAvailability = {
  available: true,
  whenAvailable: (signal) => (signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve()),
};

export interface OutageLogger {
  warn(details: object, message: string): void;
}

export interface ConnectionWatchOptions {
  /** Opens a fresh connection and runs a trivial query; rejects when the database does not answer. */
  readonly probe: () => Promise<void>;
  readonly logger: OutageLogger;
  /** Called once when an outage is confirmed: connections in use are cut, so nothing waits on them. */
  readonly onOutage?: () => void;
  /** How often an outage is probed. Default 1 s. */
  readonly probeIntervalMs?: number;
  readonly now?: () => number;
}

/**
 * Watches a PostgreSQL server through the failures its connections report. A connection failure
 * is checked at once with a probe on a connection of its own: a pooler closing one idle
 * connection is no outage, and the probe then succeeds. If the probe fails, the outage is
 * confirmed: it is logged once, queries fail at once (`available` is false) instead of each
 * waiting for a connection that will not come, and the probe repeats until the server answers,
 * which is logged once with the outage's duration.
 */
export class ConnectionWatch implements DatabaseAvailability {
  private state: 'up' | 'checking' | 'down' | 'closed' = 'up';
  private outageStartedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private waiters = new Set<() => void>();
  private readonly probeIntervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ConnectionWatchOptions) {
    this.probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  get available(): boolean {
    return this.state !== 'down';
  }

  /**
   * Hears every error of the pool and its connections (before the queries they fail are told);
   * only connection failures count.
   */
  noteFailure(error: unknown): void {
    markSocketErrors(error);
    if (isDatabaseUnavailable(error)) this.suspect(error);
  }

  /**
   * A connection in use has heard nothing for a while: the server may have vanished without a word
   * (a failover, a network dropping packets), which no socket error reports for minutes. A probe
   * tells a slow statement (the probe answers) from an outage (it does not).
   */
  noteStall(): void {
    this.suspect(new Error('a connection in use heard nothing from the database'));
  }

  /** Checks the server with a probe, unless a check or an outage is already under way. */
  private suspect(reason: unknown): void {
    if (this.state !== 'up') return;
    this.state = 'checking';
    this.outageStartedAt = this.now();
    void this.check(reason);
  }

  whenAvailable(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.state !== 'down') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(done);
        reject(signal?.reason);
      };
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Stops probing (the pool is closing); waiters are released. */
  close(): void {
    this.state = 'closed';
    clearTimeout(this.timer);
    this.release();
  }

  private async check(failure: unknown): Promise<void> {
    if (await this.probeSucceeds()) {
      if (this.state === 'checking') this.state = 'up';
      return;
    }
    if (this.state !== 'checking') return;
    this.state = 'down';
    this.options.logger.warn(
      { reason: describeFailure(failure) },
      'database connection lost; answering 503 until it is back',
    );
    this.options.onOutage?.();
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    this.timer = setTimeout(async () => {
      if (this.state !== 'down') return;
      if (!(await this.probeSucceeds())) {
        this.scheduleProbe();
        return;
      }
      if (this.state !== 'down') return;
      this.state = 'up';
      this.options.logger.warn(
        { outageMs: this.now() - this.outageStartedAt },
        'database connection regained',
      );
      this.release();
    }, this.probeIntervalMs);
    // A process stopping must not wait for the next probe.
    this.timer.unref();
  }

  private async probeSucceeds(): Promise<boolean> {
    try {
      await this.options.probe();
      return true;
    } catch {
      return false;
    }
  }

  private release(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const done of waiters) done();
  }
}

/** The failure's kind for the log, without what a query's message may carry. */
function describeFailure(error: unknown): string {
  const link = causeChain(error).find((candidate) => {
    const code = (candidate as { code?: unknown }).code;
    return typeof code === 'string';
  }) as { code?: string } | undefined;
  if (link?.code !== undefined) return link.code;
  return error instanceof Error ? (error.message.split('\n')[0]?.slice(0, 200) ?? error.name) : String(error);
}
