import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { OutageLogger } from './database-availability.js';
import {
  acknowledgeSearchBarrier,
  countFollowersBehind,
  forgetSearchFollower,
  LEXICAL_CHANGES_CHANNEL,
  raiseSearchBarrier,
  registerSearchFollower,
  renewSearchFollower,
  SEARCH_BARRIER_CHANNEL,
} from './repositories/search-followers.js';
import type { SqlExecutor } from './sql-connection.js';

export interface SearchFollowerSettings {
  /** How long a lease lasts in the database; barriers wait at most about this for a silent follower. */
  readonly leaseMs: number;
  /** How often the lease is renewed (a few times within it). */
  readonly renewEveryMs: number;
  /** The follower trusts its lease this much less than the database grants (clocks drift apart). */
  readonly marginMs: number;
  /** After a lost connection, the first retry waits this long (then twice as long, up to 30 s). */
  readonly reconnectAfterMs: number;
}

export const SEARCH_FOLLOWER_SETTINGS: SearchFollowerSettings = {
  leaseMs: 10_000,
  renewEveryMs: 2_000,
  marginMs: 2_000,
  reconnectAfterMs: 500,
};

const MAX_RECONNECT_DELAY_MS = 30_000;

/** The follower's connection's `application_name`. */
export const SEARCH_FOLLOWER_APPLICATION = 'search follower';

/** What a follower heard of one team. */
interface TeamHeard {
  /** Change notifications heard. */
  count: number;
  /** The number (`SearchFollower.sequence`) of the last. */
  last: number;
  /** How many were heard before the first one no barrier has been acknowledged after. */
  acknowledged: number;
}

/**
 * This process's ear on PostgreSQL for teams' changes (migration 0015), so that a search whose team
 * has not changed needs no statement. A dedicated connection LISTENs for the teams each write
 * changed and for barriers; a lease in `search_followers` tells writers' processes to wait for it.
 *
 * `mark(team)` is what `TeamLexicalIndexes` compares, as it compares PGlite's count of writes: the
 * same mark before a sync's statement was sent and now means no change to the team committed after
 * that statement's snapshot was notified since, so none committed that a barrier passed. A change
 * heard after the last barrier acknowledged has not been reported done to anyone yet: `covers`
 * tells a search it may rank without it, while the sync that `onChange` listeners begin reads it.
 * While the connection is down, or the lease is not known to run, there is no mark and every
 * search syncs with a statement, as it does without a follower; each loss starts a new epoch, so
 * no mark from before it matches again.
 */
