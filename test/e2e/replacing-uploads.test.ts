import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  joinedMember,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
  waitForJob,
} from '../helpers/test-app.js';

// Issue 32's attacks by a member on what others brought in, replayed through the HTTP API: an
// upload's `external_id` posted again by someone who may not replace it is refused whatever it
// holds, and job views name and count only what the reader may open.

type JobFile = {
  id: string;
  name: string;
  status: string;
  reason: string | null;
  document_id: number | null;
};
type JobView = Awaited<ReturnType<typeof waitForJob>> & {
  progress: { total: number; indexed: number; skipped: number; failed: number };
  files: JobFile[];
};

const SALARIES = 'Salaries for 2027: the engineering payband rises to ninety thousand (paybandtoken).';
const LAYOFFS = 'Layoff list\n\nThe support desk closes in March (layofftoken).';
const HANDBOOK = 'Handbook\n\nThe office opens at nine (handbooktoken).';

describe('a member posting the external_id of what someone else brought in', () => {
  let testApp: TestApp;
  let owner: string;
  let member: string;
  let admin: string;

  async function upload(token: string, documents: readonly unknown[]): Promise<JobView> {
    return (await uploadDocuments(testApp.app, token, documents)) as JobView;
  }

  async function search(token: string, query: string): Promise<{ title: string; text: string }[]> {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(token),
      payload: { query, top_k: 10, mode: 'lexical' },
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { results: { title: string; text: string }[] }).results;
  }

  async function storedDocument(externalId: string) {
    const { rows } = await testApp.runtime.database.sql.executeSql<{
      chunk_count: number;
      access_list_id: number;
      indexed_by: number | null;
      title: string;
      last_job_id: string | null;
    }>(
      'SELECT chunk_count, access_list_id, indexed_by, title, last_job_id FROM documents WHERE external_id = $1',
      [externalId],
    );
    return rows[0];
  }

  function onlyFile(job: JobView) {
    expect(job.files).toHaveLength(1);
    return job.files[0];
  }

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    owner = (await registerUser(testApp.app)).token;
    member = await joinedMember(testApp.app, owner);
    admin = await joinedMember(testApp.app, owner, 'admin');
    await upload(owner, [
      { external_id: 'salaries', title: 'Salaries', text: SALARIES, visibility: 'private' },
      { external_id: 'layoffs', text: LAYOFFS, visibility: 'private' },
      { external_id: 'handbook', text: HANDBOOK },
    ]);
  }, 900_000);

  afterAll(async () => {
    await testApp?.close();
  });

  it('refuses a guessed copy: no "unchanged" to confirm the text, and the owner keeps it private', async () => {
    const before = await storedDocument('salaries');
    const job = await upload(member, [{ external_id: 'salaries', text: SALARIES, visibility: 'private' }]);
    expect(onlyFile(job)).toMatchObject({ status: 'failed', reason: 'permission_denied', document_id: null });
    // A wrong guess gets the very same answer: nothing tells the two apart.
    const wrong = await upload(member, [
      { external_id: 'salaries', text: 'Salaries: nothing', visibility: 'private' },
    ]);
    const outcome = (file: JobFile | undefined) => ({ ...file, id: undefined, name: undefined });
    expect(outcome(onlyFile(wrong))).toEqual(outcome(onlyFile(job)));
    expect(await storedDocument('salaries')).toEqual(before);
    expect((await search(owner, 'paybandtoken')).map((result) => result.title)).toEqual(['Salaries']);
    expect(await search(member, 'paybandtoken')).toEqual([]);
  });

  it("refuses blank text: the owner's document keeps its chunks, and the member's jobs do not name it", async () => {
    const before = await storedDocument('layoffs');
    const job = await upload(member, [{ external_id: 'layoffs', text: '   ' }]);
    expect(onlyFile(job)).toMatchObject({ status: 'failed', reason: 'permission_denied' });
    expect(await storedDocument('layoffs')).toEqual(before);
    expect((await search(owner, 'layofftoken')).map((result) => result.title)).toEqual(['Layoff list']);

    const listing = await testApp.app.inject({ url: '/v1/jobs?limit=100', headers: bearer(member) });
    expect(listing.statusCode, listing.body).toBe(200);
    const jobs = (listing.json() as { jobs: { result_id: string; first_file_name: string | null }[] }).jobs;
    expect(jobs.map((listed) => listed.first_file_name)).not.toContain('Layoff list');
    expect(jobs.map((listed) => listed.result_id)).toContain(job.result_id);
  });

  it("refuses new text for a team-wide document: every member still reads the owner's", async () => {
    const job = await upload(member, [
      { external_id: 'handbook', text: 'Handbook\n\nThe office never opens (handbooktoken).' },
    ]);
    expect(onlyFile(job)).toMatchObject({ status: 'failed', reason: 'permission_denied' });
    for (const reader of [owner, member, admin]) {
      const [hit] = await search(reader, 'handbooktoken');
      expect(hit?.text).toContain('The office opens at nine');
    }
  });

  it('lets members replace and delete their own uploads, as before', async () => {
    await upload(member, [{ external_id: 'member-notes', text: 'Notes\n\nFirst draft (draftonetoken).' }]);
    const replaced = await upload(member, [
      { external_id: 'member-notes', text: 'Notes\n\nSecond draft (drafttwotoken).' },
    ]);
    expect(onlyFile(replaced)).toMatchObject({ status: 'indexed' });
    expect(await search(member, 'draftonetoken')).toEqual([]);
    expect((await search(owner, 'drafttwotoken')).map((result) => result.title)).toEqual(['Notes']);
    const id = onlyFile(replaced)?.document_id;
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/documents/${id}`,
      headers: bearer(member),
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
  });

  it("lets an owner or admin replace another's document they may open, and nobody one they may not", async () => {
    await upload(member, [
      { external_id: 'member-guide', text: 'Guide\n\nOld advice (oldadvicetoken).' },
      { external_id: 'member-diary', text: 'Diary\n\nMy own thoughts (diarytoken).', visibility: 'private' },
    ]);
    const byAdmin = await upload(admin, [
      { external_id: 'member-guide', text: 'Guide\n\nNew advice (newadvicetoken).' },
      { external_id: 'member-diary', text: 'Diary\n\nOverwritten.' },
    ]);
    expect(byAdmin.files.map((file) => [file.id, file.status, file.reason])).toEqual([
      ['member-guide', 'indexed', null],
      ['member-diary', 'failed', 'permission_denied'],
    ]);
    expect((await search(member, 'newadvicetoken')).map((result) => result.title)).toEqual(['Guide']);
    expect((await search(member, 'diarytoken')).map((result) => result.title)).toEqual(['Diary']);
  });

  it('changes who may open an unchanged text only as a change, never as "unchanged"', async () => {
    const shared = await upload(owner, [{ external_id: 'salaries', title: 'Salaries', text: SALARIES }]);
    expect(onlyFile(shared)).toMatchObject({ status: 'indexed' });
    expect((await search(member, 'paybandtoken')).map((result) => result.title)).toEqual(['Salaries']);
    const again = await upload(owner, [{ external_id: 'salaries', title: 'Salaries', text: SALARIES }]);
    expect(onlyFile(again)).toMatchObject({ status: 'skipped', reason: 'unchanged' });
    const hidden = await upload(owner, [
      { external_id: 'salaries', title: 'Salaries', text: SALARIES, visibility: 'private' },
    ]);
    expect(onlyFile(hidden)).toMatchObject({ status: 'indexed' });
    expect(await search(member, 'paybandtoken')).toEqual([]);
  });
});

describe("a member reading the jobs of someone else's uploads", () => {
  let testApp: TestApp;
  let owner: string;
  let member: string;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
    owner = (await registerUser(testApp.app)).token;
    member = await joinedMember(testApp.app, owner);
  }, 900_000);

  afterAll(async () => {
    await testApp?.close();
  });

  it('counts and lists only the files the member may open; a job of none is a 404', async () => {
    const mixed = await uploadDocuments(testApp.app, owner, [
      { external_id: 'plan', text: 'Plan\n\nThe plan.' },
      { external_id: 'secret-plan', text: 'Secret plan\n\nThe real plan.', visibility: 'private' },
    ]);
    const hidden = await uploadDocuments(testApp.app, owner, [
      { external_id: 'bonus', text: 'Bonuses\n\nWho gets one.', visibility: 'private' },
    ]);

    for (const path of [`/v1/jobs/${mixed.result_id}`, `/v1/documents/jobs/${mixed.result_id}`]) {
      const seen = (await waitForJob(testApp.app, member, path)) as JobView;
      expect(seen.files.map((file) => file.id)).toEqual(['plan']);
      expect(seen.progress).toMatchObject({ total: 1, indexed: 1, failed: 0, skipped: 0 });
    }
    const ownersView = (await waitForJob(testApp.app, owner, `/v1/jobs/${mixed.result_id}`)) as JobView;
    expect(ownersView.progress).toMatchObject({ total: 2, indexed: 2 });

    for (const path of [`/v1/jobs/${hidden.result_id}`, `/v1/documents/jobs/${hidden.result_id}`]) {
      const response = await testApp.app.inject({ url: path, headers: bearer(member) });
      expect(response.statusCode, `${path}: ${response.body}`).toBe(404);
    }
    const listing = await testApp.app.inject({ url: '/v1/jobs?limit=100', headers: bearer(member) });
    const jobs = (
      listing.json() as {
        jobs: { result_id: string; first_file_name: string | null; progress: { total: number } }[];
      }
    ).jobs;
    expect(jobs.map((job) => job.result_id)).toEqual([mixed.result_id]);
    expect(jobs[0]).toMatchObject({ first_file_name: 'Plan', progress: { total: 1 } });
  });
});
