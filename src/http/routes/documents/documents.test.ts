import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corruptPdf, FIXTURE_FILES } from '../../../../test/fixtures/documents.js';
import { multipart } from '../../../../test/helpers/multipart-body.js';
import {
  bearer,
  registerUser,
  startTestApp,
  storedChunkTexts,
  type TestApp,
  waitForJob,
} from '../../../../test/helpers/test-app.js';

type Registered = Awaited<ReturnType<typeof registerUser>>;

describe('/v1/documents', () => {
  let testApp: TestApp;
  let user: Registered;

  beforeAll(async () => {
    testApp = await startTestApp({ env: { UPLOAD_MAX_DOCUMENTS: '50' }, worker: true });
    user = await registerUser(testApp.app);
  });
  afterAll(async () => {
    await testApp.close();
  });

  async function upload(documents: unknown[], as: Registered = user) {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: bearer(as.token),
      payload: { documents },
    });
    expect(response.statusCode, response.body).toBe(202);
    const { result_id: id } = response.json() as { result_id: string };
    return waitForJob(testApp.app, as.token, `/v1/documents/jobs/${id}`);
  }

  async function list(as: Registered = user, query = '') {
    const response = await testApp.app.inject({ url: `/v1/documents${query}`, headers: bearer(as.token) });
    expect(response.statusCode).toBe(200);
    return response.json() as {
      total: number;
      documents: {
        id: number;
        external_id: string;
        title: string;
        source: string;
        status: string;
        chunks: number;
      }[];
    };
  }

  const chunkTexts = (externalId: string, teamId = user.teamId) =>
    storedChunkTexts(testApp, teamId, externalId);

  it('indexes a JSON batch into the caller team, lists it, and replaces a re-posted external_id', async () => {
    const job = await upload([
      {
        external_id: 'faq-1',
        title: 'Holidays',
        text: '# Holidays\n\nEveryone gets 25 days of paid holiday.',
      },
      {
        external_id: 'faq-2',
        title: 'Expenses',
        text: 'Submit receipts within 30 days.',
        url: 'https://intranet.example/expenses',
        metadata: { owner: 'finance' },
      },
    ]);
    expect(job.status).toBe('completed');
    expect(job.files.map((file) => [file.id, file.status])).toEqual([
      ['faq-1', 'indexed'],
      ['faq-2', 'indexed'],
    ]);
    const listed = await list();
    expect(listed.total).toBe(2);
    expect(listed.documents.find((document) => document.external_id === 'faq-2')).toMatchObject({
      external_id: 'faq-2',
      title: 'Expenses',
      source: 'upload',
      status: 'indexed',
    });
    expect(listed.documents.every((document) => document.chunks > 0)).toBe(true);

    const replaced = await upload([
      { external_id: 'faq-1', title: 'Holidays', text: 'Everyone now gets 30 days of paid holiday.' },
    ]);
    expect(replaced.files[0]).toMatchObject({ status: 'indexed' });
    expect((await chunkTexts('faq-1')).join(' ')).toContain('30 days');
    expect((await chunkTexts('faq-1')).join(' ')).not.toContain('25 days');
    expect((await list()).total).toBe(2);

    // The same text again is skipped as unchanged.
    const same = await upload([
      { external_id: 'faq-1', title: 'Holidays', text: 'Everyone now gets 30 days of paid holiday.' },
    ]);
    expect(same.files[0]).toMatchObject({ status: 'skipped', reason: 'unchanged' });
  });

  it('keeps teams apart: another team sees none of it and cannot delete it', async () => {
    const other = await registerUser(testApp.app);
    await upload([{ external_id: 'faq-1', title: 'Their holidays', text: 'They get 10 days.' }], other);
    expect((await list(other)).documents.map((document) => document.title)).toEqual(['Their holidays']);
    const mine = (await list()).documents.find((document) => document.external_id === 'faq-1');
    expect(mine?.title).toBe('Holidays');
    const foreign = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/documents/${mine?.id}`,
      headers: bearer(other.token),
    });
    expect(foreign.statusCode).toBe(404);
    expect((await chunkTexts('faq-1')).length).toBeGreaterThan(0);
  });

  it('deletes one document with its chunks', async () => {
    await upload([{ external_id: 'temp', title: 'Temporary', text: 'Delete me soon.' }]);
    const document = (await list()).documents.find((candidate) => candidate.external_id === 'temp');
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/documents/${document?.id}`,
      headers: bearer(user.token),
    });
    expect(deleted.statusCode).toBe(204);
    expect(await chunkTexts('temp')).toEqual([]);
    const again = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/documents/${document?.id}`,
      headers: bearer(user.token),
    });
    expect(again.statusCode).toBe(404);
  });

  it('indexes uploaded files of each format, and reports a corrupt one as parse_error', async () => {
    const fixtures = (await FIXTURE_FILES()).filter(
      (fixture) =>
        ['application/pdf', 'text/markdown', 'text/plain', 'text/html'].includes(fixture.mimeType) ||
        fixture.mimeType.includes('wordprocessingml'),
    );
    const { body, contentType } = multipart([
      ...fixtures.map((fixture) => ({
        name: 'file',
        fileName: fixture.name,
        type: fixture.mimeType,
        content: fixture.bytes,
      })),
      { name: 'file', fileName: 'broken.pdf', type: 'application/pdf', content: corruptPdf() },
    ]);
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(user.token), 'content-type': contentType },
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(202);
    const job = await waitForJob(testApp.app, user.token, `/v1/documents/jobs/${response.json().result_id}`);
    const byName = Object.fromEntries(job.files.map((file) => [file.id as string, file]));
    for (const fixture of fixtures) {
      expect(byName[fixture.name], fixture.name).toMatchObject({ status: 'indexed' });
      expect((await chunkTexts(fixture.name)).join(' '), fixture.name).toContain(fixture.phrase);
    }
    expect(byName['broken.pdf']).toMatchObject({ status: 'failed', reason: 'parse_error', chunks: 0 });
    const listed = await list(user, '?source=upload&limit=100');
    expect(listed.documents.find((document) => document.external_id === 'broken.pdf')).toMatchObject({
      status: 'failed',
      chunks: 0,
    });
    // The uploaded bytes are not kept once the job is done.
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT count(*)::int AS count FROM index_job_items WHERE content IS NOT NULL',
    );
    expect(rows[0]?.count).toBe(0);
  });

  it('takes an external_id field for a single uploaded file', async () => {
    const { body, contentType } = multipart([
      { name: 'external_id', content: 'policy-7' },
      {
        name: 'file',
        fileName: 'policy.md',
        type: 'text/markdown',
        content: '# Policy 7\n\nBikes go in the yard.',
      },
    ]);
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(user.token), 'content-type': contentType },
      payload: body,
    });
    expect(response.statusCode).toBe(202);
    const job = await waitForJob(testApp.app, user.token, `/v1/documents/jobs/${response.json().result_id}`);
    expect(job.files[0]).toMatchObject({ id: 'policy-7', name: 'policy.md', status: 'indexed' });
  });

  it('pages through the documents with limit and offset: each once, newest first, with the total', async () => {
    const reader = await registerUser(testApp.app);
    await upload(
      Array.from({ length: 5 }, (_, index) => ({
        external_id: `page-${index}`,
        title: `Page ${index}`,
        text: `Paging document number ${index}.`,
      })),
      reader,
    );
    const everything = await list(reader, '?limit=500');
    expect(everything.total).toBe(5);
    const seen: number[] = [];
    for (const offset of [0, 2, 4, 6]) {
      const response = await testApp.app.inject({
        url: `/v1/documents?limit=2&offset=${offset}`,
        headers: bearer(reader.token),
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-total-count']).toBe('5');
      const page = response.json() as {
        total: number;
        limit: number;
        offset: number;
        documents: { id: number }[];
      };
      expect(page).toMatchObject({ total: 5, limit: 2, offset });
      expect(page.documents).toHaveLength(Math.max(0, Math.min(2, 5 - offset)));
      seen.push(...page.documents.map((document) => document.id));
    }
    // Every document exactly once, in the same order as one big page: newest (highest id) first.
    expect(seen).toEqual(everything.documents.map((document) => document.id));
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    const again = await list(reader, '?limit=2&offset=2');
    expect(again.documents.map((document) => document.id)).toEqual(seen.slice(2, 4));
  });

  it("answers an upload's job at the Drive job path too, and another team's as 404", async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: bearer(user.token),
      payload: { documents: [{ external_id: 'drive-path', title: 'Followed', text: 'Follow me anywhere.' }] },
    });
    expect(response.statusCode).toBe(202);
    const { result_id: id } = response.json() as { result_id: string };
    const done = await waitForJob(testApp.app, user.token, `/v2/drive/jobs/${id}`);
    expect(done).toMatchObject({ result_id: id, result_ready: true, kind: 'upload', status: 'completed' });
    expect(done.files).toEqual([expect.objectContaining({ id: 'drive-path', status: 'indexed' })]);
    const viaUploads = await testApp.app.inject({
      url: `/v1/documents/jobs/${id}`,
      headers: bearer(user.token),
    });
    expect(viaUploads.json()).toEqual(done);
    const other = await registerUser(testApp.app);
    for (const url of [`/v2/drive/jobs/${id}`, `/v1/jobs/${id}`, `/v1/documents/jobs/${id}`]) {
      const foreign = await testApp.app.inject({ url, headers: bearer(other.token) });
      expect(foreign.statusCode, url).toBe(404);
      expect(foreign.json()).toEqual({ detail: 'Job not found' });
    }
  });

  it('answers bad input with FastAPI-style 422s and queues nothing', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{}, ['body', 'documents']],
      [{ documents: [] }, ['body', 'documents']],
      [{ documents: [{ external_id: 'a', title: 'A' }] }, ['body', 'documents', 0, 'text']],
      [{ documents: [{ external_id: 'a', title: 'A', text: 5 }] }, ['body', 'documents', 0, 'text']],
      [
        {
          documents: [
            { external_id: 'a', title: 'A', text: 'x' },
            { external_id: 'a', title: 'B', text: 'y' },
          ],
        },
        ['body', 'documents', 1, 'external_id'],
      ],
      [
        {
          documents: Array.from({ length: 51 }, (_, index) => ({
            external_id: `d${index}`,
            title: 't',
            text: 'x',
          })),
        },
        ['body', 'documents'],
      ],
    ];
    const before = (await list()).total;
    for (const [payload, loc] of cases) {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/documents',
        headers: bearer(user.token),
        payload: payload as object,
      });
      expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(422);
      expect(response.json().detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
    }
    const empty = await testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: bearer(user.token),
    });
    expect(empty.statusCode).toBe(422);
    expect((await list()).total).toBe(before);
    const anonymous = await testApp.app.inject({ method: 'GET', url: '/v1/documents' });
    expect(anonymous.statusCode).toBe(401);
    const badPage = await testApp.app.inject({ url: '/v1/documents?limit=0', headers: bearer(user.token) });
    expect(badPage.statusCode).toBe(422);
  });
});

describe('POST /v1/documents: multipart limits', () => {
  const LIMIT = 1024 * 1024;
  let testApp: TestApp;
  let user: Registered;
  let port: number;

  beforeAll(async () => {
    testApp = await startTestApp({ env: { UPLOAD_MAX_BYTES: String(LIMIT) } });
    user = await registerUser(testApp.app);
    await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    port = (testApp.app.server.address() as { port: number }).port;
  });
  afterAll(() => testApp.close());

  const post = (body: Buffer, contentType: string) =>
    testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers: { ...bearer(user.token), 'content-type': contentType },
      payload: body,
    });

  async function storedJobs(): Promise<number> {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT count(*)::int AS n FROM index_jobs WHERE team_id = $1',
      [user.teamId],
    );
    return Number(rows[0]?.n);
  }

  it('refuses files of a type no parser reads with 415 before storing anything', async () => {
    const { body, contentType } = multipart([
      { name: 'file', fileName: 'notes.md', type: 'text/markdown', content: '# Notes\n\nFine.' },
      ...[1, 2, 3].map((index) => ({
        name: 'file',
        fileName: `random-${index}.bin`,
        type: 'application/octet-stream',
        content: Buffer.alloc(64 * 1024, index),
      })),
    ]);
    const response = await post(body, contentType);
    expect(response.statusCode).toBe(415);
    expect(response.json().detail).toMatch(
      /^random-1\.bin \(application\/octet-stream\) is not a document type/,
    );
    expect(await storedJobs()).toBe(0);
  });

  it('counts bytes across all files: 413 once the total passes UPLOAD_MAX_BYTES, nothing stored', async () => {
    const { body, contentType } = multipart(
      [1, 2, 3].map((index) => ({
        name: 'file',
        fileName: `part-${index}.md`,
        type: 'text/markdown',
        content: `# Part ${index}\n\n${'word '.repeat(80_000)}`,
      })),
    );
    expect(body.length).toBeGreaterThan(LIMIT);
    const response = await post(body, contentType);
    expect(response.statusCode).toBe(413);
    expect(response.json().detail).toMatch(/UPLOAD_MAX_BYTES/);
    // One file one byte over the limit on its own.
    const single = multipart([
      { name: 'file', fileName: 'big.txt', type: 'text/plain', content: Buffer.alloc(LIMIT + 1, 97) },
    ]);
    expect((await post(single.body, single.contentType)).statusCode).toBe(413);
    expect(await storedJobs()).toBe(0);
    // Under the limit, the same kind of request is taken.
    const fits = multipart([
      { name: 'file', fileName: 'small.md', type: 'text/markdown', content: '# Small' },
    ]);
    expect((await post(fits.body, fits.contentType)).statusCode).toBe(202);
  });

  it('answers 413 while the client is still sending, before the rest of the body arrives', async () => {
    const boundary = 'limit-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.md"\r\nContent-Type: text/markdown\r\n\r\n`;
    const declared = 64 * LIMIT;
    const jobsBefore = await storedJobs();
    const socket = connect(port, '127.0.0.1');
    // Resolves with the first whole response: headers and as many bytes as Content-Length says.
    const answer = new Promise<string>((resolve, reject) => {
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (data) => {
        received += data;
        const end = received.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? Number.NaN);
        if (end >= 0 && received.length >= end + 4 + length) resolve(received);
      });
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    socket.write(
      `POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${declared}\r\n\r\n${head}`,
    );
    // Two limits' worth, then nothing: the other 62 MiB never come.
    socket.write(Buffer.alloc(2 * LIMIT, 97));
    const response = await answer;
    socket.destroy();
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toMatch(/UPLOAD_MAX_BYTES/);
    expect(await storedJobs()).toBe(jobsBefore);
  });
});