export class SearchFollower {
  private readonly id = randomUUID();
  private client: pg.Client | undefined;
  /** Connected, listening, registered, and the lease known to have run since. */
  private healthy = false;
  private epoch = 0;
  /** Until when (this process's clock) the lease surely runs. */
  private validUntil = Number.NEGATIVE_INFINITY;
  /** Change notifications heard, by team. */
  private readonly heardByTeam = new Map<number, TeamHeard>();
  /** Numbers the change notifications heard, in the order heard (which is commit order). */
  private sequence = 0;
  /** The sequence when the last barrier was heard (then acknowledged). */
  private acknowledgedSequence = 0;
  private readonly listeners: ((teamId: number) => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reconnectDelayMs: number;
  private stopped = false;
  private warned = false;

  constructor(
    private readonly url: string,
    private readonly settings: SearchFollowerSettings = SEARCH_FOLLOWER_SETTINGS,
    private readonly logger?: OutageLogger,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.reconnectDelayMs = settings.reconnectAfterMs;
  }

  /** Connects in the background; marks exist once it listens and is registered. */
  start(): void {
    void this.connect();
  }

  /** What has been heard of the team, or undefined while this process cannot tell (sync with a statement). */
  mark(teamId: number): string | undefined {
    if (!this.healthy) return undefined;
    if (this.now() >= this.validUntil) {
      this.invalidate();
      return undefined;
    }
    return `${this.epoch}:${this.heardByTeam.get(teamId)?.count ?? 0}`;
  }

  /**
   * Whether a sync whose statement was sent at mark `synced` read every change of the team that a
   * barrier has passed (so that may have been reported done): those heard before the last barrier
   * this follower acknowledged. False whenever `mark` gives no mark.
   */
  covers(teamId: number, synced: string): boolean {
    const now = this.mark(teamId);
    if (now === undefined) return false;
    if (now === synced) return true;
    const [epoch, count] = synced.split(':');
    if (Number(epoch) !== this.epoch) return false;
    const heard = this.heardByTeam.get(teamId);
    const required =
      heard === undefined ? 0 : heard.last <= this.acknowledgedSequence ? heard.count : heard.acknowledged;
    return Number(count) >= required;
  }

  /** Calls `listener` with the team of each change heard, as it is heard. */
  onChange(listener: (teamId: number) => void): void {
    this.listeners.push(listener);
  }

  /** Whether marks are given now: connected, registered, and the lease known to run. */
  get following(): boolean {
    return this.healthy && this.now() < this.validUntil;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    this.invalidate();
    if (client === undefined) return;
    await forgetSearchFollower(executorOf(client), this.id).catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  private invalidate(): void {
    if (this.healthy) this.epoch += 1;
    this.healthy = false;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.url,
      // Named, so that an operator (and a test) can tell it apart in pg_stat_activity.
      application_name: SEARCH_FOLLOWER_APPLICATION,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.client = client;
    client.on('notification', (message) => this.heard(client, message));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${LEXICAL_CHANGES_CHANNEL}; LISTEN ${SEARCH_BARRIER_CHANNEL}`);
      const sentAt = this.now();
      await registerSearchFollower(executorOf(client), this.id, this.settings.leaseMs);
      if (this.client !== client) return;
      this.trustLeaseFrom(sentAt);
      this.healthy = true;
      this.reconnectDelayMs = this.settings.reconnectAfterMs;
      if (this.warned) this.logger?.warn({}, 'search follower: listening for changes again');
      this.warned = false;
      this.scheduleRenewal(client);
    } catch (error) {
      this.lost(client, error);
    }
  }

  private heard(client: pg.Client, message: pg.Notification): void {
    if (client !== this.client) return;
    const value = Number(message.payload);
    if (!Number.isSafeInteger(value)) return;
    if (message.channel === LEXICAL_CHANGES_CHANNEL) {
      this.sequence += 1;
      const heard = this.heardByTeam.get(value) ?? { count: 0, last: 0, acknowledged: 0 };
      if (heard.last <= this.acknowledgedSequence) heard.acknowledged = heard.count;
      heard.count += 1;
      heard.last = this.sequence;
      this.heardByTeam.set(value, heard);
      for (const listener of this.listeners) listener(value);
    } else if (message.channel === SEARCH_BARRIER_CHANNEL) {
      // Heard in commit order: every change committed before the barrier has been counted above.
      this.acknowledgedSequence = this.sequence;
      acknowledgeSearchBarrier(executorOf(client), this.id, value).catch((error: unknown) =>
        this.lost(client, error),
      );
    }
  }

  private scheduleRenewal(client: pg.Client): void {
    this.timer = setTimeout(() => void this.renew(client), this.settings.renewEveryMs);
    this.timer.unref();
  }

  private async renew(client: pg.Client): Promise<void> {
    if (client !== this.client) return;
    const sentAt = this.now();
    try {
      const renewal = await renewSearchFollower(executorOf(client), this.id, this.settings.leaseMs);
      if (client !== this.client) return;
      if (!renewal.found) throw new Error("the follower's lease was forgotten");
      // A lease that ran out before this renewal reached the database let barriers pass without
      // this process: nothing heard before counts.
      if (!renewal.continuous) this.invalidate();
      this.trustLeaseFrom(sentAt);
      this.healthy = true;
      this.scheduleRenewal(client);
    } catch (error) {
      this.lost(client, error);
    }
  }

  /** The lease was extended by a statement sent at `sentAt`: it runs at least this long after. */
  private trustLeaseFrom(sentAt: number): void {
    this.validUntil = sentAt + this.settings.leaseMs - this.settings.marginMs;
  }

  private lost(client: pg.Client, error: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.invalidate();
    clearTimeout(this.timer);
    client.end().catch(() => undefined);
    if (this.stopped) return;
    if (!this.warned) {
      this.logger?.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'search follower: not listening for changes (searches read them with a statement until it is again)',
      );
      this.warned = true;
    }
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(delay * 2, MAX_RECONNECT_DELAY_MS);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }
}

/**
 * Waits until every process following searches (whose lease runs) has heard every change committed
 * before this call: a write done before it is then searched in every process. Gives up after
 * `maxWaitMs` (a follower that renews its lease but cannot acknowledge), logging why.
 */
export async function awaitSearchFollowers(
  sql: SqlExecutor,
  options: { readonly maxWaitMs: number; readonly logger?: OutageLogger },
): Promise<void> {
  const barrier = await raiseSearchBarrier(sql);
  const started = performance.now();
  let delayMs = 1;
  while ((await countFollowersBehind(sql, barrier)) > 0) {
    if (performance.now() - started > options.maxWaitMs) {
      options.logger?.warn({ barrier }, 'a search follower did not acknowledge a barrier in time: going on');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 50);
  }
}

/** A dedicated client as an executor (its statements run one after another, in order). */
function executorOf(client: pg.Client): SqlExecutor {
  return {
    executeSql: async <Row>(text: string, values?: unknown[]) =>
      (await client.query(text, values)) as unknown as { rows: Row[] },
  };
}
