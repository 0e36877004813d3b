import { describe, expect, it } from 'vitest';
import type { SqlExecutor } from '../db/sql-connection.js';
import { FOLD_TOTALS_AFTER_ROWS, TeamStatisticsCache } from './team-statistics.js';

/** A database whose team count is set by the test and answers when the test lets it. */
class CountingDatabase implements SqlExecutor {
  chunks = 100;
  /** Rows of `team_chunk_totals` the count sums. */
  summedRows = 1;
  queries = 0;
  folds = 0;
  private readonly waiting: (() => void)[] = [];
  held = false;

  async executeSql<Row>(text: string): Promise<{ rows: Row[] }> {
    if (text.includes('DELETE FROM team_chunk_totals')) {
      this.folds += 1;
      this.summedRows = 1;
      return { rows: [] };
    }
    this.queries += 1;
    const chunks = this.chunks;
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return { rows: [{ chunks, length: chunks * 40, rows: this.summedRows } as Row] };
  }

  release(): void {
    this.held = false;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

function cacheOn(database: CountingDatabase, clock: { now: number }): TeamStatisticsCache {
  return new TeamStatisticsCache(database, { ttlMs: 10_000, staleMs: 60_000 }, 100, () => clock.now);
}

describe('TeamStatisticsCache', () => {
  it('counts a team once while the count is fresh; concurrent searches share the count', async () => {
    const database = new CountingDatabase();
    const clock = { now: 0 };
    const cache = cacheOn(database, clock);
    const [a, b] = await Promise.all([cache.get(1), cache.get(1)]);
    clock.now = 9_000;
    const c = await cache.get(1);
    expect([a.chunks, b.chunks, c.chunks]).toEqual([100, 100, 100]);
    expect(database.queries).toBe(1);
  });

  it('answers an expired count at once while one recount runs, then uses the recount', async () => {
    const database = new CountingDatabase();
    const clock = { now: 0 };
    const cache = cacheOn(database, clock);
    await cache.get(1);
    database.chunks = 250;
    database.held = true;
    clock.now = 11_000;
    // The recount is held back by the database: the searches are not.
    const during = await Promise.all([cache.get(1), cache.get(1), cache.get(1)]);
    expect(during.map((statistics) => statistics.chunks)).toEqual([100, 100, 100]);
    expect(database.queries).toBe(2);
    database.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await cache.get(1)).chunks).toBe(250);
    expect(database.queries).toBe(2);
  });

  it('waits for a recount when the count it has is too old to use', async () => {
    const database = new CountingDatabase();
    const clock = { now: 0 };
    const cache = cacheOn(database, clock);
    await cache.get(1);
    database.chunks = 5_000;
    clock.now = 71_000;
    expect((await cache.get(1)).chunks).toBe(5_000);
  });

  it('does not remember an empty team, so its first documents count at once', async () => {
    const database = new CountingDatabase();
    database.chunks = 0;
    const cache = cacheOn(database, { now: 0 });
    expect((await cache.get(1)).chunks).toBe(0);
    database.chunks = 3;
    expect((await cache.get(1)).chunks).toBe(3);
  });

  it('tries a failed recount again on the next search, keeping the count it had', async () => {
    const database = new CountingDatabase();
    const clock = { now: 0 };
    const cache = cacheOn(database, clock);
    await cache.get(1);
    const failing: SqlExecutor = {
      executeSql: async () => {
        database.queries += 1;
        throw new Error('connection lost');
      },
    };
    const original = database.executeSql.bind(database);
    database.executeSql = failing.executeSql as typeof database.executeSql;
    clock.now = 11_000;
    expect((await cache.get(1)).chunks).toBe(100);
    await new Promise((resolve) => setImmediate(resolve));
    database.executeSql = original;
    database.chunks = 120;
    expect((await cache.get(1)).chunks).toBe(100);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await cache.get(1)).chunks).toBe(120);
    expect(database.queries).toBe(3);
  });

  it('folds a team whose count summed many rows, once, and not one with few', async () => {
    const database = new CountingDatabase();
    const clock = { now: 0 };
    const cache = cacheOn(database, clock);
    database.summedRows = FOLD_TOTALS_AFTER_ROWS;
    await cache.get(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(database.folds).toBe(0);
    database.summedRows = FOLD_TOTALS_AFTER_ROWS + 1;
    clock.now = 70_000;
    await Promise.all([cache.get(2), cache.get(2)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(database.folds).toBe(1);
    // The fold left one row: the next count does not fold again.
    clock.now = 140_000;
    await cache.get(2);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(database.folds).toBe(1);
  });
});
