import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countingExecutor } from '../../../test/helpers/counting-connection.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/test-database.js';
import { textChunks, uploadFields } from '../../../test/helpers/test-documents.js';
import { memberReader, type Reader, TEAM_ACCESS, teamReader } from '../../access.js';
import { type DatabaseHandle, openDatabase } from '../client.js';
import { saveAccessList } from './access-lists.js';
import { replaceDocument } from './documents.js';
import {
  claimItem,
  claimItems,
  findIndexJob,
  finishJob,
  type IndexJobKind,
  insertIndexJob,
  insertItems,
  jobProgress,
  listItems,
  listTeamJobs,
  markJobRunning,
  setItemOutcome,
  summarizeJobs,
} from './index-jobs.js';

let testDatabase: TestDatabase;
let database: DatabaseHandle;
let teamId: number;
let otherTeamId: number;
/** The member of each team who asks for its jobs. */
const requesters = new Map<number, Reader>();

async function newTeam(name: string): Promise<number> {
  const { rows } = await database.sql.executeSql('INSERT INTO teams (name) VALUES ($1) RETURNING id', [name]);
  const team = Number(rows[0]?.id);
  requesters.set(team, await newMember(team, `requester-${team}@example.com`));
  return team;
}

async function newMember(team: number, email: string): Promise<Reader> {
  const { rows } = await database.sql.executeSql(
    "INSERT INTO users (email, name, team_id, role) VALUES ($1, 'R', $2, 'member') RETURNING id",
    [email, team],
  );
  return memberReader({ teamId: team, email, emailVerified: false, userId: Number(rows[0]?.id) });
}

function requesterOf(team: number): Reader {
  const requester = requesters.get(team);
  if (requester === undefined) throw new Error(`no requester for team ${team}`);
  return requester;
}

/** A job of `team` created `minutesAgo` by its requester, with `files` items (all queued). */
async function newJob(
  team: number,
  minutesAgo: number,
  files: readonly string[] = [],
  kind: IndexJobKind = 'upload',
): Promise<string> {
  const id = randomUUID();
  await insertIndexJob(database.sql, {
    id,
    teamId: team,
    connectorId: null,
    kind,
    requestedBy: requesterOf(team).userId,
    request: { files },
    requestHash: null,
    secretsSealed: 'v1.sealed.secret',
    items: files.map((name) => ({ externalId: name, name, payload: { text: `the text of ${name}` } })),
  });
  await database.sql.executeSql(
    `UPDATE index_jobs SET created_at = now() - make_interval(mins => $2) WHERE id = $1`,
    [id, minutesAgo],
  );
  return id;
}

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  database = await openDatabase(testDatabase.location);
  teamId = await newTeam('Indexers');
  otherTeamId = await newTeam('Others');
});
afterAll(async () => {
  await database?.close();
  await testDatabase?.drop();
});

describe('listTeamJobs', () => {
  let queued: string;
  let running: string;
  let completed: string;
  let failed: string;

  beforeAll(async () => {
    failed = await newJob(teamId, 40, ['a.pdf']);
    completed = await newJob(teamId, 30, ['b.md']);
    running = await newJob(teamId, 20, ['c.md'], 'googledrive');
    queued = await newJob(teamId, 10, ['d.md'], 'wiki');
    await newJob(otherTeamId, 5, ['theirs.md']);
    await markJobRunning(database.sql, running);
    await markJobRunning(database.sql, completed);
    await finishJob(database.sql, completed, 'completed', null);
    await finishJob(database.sql, failed, 'failed', 'The indexing job stopped');
  });

  it("lists the team's jobs newest first, and only the team's", async () => {
    const jobs = await listTeamJobs(database.sql, requesterOf(teamId), { limit: 20, offset: 0 });
    expect(jobs.map((job) => job.id)).toEqual([queued, running, completed, failed]);
    expect(jobs.map((job) => job.status)).toEqual(['queued', 'running', 'completed', 'failed']);
    expect(jobs.map((job) => job.kind)).toEqual(['wiki', 'googledrive', 'upload', 'upload']);
    expect(jobs.every((job) => job.teamId === teamId)).toBe(true);
    expect(jobs[3]).toMatchObject({ error: 'The indexing job stopped', finishedAt: expect.any(Date) });
    expect(jobs[0]?.finishedAt).toBeNull();
    expect(
      (await listTeamJobs(database.sql, requesterOf(otherTeamId), { limit: 20, offset: 0 })).length,
    ).toBe(1);
  });

  it('reads neither the sealed secrets nor the request', async () => {
    const [job] = await listTeamJobs(database.sql, requesterOf(teamId), { limit: 1, offset: 0 });
    expect(job?.secretsSealed).toBeNull();
    expect(job?.request).toEqual({});
  });

  it('filters active (queued, running) and finished (completed, failed) jobs', async () => {
    const active = await listTeamJobs(database.sql, requesterOf(teamId), {
      status: 'active',
      limit: 20,
      offset: 0,
    });
    expect(active.map((job) => job.id)).toEqual([queued, running]);
    const finished = await listTeamJobs(database.sql, requesterOf(teamId), {
      status: 'finished',
      limit: 20,
      offset: 0,
    });
    expect(finished.map((job) => job.id)).toEqual([completed, failed]);
  });

  it('pages with limit and offset, in one statement', async () => {
    const db = countingExecutor(database.sql);
    const first = await listTeamJobs(db, requesterOf(teamId), { limit: 3, offset: 0 });
    const second = await listTeamJobs(db, requesterOf(teamId), { limit: 3, offset: 3 });
    const past = await listTeamJobs(db, requesterOf(teamId), { limit: 3, offset: 10 });
    expect(first.map((job) => job.id)).toEqual([queued, running, completed]);
    expect(second.map((job) => job.id)).toEqual([failed]);
    expect(past).toEqual([]);
    expect(db.statements).toBe(3);
  });
});

