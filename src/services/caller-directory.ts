import { Batcher } from '../batcher.js';
import type { Caller, TokenKind } from '../caller.js';
import type { Repositories } from '../db/repositories.js';
import { hashAccessToken } from '../security/access-tokens.js';

interface CachedCaller {
  readonly caller: Caller;
  /** The token's own expiry: never served past it. */
  readonly expiresAt: number;
  /** When to ask the database again. */
  readonly freshUntil: number;
}

const MAX_CACHED = 10_000;
/** How often this process writes a token's use (`last_used_at`), at most. */
const USE_MARK_INTERVAL_MS = 60_000;

/**
 * Who is behind a bearer token. Every authenticated request asks, so answers are kept for a few
 * seconds (`AUTH_CACHE_TTL_SECONDS`; sign-out forgets at once in this process) and concurrent
 * misses share one query. Unknown tokens are never cached, so guessing cannot fill the cache.
 */
export class CallerDirectory {
  private readonly cache = new Map<string, CachedCaller>();
  private readonly lookups: Batcher<
    string,
    (Caller & { expiresAt: Date | null; tokenKind: TokenKind }) | undefined
  >;
  /** When this process last marked each token used (tokens the database knows only). */
  private readonly markedUseAt = new Map<string, number>();
  private readonly useMarks: Batcher<string, undefined>;

  constructor(
    data: Pick<Repositories, 'accessTokens'>,
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {
    this.lookups = new Batcher(
      async (hashes) => {
        const found = await data.accessTokens.findCallersByTokenHashes([...new Set(hashes)]);
        const byHash = new Map(found.map((caller) => [caller.tokenHash, caller]));
        return hashes.map((hash) => byHash.get(hash));
      },
      { maxBatchSize: 200, maxConcurrentRuns: 2 },
    );
    this.useMarks = new Batcher(
      async (hashes) => {
        try {
          await data.accessTokens.markTokensUsed([...new Set(hashes)]);
        } catch {
          // Never fails a request: a lost mark is written by the token's next use a minute on.
        }
        return hashes.map(() => undefined);
      },
      { maxBatchSize: 500, maxConcurrentRuns: 1 },
    );
  }

  async find(token: string): Promise<Caller | undefined> {
    const tokenHash = hashAccessToken(token);
    const now = this.now().getTime();
    const cached = this.cache.get(tokenHash);
    if (cached !== undefined && cached.freshUntil > now && cached.expiresAt > now) return cached.caller;
    const found = await this.lookups.submit(tokenHash);
    if (found === undefined) {
      this.cache.delete(tokenHash);
      return undefined;
    }
    const { expiresAt, ...caller } = found;
    // Sessions keep no `last_used_at`: only a personal or OAuth token's use is written.
    if (caller.tokenKind !== 'session') this.markUsed(tokenHash, now);
    if (this.ttlMs > 0)
      this.remember(tokenHash, {
        caller,
        expiresAt: expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
        freshUntil: now + this.ttlMs,
      });
    return caller;
  }

  /** Drops a revoked token at once (other processes drop it when their entry goes stale). */
  forget(tokenHash: string): void {
    this.cache.delete(tokenHash);
    this.markedUseAt.delete(tokenHash);
  }

  /** Drops every cached token of a user but `keepTokenHash` (sign-out everywhere, a password change). */
  forgetUser(userId: number, keepTokenHash?: string): void {
    for (const [tokenHash, entry] of this.cache) {
      if (entry.caller.userId === userId && tokenHash !== keepTokenHash) this.cache.delete(tokenHash);
    }
  }

  /**
   * Records a personal or OAuth token's use (`last_used_at`) in the background, at most once a minute per
   * token from this process; the statement itself skips marks under a minute old, so several
   * processes together still write about once a minute. Only tokens the database just
   * found come here: read from the cache they were found within the last few seconds.
   */
  private markUsed(tokenHash: string, now: number): void {
    const markedAt = this.markedUseAt.get(tokenHash);
    if (markedAt !== undefined && markedAt > now - USE_MARK_INTERVAL_MS) return;
    this.markedUseAt.delete(tokenHash);
    if (this.markedUseAt.size >= MAX_CACHED) {
      const oldest = this.markedUseAt.keys().next().value;
      if (oldest !== undefined) this.markedUseAt.delete(oldest);
    }
    this.markedUseAt.set(tokenHash, now);
    void this.useMarks.submit(tokenHash);
  }

  private remember(tokenHash: string, entry: CachedCaller): void {
    this.cache.delete(tokenHash);
    if (this.cache.size >= MAX_CACHED) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(tokenHash, entry);
  }
}
