import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FormPart, multipart } from '../../../../test/helpers/multipart-body.js';
import {
  bearer,
  joinedMember,
  registerUser,
  startTestApp,
  type TestApp,
  waitForJob,
} from '../../../../test/helpers/test-app.js';

interface ListedDocument {
  external_id: string;
  title: string;
  url: string | null;
  status: string;
}

const LIMIT = 256 * 1024;

describe('POST /v1/documents: multipart uploads', () => {
  let testApp: TestApp;
  let token: string;
  let teamId: number;

  beforeAll(async () => {
    testApp = await startTestApp({ worker: true, env: { UPLOAD_MAX_BYTES: String(LIMIT) } });
    ({ token, teamId } = await registerUser(testApp.app));
  });
  afterAll(async () => {
    await testApp?.close();
  });

  const post = (parts: readonly FormPart[]) => {
    const { body, contentType } = multipart(parts);
    return testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(token), 'content-type': contentType },
      payload: body,
    });
  };

  async function upload(parts: readonly FormPart[]) {
    const response = await post(parts);
    expect(response.statusCode, response.body).toBe(202);
    return waitForJob(testApp.app, token, `/v1/documents/jobs/${response.json().result_id}`);
  }

  async function listed(): Promise<Map<string, ListedDocument>> {
    const response = await testApp.app.inject({ url: '/v1/documents?limit=500', headers: bearer(token) });
    const { documents } = response.json() as { documents: ListedDocument[] };
    return new Map(documents.map((document) => [document.external_id, document]));
  }

  async function storedUploads(): Promise<number> {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT count(DISTINCT key) AS files FROM upload_blobs',
    );
    return Number(rows[0]?.files);
  }

  it("uses a single file's title, url and external_id fields", async () => {
    const job = await upload([
      { name: 'external_id', content: 'policy-7' },
      { name: 'title', content: 'Travel policy (2026)' },
      { name: 'url', content: 'https://intranet.example.com/travel' },
      {
        name: 'file',
        fileName: 'travel.md',
        type: 'text/markdown',
        content: '# Travel\n\nBook trains first.',
      },
    ]);
    expect(job.files).toEqual([expect.objectContaining({ id: 'policy-7', status: 'indexed' })]);
    expect((await listed()).get('policy-7')).toMatchObject({
      title: 'Travel policy (2026)',
      url: 'https://intranet.example.com/travel',
    });
  });

  it('describes several files with a metadata field keyed by file name', async () => {
    const job = await upload([
      {
        name: 'metadata',
        content: JSON.stringify({
          'a.md': { title: 'Alpha guide', url: 'https://docs.example.com/a', metadata: { team: 'ops' } },
          'b.txt': { external_id: 'beta' },
        }),
      },
      { name: 'file', fileName: 'a.md', type: 'text/markdown', content: 'Alpha text about rotas.' },
      { name: 'file', fileName: 'b.txt', type: 'text/plain', content: 'Beta text about pagers.' },
    ]);
    expect(job.files.map((file) => [file.id, file.status])).toEqual([
      ['a.md', 'indexed'],
      ['beta', 'indexed'],
    ]);
    const documents = await listed();
    expect(documents.get('a.md')).toMatchObject({ title: 'Alpha guide', url: 'https://docs.example.com/a' });
    expect(documents.get('beta')).toMatchObject({ title: 'b.txt', url: null });
    const { rows } = await testApp.runtime.database.sql.executeSql(
      "SELECT metadata FROM documents WHERE team_id = $1 AND external_id = 'a.md'",
      [teamId],
    );
    expect(rows[0]?.metadata).toEqual({ team: 'ops' });
  });

  it("keeps a file private with the visibility field, or per file in metadata, from the team's other members", async () => {
    const teammate = await joinedMember(testApp.app, token);
    await upload([
      { name: 'visibility', content: 'private' },
      { name: 'external_id', content: 'salary-review' },
      {
        name: 'file',
        fileName: 'salaries.md',
        type: 'text/markdown',
        content: 'The zqxsalary review is private.',
      },
    ]);
    await upload([
      {
        name: 'metadata',
        content: JSON.stringify({ 'mine.md': { visibility: 'private' }, 'ours.md': { visibility: 'team' } }),
      },
      { name: 'file', fileName: 'mine.md', type: 'text/markdown', content: 'My zqxsalary notes.' },
      { name: 'file', fileName: 'ours.md', type: 'text/markdown', content: 'Our zqxsalary bands.' },
    ]);
    const foundBy = async (as: string) => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/search',
        headers: bearer(as),
        payload: { query: 'zqxsalary', top_k: 10 },
      });
      return (response.json().results as { external_id: string }[]).map((hit) => hit.external_id).sort();
    };
    expect(await foundBy(token)).toEqual(['mine.md', 'ours.md', 'salary-review']);
    expect(await foundBy(teammate)).toEqual(['ours.md']);
    const mine = (await listed()).get('salary-review') as unknown as { access: unknown };
    expect(mine.access).toMatchObject({ team: false });
  });

  it('answers 422 for a metadata field that is not a JSON object, keeping nothing', async () => {
    const before = await storedUploads();
    const response = await post([
      { name: 'metadata', content: '["a.md"]' },
      { name: 'file', fileName: 'a.md', type: 'text/markdown', content: 'text' },
    ]);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc: ['body', 'metadata'], type: 'json_invalid' });
    const wrongEntry = await post([
      { name: 'metadata', content: JSON.stringify({ 'a.md': { title: 7, metadata: 'x' } }) },
      { name: 'file', fileName: 'a.md', type: 'text/markdown', content: 'text' },
    ]);
    expect(wrongEntry.statusCode).toBe(422);
    expect(wrongEntry.json().detail).toEqual([
      expect.objectContaining({ loc: ['body', 'metadata', 'a.md', 'title'], type: 'string_type' }),
      expect.objectContaining({ loc: ['body', 'metadata', 'a.md', 'metadata'], type: 'dict_type' }),
    ]);
    expect(await storedUploads()).toBe(before);
  });

  it('keeps an uploaded file only until its job is done with it, and knows the same bytes again', async () => {
    const parts: FormPart[] = [
      { name: 'file', fileName: 'rota.md', type: 'text/markdown', content: '# Rota\n\nAlex on Monday.' },
    ];
    const first = await upload(parts);
    expect(first.files[0]).toMatchObject({ status: 'indexed' });
    expect(await storedUploads()).toBe(0);
    const again = await upload(parts);
    expect(again.files[0]).toMatchObject({ status: 'skipped', reason: 'unchanged' });
    expect(await storedUploads()).toBe(0);
    // New bytes under the same name are indexed again.
    const changed = await upload([{ ...parts[0], content: '# Rota\n\nSam on Monday.' } as FormPart]);
    expect(changed.files[0]).toMatchObject({ status: 'indexed' });
  });

  it('names the limit a refused upload passed', async () => {
    const before = await storedUploads();
    const single = await post([
      { name: 'file', fileName: 'big.md', type: 'text/markdown', content: Buffer.alloc(LIMIT + 1, 97) },
    ]);
    expect(single.statusCode).toBe(413);
    expect(single.json()).toEqual({
      detail: 'The file is larger than the 256 KiB limit (UPLOAD_MAX_BYTES)',
    });
    const several = await post(
      [1, 2].map((index) => ({
        name: 'file',
        fileName: `part-${index}.md`,
        type: 'text/markdown',
        content: Buffer.alloc(LIMIT / 2 + 10, 97),
      })),
    );
    expect(several.statusCode).toBe(413);
    expect(several.json().detail).toMatch(
      /^The files are larger than the 256 KiB limit \(UPLOAD_MAX_BYTES\) together/,
    );
    const many = await post(
      Array.from({ length: 101 }, (_, index) => ({
        name: 'file',
        fileName: `note-${index}.md`,
        type: 'text/markdown',
        content: `Note ${index}`,
      })),
    );
    expect(many.statusCode).toBe(413);
    expect(many.json()).toEqual({ detail: 'At most 100 files per request' });
    const json = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: JSON.stringify({ documents: [{ external_id: 'x', title: 'x', text: 'y'.repeat(LIMIT) }] }),
    });
    expect(json.statusCode).toBe(413);
    expect(json.json()).toEqual({
      detail: 'The request body is larger than the 256 KiB limit (UPLOAD_MAX_BYTES)',
    });
    expect(await storedUploads()).toBe(before);
  });
});
