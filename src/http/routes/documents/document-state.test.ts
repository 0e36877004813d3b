import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
  waitForJob,
} from '../../../../test/helpers/test-app.js';

interface ListedDocument {
  external_id: string;
  status: string;
  reason: string | null;
  chunks: number;
  last_job: { id: string | null; status: string; reason: string | null; at: string | null } | null;
}

const HANDBOOK = {
  external_id: 'handbook',
  title: 'Team handbook',
  text: 'Expense reports are due on the fifth working day of each month. Ask finance about mileage.',
};
const RUNBOOK = {
  external_id: 'runbook',
  title: 'On-call runbook',
  text: 'When the ingest queue backs up, restart the consumer and page the data team.',
};

describe('documents: what is stored, and what the last job did', () => {
  let testApp: TestApp;
  const logged: { level: 'info' | 'warn' | 'error'; details: Record<string, unknown>; message: string }[] =
    [];

  beforeAll(async () => {
    const record = (level: 'info' | 'warn' | 'error') => (details: object, message: string) =>
      logged.push({ level, details: details as Record<string, unknown>, message });
    testApp = await startTestApp({
      worker: true,
      env: { INDEX_JOB_CONCURRENCY: '4' },
      overrides: { logger: { info: record('info'), warn: record('warn'), error: record('error') } },
    });
  });
  afterAll(async () => {
    await testApp?.close();
  });

  async function listed(token: string): Promise<Map<string, ListedDocument>> {
    const response = await testApp.app.inject({ url: '/v1/documents', headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    const { documents } = response.json() as { documents: ListedDocument[] };
    return new Map(documents.map((document) => [document.external_id, document]));
  }

  async function search(token: string, query: string): Promise<{ external_id: string }[]> {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(token),
      payload: { query },
    });
    expect(response.statusCode).toBe(200);
    return (response.json() as { results: { external_id: string }[] }).results;
  }

  it("finds a new team's first documents the moment their job completes", async () => {
    const { token } = await registerUser(testApp.app);
    // A search of the empty team first: what it learnt about the team must not hide what comes next.
    expect(await search(token, 'expense reports')).toEqual([]);
    const job = await uploadDocuments(testApp.app, token, [HANDBOOK]);
    expect(job.status).toBe('completed');
    expect((await search(token, 'expense reports')).map((hit) => hit.external_id)).toEqual(['handbook']);
  });

  it('keeps an unchanged re-post listed as indexed, with the job that skipped it as its last', async () => {
    const { token } = await registerUser(testApp.app);
    const first = await uploadDocuments(testApp.app, token, [HANDBOOK, RUNBOOK]);
    const before = await listed(token);
    expect(before.get('handbook')).toMatchObject({
      status: 'indexed',
      reason: null,
      chunks: 1,
      last_job: { id: first.result_id, status: 'indexed', reason: null },
    });

    const again = await uploadDocuments(testApp.app, token, [HANDBOOK]);
    expect(again.files).toEqual([
      expect.objectContaining({ id: 'handbook', status: 'skipped', reason: 'unchanged' }),
    ]);
    const after = await listed(token);
    expect(after.get('handbook')).toMatchObject({
      status: 'indexed',
      reason: null,
      chunks: 1,
      last_job: { id: again.result_id, status: 'skipped', reason: 'unchanged' },
    });
    // The other document was not part of that job: its last job is still the first.
    expect(after.get('runbook')?.last_job?.id).toBe(first.result_id);
    expect((await search(token, 'expense reports')).map((hit) => hit.external_id)).toEqual(['handbook']);
  });

  it('indexes a document once when two uploads of it overlap', async () => {
    const { token } = await registerUser(testApp.app);
    const batch = Array.from({ length: 6 }, (_, index) => ({
      external_id: `note-${index}`,
      title: `Note ${index}`,
      text: `Meeting note ${index}: the quarterly planning moved to room ${index + 100}.`,
    }));
    const responses = await Promise.all(
      [0, 1].map(() =>
        testApp.app.inject({
          method: 'POST',
          url: '/v1/documents',
          headers: bearer(token),
          payload: { documents: batch },
        }),
      ),
    );
    const jobs = await Promise.all(
      responses.map((response) => {
        expect(response.statusCode).toBe(202);
        const { result_id: id } = response.json() as { result_id: string };
        return waitForJob(testApp.app, token, `/v1/documents/jobs/${id}`);
      }),
    );
    for (const { external_id: externalId } of batch) {
      const outcomes = jobs
        .map((job) => job.files.find((file) => file.id === externalId))
        .map((file) => `${file?.status}/${file?.reason ?? ''}`)
        .sort();
      expect(outcomes).toEqual(['indexed/', 'skipped/unchanged']);
    }
    const documents = await listed(token);
    expect([...documents.values()].map((document) => [document.status, document.chunks])).toEqual(
      batch.map(() => ['indexed', 1]),
    );
  });

  it("logs each index job's start and end at info, with its id, source, counts and duration", async () => {
    const { token } = await registerUser(testApp.app);
    const job = await uploadDocuments(testApp.app, token, [HANDBOOK, { ...RUNBOOK, text: ' ' }]);
    const lines = logged.filter((line) => line.details.jobId === job.result_id);
    expect(lines.find((line) => line.message === 'index job started')).toMatchObject({
      level: 'info',
      details: { source: 'upload', attempt: 1 },
    });
    const finished = lines.find((line) => line.message === 'index job finished');
    expect(finished).toMatchObject({
      level: 'info',
      details: { source: 'upload', status: 'completed', files: 2, indexed: 1, skipped: 1, failed: 0 },
    });
    expect(finished?.details.durationMs).toEqual(expect.any(Number));
  });
});
