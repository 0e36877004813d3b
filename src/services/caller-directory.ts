import { Batcher } from '../batcher.js';
import type { Caller } from '../caller.js';
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

/**
 * Who is behind a bearer token. Every authenticated request asks, so answers are kept for a few
 * seconds (`AUTH_CACHE_TTL_SECONDS`; sign-out forgets at once in this process) and concurrent
 * misses share one query. Unknown tokens are never cached, so guessing cannot fill the cache.
 */
export class CallerDirectory {
  private readonly cache = new Map<string, CachedCaller>();
  private readonly lookups: Batcher<string, (Caller & { expiresAt: Date | null }) | undefined>;

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
  }

  /** Drops every cached token of a user but `keepTokenHash` (sign-out everywhere, a password change). */
  forgetUser(userId: number, keepTokenHash?: string): void {
    for (const [tokenHash, entry] of this.cache) {
      if (entry.caller.userId === userId && tokenHash !== keepTokenHash) this.cache.delete(tokenHash);
    }
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
