import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  type TestDatabase,
  testDatabaseKind,
} from '../../../test/helpers/test-database.js';
import { insertTeam } from '../../../test/helpers/test-documents.js';
import { type DatabaseHandle, openDatabase } from '../client.js';
import type { OutageLogger } from '../database-availability.js';
import { awaitSearchFollowers, SEARCH_FOLLOWER_APPLICATION, SearchFollower } from '../search-follower.js';
import { countFollowersBehind, raiseSearchBarrier } from './search-followers.js';

/** Leases long enough that none runs out during a test on a busy machine, unless a test lets it. */
const SETTINGS = { leaseMs: 120_000, renewEveryMs: 1_000, marginMs: 1_000, reconnectAfterMs: 20 };

// Followers listen on PostgreSQL, where other processes write; PGlite is one process.
describe.skipIf(testDatabaseKind() !== 'postgres')('search followers and barriers (PostgreSQL)', () => {
  let created: TestDatabase;
  let database: DatabaseHandle;
  let url = '';
  const testDatabase = () => database;
  beforeAll(async () => {
    created = await createTestDatabase();
    if (created.location.kind !== 'postgres') throw new Error('needs PostgreSQL');
    url = created.location.url;
    database = await openDatabase(created.location);
  });
  afterAll(async () => {
    await database.close();
    await created.drop();
  });
  const followers: SearchFollower[] = [];
  afterEach(async () => {
    await Promise.all(followers.splice(0).map((follower) => follower.stop()));
    await testDatabase().sql.executeSql('DELETE FROM search_followers');
  });

  async function follower(logger?: OutageLogger): Promise<SearchFollower> {
    const started = new SearchFollower(url, SETTINGS, logger);
    followers.push(started);
    started.start();
    await expect.poll(() => started.following).toBe(true);
    return started;
  }

  /** Lists a chunk of the team as changed, as the triggers on chunk_terms do in a writer's transaction. */
  async function change(teamId: number): Promise<void> {
    await testDatabase().sql.executeSql('INSERT INTO lexical_changes (team_id, chunk_id) VALUES ($1, 1)', [
      teamId,
    ]);
  }

  it("has heard every team's change committed before a barrier once the barrier has passed", async () => {
    const sql = testDatabase().sql;
    const [changed, quiet] = [await insertTeam(sql, 'Changed'), await insertTeam(sql, 'Quiet')];
    const followed = await follower();
    const other = await follower();
    for (let round = 0; round < 20; round++) {
      const before = [followed.mark(changed), other.mark(changed), followed.mark(quiet)];
      await change(changed);
      await awaitSearchFollowers(sql, { maxWaitMs: 120_000 });
      expect(followed.mark(changed)).not.toBe(before[0]);
      expect(other.mark(changed)).not.toBe(before[1]);
      expect(followed.mark(quiet)).toBe(before[2]);
    }
  });

  it('tells a sync it covers changes heard until a barrier passes after them, and tells listeners of each', async () => {
    const sql = testDatabase().sql;
    const [changed, quiet] = [await insertTeam(sql, 'Heard'), await insertTeam(sql, 'Unheard')];
    const followed = await follower();
    const heard: number[] = [];
    followed.onChange((teamId) => heard.push(teamId));
    for (let round = 0; round < 5; round++) {
      const synced = followed.mark(changed);
      if (synced === undefined) throw new Error('the follower gives no mark');
      expect(followed.covers(changed, synced)).toBe(true);
      const told = heard.length;
      await change(changed);
      await expect.poll(() => heard.length).toBe(told + 1);
      expect(heard.at(-1)).toBe(changed);
      // Heard, but no barrier has passed it: nobody was told it is done.
      expect(followed.mark(changed)).not.toBe(synced);
      expect(followed.covers(changed, synced)).toBe(true);
      await awaitSearchFollowers(sql, { maxWaitMs: 120_000 });
      expect(followed.covers(changed, synced)).toBe(false);
      const after = followed.mark(changed);
      if (after === undefined) throw new Error('the follower gives no mark');
      expect(followed.covers(changed, after)).toBe(true);
      // Another change after the barrier leaves a sync sent after the barrier covering, not one before it.
      await change(changed);
      await expect.poll(() => heard.length).toBe(told + 2);
      expect(followed.covers(changed, after)).toBe(true);
      expect(followed.covers(changed, synced)).toBe(false);
      await awaitSearchFollowers(sql, { maxWaitMs: 120_000 });
      expect(followed.covers(changed, after)).toBe(false);
    }
    const quietMark = followed.mark(quiet);
    expect(quietMark === undefined ? false : followed.covers(quiet, quietMark)).toBe(true);
    expect(heard).not.toContain(quiet);
  });

  it('waits for a follower that has not heard the barrier, and not for one whose lease ran out', async () => {
    const sql = testDatabase().sql;
    // Rows as a follower that stalls (its lease runs) and one that died long ago leave them.
    const stalled = randomUUID();
    await sql.executeSql(
      `INSERT INTO search_followers (id, acknowledged, expires_at) VALUES
         ($1, 0, now() + interval '1 hour'), ($2, 0, now() - interval '1 minute')`,
      [stalled, randomUUID()],
    );
    let passed = false;
    const barrier = awaitSearchFollowers(sql, { maxWaitMs: 600_000 }).then(() => {
      passed = true;
    });
    // The barrier is raised and found the stalled follower behind it, more than once.
    await expect.poll(async () => (await raiseSearchBarrier(sql)) > 3).toBe(true);
    expect(await countFollowersBehind(sql, 1)).toBe(1);
    expect(passed).toBe(false);
    await sql.executeSql('UPDATE search_followers SET acknowledged = 1000 WHERE id = $1', [stalled]);
    await barrier;
    expect(passed).toBe(true);
  });

  it('gives no mark while its connection is lost, and marks of a new epoch once it listens again', async () => {
    const sql = testDatabase().sql;
    const teamId = await insertTeam(sql, 'Lost connection');
    // What it marks the moment it tells of the loss, and of listening again.
    const marksWhenTold: (string | undefined)[] = [];
    let followed: SearchFollower | undefined;
    followed = await follower({ warn: () => marksWhenTold.push(followed?.mark(teamId)) });
    const before = followed.mark(teamId);
    expect(before).toBeDefined();
    await sql.executeSql(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [SEARCH_FOLLOWER_APPLICATION],
    );
    await expect.poll(() => marksWhenTold.length).toBe(2);
    expect(marksWhenTold[0]).toBeUndefined();
    expect(marksWhenTold[1]).toBeDefined();
    expect(marksWhenTold[1]).not.toBe(before);
    const after = followed.mark(teamId);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // What a sync read before the loss covers nothing now: changes may have been missed meanwhile.
    expect(before === undefined ? true : followed.covers(teamId, before)).toBe(false);
    // It heard changes again: a barrier passes, with the change counted.
    await change(teamId);
    await awaitSearchFollowers(sql, { maxWaitMs: 120_000 });
    expect(followed.mark(teamId)).not.toBe(after);
  });

  it('gives no mark once its lease may have run out, until a renewal', async () => {
    let clock = 0;
    const followed = new SearchFollower(
      url,
      { ...SETTINGS, renewEveryMs: 3_600_000 },
      undefined,
      () => clock,
    );
    followers.push(followed);
    followed.start();
    await expect.poll(() => followed.following).toBe(true);
    const teamId = 1;
    const before = followed.mark(teamId);
    expect(before).toBeDefined();
    clock = SETTINGS.leaseMs - SETTINGS.marginMs;
    expect(followed.mark(teamId)).toBeUndefined();
    expect(followed.following).toBe(false);
  });
});