describe('GET /v1/documents?source and the upload in /docs', () => {
  let testApp: TestApp;
  let user: Registered;
  beforeAll(async () => {
    testApp = await startTestApp();
    user = await registerUser(testApp.app);
    // One document of each source, stored as indexing leaves them.
    await testApp.runtime.database.sql.executeSql(
      `WITH team AS (
         INSERT INTO access_lists (team_id, fingerprint, team, emails, domains, groups)
         VALUES ($1, 'team-wide', true, '{}', '{}', '{}') RETURNING id
       )
       INSERT INTO documents (team_id, source, external_id, title, access_list_id)
       SELECT $1, source, external_id, title, team.id FROM team, (VALUES ('googledrive', 'drive-file', 'From Drive'),
         ('wiki', 'page-1', 'From the wiki'), ('upload', 'notes.md', 'Uploaded')) AS d(source, external_id, title)`,
      [user.teamId],
    );
  });
  afterAll(() => testApp.close());

  const list = (query: string) =>
    testApp.app.inject({ url: `/v1/documents${query}`, headers: bearer(user.token) });

  it('filters by the source names and aliases search takes', async () => {
    const titles = async (query: string) => {
      const response = await list(query);
      expect(response.statusCode, query).toBe(200);
      return (response.json().documents as { title: string; source: string }[]).map(
        (document) => `${document.source}:${document.title}`,
      );
    };
    expect(await titles('')).toHaveLength(3);
    for (const name of ['googledrive', 'google_drive', 'drive']) {
      expect(await titles(`?source=${name}`)).toEqual(['googledrive:From Drive']);
    }
    for (const name of ['wiki', 'confluence']) {
      expect(await titles(`?source=${name}`)).toEqual(['wiki:From the wiki']);
    }
    for (const name of ['upload', 'uploads']) {
      expect(await titles(`?source=${name}`)).toEqual(['upload:Uploaded']);
    }
  });

  it('refuses an unknown source with the 422 search answers for one', async () => {
    const response = await list('?source=bogus');
    expect(response.statusCode).toBe(422);
    const names = "'googledrive', 'google_drive', 'drive', 'wiki', 'confluence', 'upload' or 'uploads'";
    expect(response.json()).toEqual({
      detail: [{ loc: ['query', 'source'], msg: `Input should be ${names}`, type: 'enum' }],
    });
    const search = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(user.token),
      payload: { query: 'anything', sources: ['bogus'] },
    });
    expect(search.statusCode).toBe(422);
    expect(search.json()).toEqual({
      detail: [{ loc: ['body', 'sources', 0], msg: `Input should be ${names}`, type: 'enum' }],
    });
    const single = await testApp.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: bearer(user.token),
      payload: { query: 'anything', source: 'bogus' },
    });
    expect(single.statusCode).toBe(422);
    expect(single.json().detail[0]).toEqual({
      loc: ['body', 'source'],
      msg: `Input should be ${names}`,
      type: 'enum',
    });
  });

  it('shows the multipart upload in /docs with a file picker and the optional form fields', async () => {
    const response = await testApp.app.inject({ url: '/docs/json' });
    expect(response.statusCode).toBe(200);
    const operation = response.json().paths['/v1/documents'].post;
    const form = operation.requestBody.content['multipart/form-data'].schema;
    expect(form.required).toEqual(['file']);
    expect(form.properties.file).toMatchObject({
      type: 'array',
      items: { type: 'string', format: 'binary' },
      maxItems: 100,
    });
    for (const field of ['external_id', 'title', 'url', 'metadata']) {
      expect(form.properties[field], field).toMatchObject({ type: 'string' });
    }
    expect(form.properties.metadata.description).toMatch(/JSON/);
    // The JSON batch is still documented as it is validated.
    const batch = operation.requestBody.content['application/json'].schema;
    expect(batch.required).toEqual(['documents']);
    expect(batch.properties.documents.items.properties).toHaveProperty('external_id');
    const source = response
      .json()
      .paths['/v1/documents'].get.parameters.find(
        (parameter: { name: string }) => parameter.name === 'source',
      );
    expect(source.schema.enum).toEqual(
      expect.arrayContaining(['googledrive', 'drive', 'wiki', 'confluence', 'upload']),
    );
  });
});
