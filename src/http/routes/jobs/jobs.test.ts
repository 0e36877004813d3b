import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { multipart } from '../../../../test/helpers/multipart-body.js';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uniqueSuffix,
  waitForJob,
} from '../../../../test/helpers/test-app.js';
import {
  finishJob,
  type IndexJobKind,
  insertIndexJob,
  markJobRunning,
  setItemOutcome,
} from '../../../db/repositories/index-jobs.js';
import type { JobSnapshot } from '../../../jobs/job-queue.js';

interface ListedJob {
  result_id: string;
  result_ready: boolean;
  status: string;
  kind: string;
  progress: Record<string, number>;
  error: string | null;
  failures: { id: string; name: string; status: string; reason: string | null; message: string | null }[];
  created_at: string;
  finished_at: string | null;
}

describe('GET /v1/jobs: the team’s index jobs', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
  });
  afterAll(() => testApp.close());

  /** A job of `teamId` written straight into the database (no queue job: the worker never takes it). */
  async function storedJob(
    teamId: number,
    minutesAgo: number,
    options: {
      kind?: IndexJobKind;
      files?: string[];
      status?: 'queued' | 'running' | 'completed' | 'failed';
    } = {},
  ): Promise<string> {
    const id = randomUUID();
    const sql = testApp.runtime.database.sql;
    const files = options.files ?? ['notes.md'];
    // Asked for by the team's owner (the user each test registers): its files are theirs to see.
    const { rows: owners } = await sql.executeSql('SELECT owner_user_id FROM teams WHERE id = $1', [teamId]);
    await insertIndexJob(sql, {
      id,
      teamId,
      connectorId: null,
      kind: options.kind ?? 'upload',
      requestedBy: Number(owners[0]?.owner_user_id),
      request: {},
      requestHash: null,
      secretsSealed: null,
      items: files.map((name) => ({ externalId: name, name, payload: {} })),
    });
    await sql.executeSql(
      'UPDATE index_jobs SET created_at = now() - make_interval(mins => $2) WHERE id = $1',
      [id, minutesAgo],
    );
    const status = options.status ?? 'completed';
    if (status !== 'queued') await markJobRunning(sql, id);
    if (status === 'completed' || status === 'failed') {
      for (const name of files) await setItemOutcome(sql, id, name, { status: 'indexed', chunks: 1 });
      await finishJob(sql, id, status, status === 'failed' ? 'The indexing job stopped' : null);
    }
    return id;
  }

  async function list(token: string, query = ''): Promise<ListedJob[]> {
    const response = await testApp.app.inject({ url: `/v1/jobs${query}`, headers: bearer(token) });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { jobs: ListedJob[] }).jobs;
  }

  it('lists an upload as GET /v1/jobs/{result_id} shows it, with its failed file and reason', async () => {
    const user = await registerUser(testApp.app);
    const { body, contentType } = multipart([
      {
        name: 'file',
        fileName: 'notes.md',
        type: 'text/markdown',
        content: '# Notes\n\nThe boiler is serviced in May.',
      },
      { name: 'file', fileName: 'broken.pdf', type: 'application/pdf', content: 'these bytes are not a PDF' },
    ]);
    const upload = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(user.token), 'content-type': contentType },
      payload: body,
    });
    expect(upload.statusCode, upload.body).toBe(202);
    const id = (upload.json() as { result_id: string }).result_id;
    const single = await waitForJob(testApp.app, user.token, `/v1/jobs/${id}`);

    const jobs = await list(user.token);
    expect(jobs).toHaveLength(1);
    const { files, progress, ...shared } = single;
    expect(jobs[0]).toEqual({
      ...shared,
      progress: { ...(progress as object), pending: 0 },
      first_file_name: 'notes.md',
      failures: files.filter((file) => file.status === 'failed'),
    });
    expect(jobs[0]).toMatchObject({
      result_id: id,
      result_ready: true,
      status: 'completed',
      kind: 'upload',
      progress: { total: 2, done: 2, indexed: 1, skipped: 0, failed: 1, pending: 0 },
      failures: [{ id: 'broken.pdf', name: 'broken.pdf', status: 'failed', reason: 'parse_error' }],
    });
    expect(await list(user.token, '?status=finished')).toHaveLength(1);
    expect(await list(user.token, '?status=active')).toEqual([]);
  });

  it("never lists another team's jobs, whatever the query says", async () => {
    const ours = await registerUser(testApp.app);
    const theirs = await registerUser(testApp.app);
    const mine = await storedJob(ours.teamId, 3);
    const active = await storedJob(ours.teamId, 2, { status: 'running' });
    const foreign = [
      await storedJob(theirs.teamId, 1),
      await storedJob(theirs.teamId, 1, { status: 'queued' }),
    ];
    for (const query of [
      '',
      '?status=active',
      '?status=finished',
      `?team_id=${theirs.teamId}`,
      '?offset=1',
    ]) {
      const ids = (await list(ours.token, query)).map((job) => job.result_id);
      expect(
        ids.filter((id) => foreign.includes(id)),
        query,
      ).toEqual([]);
    }
    expect((await list(ours.token)).map((job) => job.result_id)).toEqual([active, mine]);
    expect((await list(theirs.token)).map((job) => job.result_id).sort()).toEqual([...foreign].sort());
    // A browser's session cookie lists the same.
    const email = `jobs-${uniqueSuffix()}@example.com`;
    const user = await registerUser(testApp.app, { email, password: 'a long passphrase' });
    await storedJob(user.teamId, 1);
    const session = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/session',
      payload: { email, password: 'a long passphrase' },
    });
    const cookie = /^ka_session=([^;]*);/.exec(String(session.headers['set-cookie']))?.[1] ?? '';
    const byCookie = await testApp.app.inject({
      url: '/v1/jobs',
      headers: { cookie: `ka_session=${cookie}` },
    });
    expect(byCookie.statusCode).toBe(200);
    expect((byCookie.json() as { jobs: unknown[] }).jobs).toHaveLength(1);
  });

  it('pages newest first with limit (default 20) and offset', async () => {
    const user = await registerUser(testApp.app);
    const ids: string[] = [];
    for (let minutesAgo = 25; minutesAgo >= 1; minutesAgo -= 1)
      ids.unshift(await storedJob(user.teamId, minutesAgo));
    // ids: newest first.
    expect((await list(user.token)).map((job) => job.result_id)).toEqual(ids.slice(0, 20));
    expect((await list(user.token, '?limit=10&offset=10')).map((job) => job.result_id)).toEqual(
      ids.slice(10, 20),
    );
    expect((await list(user.token, '?limit=10&offset=20')).map((job) => job.result_id)).toEqual(
      ids.slice(20),
    );
    expect(await list(user.token, '?offset=25')).toEqual([]);
    expect((await list(user.token, '?limit=100')).length).toBe(25);
    for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?limit=ten']) {
      const response = await testApp.app.inject({ url: `/v1/jobs${query}`, headers: bearer(user.token) });
      expect(response.statusCode, query).toBe(422);
      expect((response.json() as { detail: { loc: string[] }[] }).detail[0]?.loc[0]).toBe('query');
    }
  });

  it('filters active (queued, running) and finished (completed, failed) jobs', async () => {
    const user = await registerUser(testApp.app);
    const failed = await storedJob(user.teamId, 4, { status: 'failed' });
    const completed = await storedJob(user.teamId, 3, { status: 'completed', kind: 'wiki' });
    const running = await storedJob(user.teamId, 2, {
      status: 'running',
      kind: 'googledrive',
      files: ['a', 'b'],
    });
    const queued = await storedJob(user.teamId, 1, { status: 'queued' });

    const active = await list(user.token, '?status=active');
    expect(active.map((job) => [job.result_id, job.status])).toEqual([
      [queued, 'queued'],
      [running, 'running'],
    ]);
    expect(active[1]).toMatchObject({
      result_ready: false,
      kind: 'googledrive',
      progress: { total: 2, done: 0, pending: 2 },
      finished_at: null,
    });
    const finished = await list(user.token, '?status=finished');
    expect(finished.map((job) => [job.result_id, job.status])).toEqual([
      [completed, 'completed'],
      [failed, 'failed'],
    ]);
    expect(finished[1]).toMatchObject({ result_ready: true, error: 'The indexing job stopped' });
    expect((await list(user.token)).map((job) => job.result_id)).toEqual([
      queued,
      running,
      completed,
      failed,
    ]);
    const wrong = await testApp.app.inject({ url: '/v1/jobs?status=running', headers: bearer(user.token) });
    expect(wrong.statusCode).toBe(422);
  });

  it('settles a running job the queue gave up on (every attempt died) instead of listing it running', async () => {
    const user = await registerUser(testApp.app);
    const dead = await storedJob(user.teamId, 1, { status: 'running', files: ['lost.md'] });
    const getJob = vi.spyOn(testApp.runtime.deps.jobs, 'getJob');
    getJob.mockImplementation(async (_name, id) =>
      id === dead
        ? ({ state: 'failed', failure: { message: 'The worker died 3 times' } } as unknown as JobSnapshot)
        : null,
    );
    try {
      expect(await list(user.token, '?status=active')).toEqual([]);
      const [job] = await list(user.token, '?status=finished');
      expect(job).toMatchObject({
        result_id: dead,
        status: 'failed',
        error: 'The worker died 3 times',
        progress: { total: 1, failed: 1, pending: 0 },
        failures: [{ name: 'lost.md', reason: 'internal_error', message: 'The worker died 3 times' }],
      });
    } finally {
      getJob.mockRestore();
    }
  });

  it('lists only the first 5 failures of a job, counting them all', async () => {
    const user = await registerUser(testApp.app);
    const files = Array.from({ length: 8 }, (_, index) => `scan-${index}.pdf`);
    const id = await storedJob(user.teamId, 1, { status: 'running', files });
    for (const name of files) {
      await setItemOutcome(testApp.runtime.database.sql, id, name, {
        status: 'failed',
        reason: 'parse_error',
      });
    }
    const [job] = await list(user.token);
    expect(job?.progress).toMatchObject({ total: 8, done: 8, failed: 8, pending: 0 });
    expect(job?.failures.map((failure) => failure.name)).toEqual(files.slice(0, 5));
  });

  it('asks for a credential, and is documented in OpenAPI with an example', async () => {
    const anonymous = await testApp.app.inject({ url: '/v1/jobs' });
    expect(anonymous.statusCode).toBe(401);
    interface Operation {
      parameters: { name: string }[];
      responses: Record<string, { content: Record<string, { example?: { jobs: ListedJob[] } }> }>;
    }
    const spec = (await testApp.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, { get?: Operation }>;
    };
    const operation = spec.paths['/v1/jobs']?.get;
    expect(operation?.parameters.map((parameter) => parameter.name).sort()).toEqual([
      'limit',
      'offset',
      'status',
    ]);
    const example = operation?.responses['200']?.content['application/json']?.example;
    expect(example?.jobs.map((job) => job.status)).toEqual(['running', 'completed']);
  });
});