describe('summarizeJobs', () => {
  it("counts each job's items, names its first and lists its first failures in position order, in one statement", async () => {
    const files = ['one.md', 'two.pdf', 'three.md', 'four.pdf', 'five.pdf', 'six.docx', 'seven.md'];
    const busy = await newJob(teamId, 1, files);
    const requester = requesterOf(teamId);
    await setItemOutcome(database.sql, busy, 'one.md', { status: 'indexed', chunks: 3, documentId: 11 });
    await setItemOutcome(database.sql, busy, 'two.pdf', {
      status: 'failed',
      reason: 'parse_error',
      message: 'Invalid PDF structure',
    });
    await setItemOutcome(database.sql, busy, 'three.md', { status: 'skipped', reason: 'unchanged' });
    await setItemOutcome(database.sql, busy, 'four.pdf', { status: 'failed', reason: 'too_large' });
    await setItemOutcome(database.sql, busy, 'five.pdf', { status: 'failed', reason: 'unsupported_type' });
    await setItemOutcome(database.sql, busy, 'six.docx', { status: 'indexing' });
    const empty = await newJob(teamId, 2, []);
    const unknown = randomUUID();

    const db = countingExecutor(database.sql);
    const summaries = await summarizeJobs(db, [busy, empty, unknown], 2, requester);
    expect(db.statements).toBe(1);

    expect(summaries.get(busy)?.progress).toEqual({
      total: 7,
      done: 5,
      indexed: 1,
      skipped: 1,
      failed: 3,
      pending: 2,
    });
    expect(summaries.get(busy)?.failures).toEqual([
      {
        externalId: 'two.pdf',
        position: 1,
        name: 'two.pdf',
        status: 'failed',
        reason: 'parse_error',
        message: 'Invalid PDF structure',
        chunks: 0,
        documentId: null,
        payload: {},
      },
      expect.objectContaining({ externalId: 'four.pdf', position: 3, reason: 'too_large', message: null }),
    ]);
    const zero = { total: 0, done: 0, indexed: 0, skipped: 0, failed: 0, pending: 0 };
    expect(summaries.get(busy)?.firstItemName).toBe('one.md');
    expect(summaries.get(empty)).toEqual({ progress: zero, failures: [], firstItemName: null });
    expect(summaries.get(unknown)).toEqual({ progress: zero, failures: [], firstItemName: null });
    // Another member sees no file of a job they did not ask for and cannot open, nor counts them.
    const other = await summarizeJobs(database.sql, [busy], 2, teamReader(teamId));
    expect(other.get(busy)).toEqual({ progress: zero, failures: [], firstItemName: null });
  });

  it('sends no statement for no jobs', async () => {
    const db = countingExecutor(database.sql);
    expect((await summarizeJobs(db, [], 5, teamReader(teamId))).size).toBe(0);
    expect(db.statements).toBe(0);
  });
});

describe("a job of another member's", () => {
  it('shows only the files the reader may open: listed, counted and found by id', async () => {
    const requester = requesterOf(teamId);
    const reader = await newMember(teamId, `reader-${randomUUID()}@example.com`);
    const job = await newJob(teamId, 0, ['shared.md', 'private.md']);
    const hidden = await newJob(teamId, 0, ['private-too.md']);
    const teamList = await saveAccessList(database.sql, teamId, TEAM_ACCESS);
    await database.sql.executeSql(
      `INSERT INTO documents (team_id, source, external_id, title, access_list_id, indexed_by)
       VALUES ($1, 'upload', 'shared.md', 'Shared', $2, $3)`,
      [teamId, teamList, requester.userId],
    );
    await setItemOutcome(database.sql, job, 'shared.md', { status: 'indexed', chunks: 1 });
    await setItemOutcome(database.sql, job, 'private.md', { status: 'indexed', chunks: 1 });

    expect(await jobProgress(database.sql, job, requester)).toMatchObject({ total: 2, indexed: 2 });
    expect(await jobProgress(database.sql, job, reader)).toMatchObject({ total: 1, indexed: 1 });
    expect((await findIndexJob(database.sql, job, reader))?.id).toBe(job);
    expect(await findIndexJob(database.sql, hidden, reader)).toBeUndefined();
    expect(await findIndexJob(database.sql, hidden, requester)).toBeDefined();
    // Of another team, nobody's.
    expect(await findIndexJob(database.sql, job, { ...reader, teamId: otherTeamId })).toBeUndefined();
    const listed = (await listTeamJobs(database.sql, reader, { limit: 50, offset: 0 })).map((row) => row.id);
    expect(listed).toContain(job);
    expect(listed).not.toContain(hidden);
    const summary = (await summarizeJobs(database.sql, [job], 5, reader)).get(job);
    expect(summary).toMatchObject({ firstItemName: 'shared.md', progress: { total: 1, indexed: 1 } });
  });
});

