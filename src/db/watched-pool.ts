import pg from 'pg';
import { ConnectionWatch, DatabaseUnavailableError, type OutageLogger } from './database-availability.js';

type ConnectCallback = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/** How long the outage probe waits for a connection and its answer. */
const PROBE_TIMEOUT_MS = 2000;
/** A connection checked out this long makes the pool probe the server (at most once per this long). */
const STALL_MS = 5000;

/**
 * A PostgreSQL pool that survives its server going away and tells everyone quickly.
 *
 * - Every connection has an `error` listener for its whole life. pg-pool listens only while a
 *   connection is idle, so a connection checked out for a transaction that lost its server
 *   emitted an unheard `error` event, which ended the process (issue 12).
 * - Every failure is reported to a ConnectionWatch; while it knows the server is away,
 *   `connect` (which `query` uses too) fails at once instead of waiting for a connection.
 */
export class WatchedPool extends pg.Pool {
  readonly watch: ConnectionWatch;
  /** Connections checked out, with when. */
  private readonly inUse = new Map<pg.PoolClient, number>();
  private readonly stallTimer: NodeJS.Timeout;
  private lastStallProbeAt = 0;

  constructor(config: pg.PoolConfig, logger: OutageLogger) {
    super(config);
    this.watch = new ConnectionWatch({ probe: () => this.probe(), logger, onOutage: () => this.cutInUse() });
    const noteFailure = (error: unknown) => this.watch.noteFailure(error);
    // An idle connection that loses its server, and each connection's errors while in use.
    this.on('error', noteFailure);
    this.on('connect', (client) => client.on('error', noteFailure));
    this.on('acquire', (client) => this.inUse.set(client, Date.now()));
    this.on('release', (_error, client) => this.inUse.delete(client));
    this.on('remove', (client) => this.inUse.delete(client));
    this.stallTimer = setInterval(() => this.checkStalls(), STALL_MS / 5);
    this.stallTimer.unref();
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    if (!this.watch.available) {
      const error = new DatabaseUnavailableError();
      if (callback === undefined) return Promise.reject(error);
      process.nextTick(() => callback(error, undefined, () => {}));
      return undefined;
    }
    if (callback === undefined) {
      return super.connect().catch((error: unknown) => {
        this.watch.noteFailure(error);
        throw error;
      });
    }
    super.connect((error, client, done) => {
      if (error !== undefined) this.watch.noteFailure(error);
      callback(error, client, done);
    });
    return undefined;
  }

  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | undefined {
    clearInterval(this.stallTimer);
    this.watch.close();
    if (callback === undefined) return super.end();
    super.end(callback);
    return undefined;
  }

  /**
   * A connection in use for STALL_MS (a statement, or a transaction between statements) has the
   * server probed: a long statement is left alone when the probe answers; a server gone silent is
   * an outage, and `cutInUse` ends the waits (see ConnectionWatch.noteStall).
   */
  private checkStalls(): void {
    const now = Date.now();
    if (now - this.lastStallProbeAt < STALL_MS) return;
    for (const since of this.inUse.values()) {
      if (now - since < STALL_MS) continue;
      this.lastStallProbeAt = now;
      this.watch.noteStall();
      return;
    }
  }

  /**
   * Ends the sockets of the connections in use once an outage is confirmed: their statements fail
   * now ("Connection terminated unexpectedly", a 503) instead of waiting for TCP to give up, which
   * takes minutes on a connection whose server vanished without closing it.
   */
  private cutInUse(): void {
    for (const client of this.inUse.keys()) {
      if (client instanceof pg.Client) client.connection.stream.destroy();
    }
  }

  /** A connection of its own, so that a pool full of stuck connections cannot delay the answer. */
  private async probe(): Promise<void> {
    const client = new pg.Client({
      ...this.options,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await client.end().catch(() => {});
    }
  }
}