describe('claimItem', () => {
  it("marks the item indexing and answers its document as stored, in one statement; a cancelled job's item stays", async () => {
    const team = await newTeam('Claimers');
    const jobId = await newJob(team, 0, ['stored.md', 'new.md']);
    await markJobRunning(database.sql, jobId);
    const documentId = await replaceDocument(
      database.sql,
      uploadFields(team, 'stored.md'),
      'hash-stored',
      textChunks(['one', 'two']),
      undefined,
    );
    const counted = countingExecutor(database.sql);

    const stored = await claimItem(counted, jobId, 'stored.md', uploadFields(team, 'stored.md'));
    const fresh = await claimItem(counted, jobId, 'new.md', uploadFields(team, 'new.md'));

    expect(counted.statements).toBe(2);
    expect(stored).toMatchObject({
      claimed: true,
      stored: { id: documentId, status: 'indexed', contentHash: 'hash-stored', chunkCount: 2 },
    });
    expect(fresh).toEqual({ claimed: true, stored: undefined });
    const claimedItems = await listItems(database.sql, jobId, ['indexing']);
    expect(claimedItems.map((item) => item.externalId).sort()).toEqual(['new.md', 'stored.md']);

    const cancelled = await newJob(team, 0, ['late.md']);
    await markJobRunning(database.sql, cancelled);
    await finishJob(database.sql, cancelled, 'failed', 'The connector was deleted');
    expect(
      await claimItem(database.sql, cancelled, 'late.md', uploadFields(team, 'stored.md')),
    ).toMatchObject({
      claimed: false,
    });
    expect(await listItems(database.sql, cancelled, ['indexing'])).toEqual([]);
  });
});

describe('claimItems', () => {
  it('claims the items taken up together in one statement, answering each one in order with its stored document', async () => {
    const team = await newTeam('Batch claimers');
    const jobId = await newJob(team, 0, ['a.md', 'b.md', 'c.md']);
    await markJobRunning(database.sql, jobId);
    const storedB = await replaceDocument(
      database.sql,
      uploadFields(team, 'b.md'),
      'hash-b',
      textChunks(['bee']),
      undefined,
    );
    const counted = countingExecutor(database.sql);

    const claims = await claimItems(
      counted,
      jobId,
      ['c.md', 'b.md', 'a.md'].map((name) => ({ externalId: name, document: uploadFields(team, name) })),
    );

    expect(counted.statements).toBe(1);
    expect(claims.map((claim) => [claim.claimed, claim.stored?.id])).toEqual([
      [true, undefined],
      [true, storedB],
      [true, undefined],
    ]);
    const claimed = await listItems(database.sql, jobId, ['indexing']);
    expect(claimed.map((item) => item.externalId)).toEqual(['a.md', 'b.md', 'c.md']);
  });
});

describe('insertItems', () => {
  it("adds a large request's items in statements of bounded size, every item once, in order", async () => {
    const team = await newTeam('Bulk uploaders');
    const jobId = await newJob(team, 0);
    // 40 items of 10,000 characters: about 400,000 characters of JSON, more than one statement carries.
    const items = Array.from({ length: 40 }, (_, index) => ({
      externalId: `abstract-${index}`,
      name: `Abstract ${index}`,
      payload: { text: `${'word '.repeat(2_000)}${index}` },
    }));
    const counted = countingExecutor(database.sql);

    await insertItems(counted, jobId, items, 0);
    // Posted again (a retried request): nothing doubles.
    await insertItems(database.sql, jobId, items, 0);

    expect(counted.statements).toBeGreaterThan(1);
    expect(counted.statements).toBeLessThan(items.length);
    const stored = await listItems(database.sql, jobId, ['queued']);
    expect(stored.map((item) => item.externalId)).toEqual(items.map((item) => item.externalId));
    expect(stored.map((item) => item.position)).toEqual(items.map((_, index) => index));
    expect(stored[39]?.payload).toEqual(items[39]?.payload);
  });
});
