import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDriveServer } from '../fakes/fake-drive-server.js';
import { HANG_BOUND_MS } from '../helpers/hang-bound.js';
import { startServiceProcess } from '../helpers/service-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const FILES = Array.from({ length: 6 }, (_, index) => ({
  name: `note-${index + 1}.md`,
  content: `# Note ${index + 1}\n\n${`Paragraph ${index + 1} about durable background indexing. `.repeat(40)}\n\n## Details\n\nMore text for note ${index + 1}.`,
}));

interface StoredChunk {
  readonly external_id: string;
  readonly position: number;
  readonly text: string;
}

interface Site {
  readonly env: Record<string, string>;
  readonly database: TestDatabase;
  readonly dataDir: string;
}

/** What the service stored, read straight from its database once it has stopped. */
async function storedChunks(
  site: Site,
): Promise<{ chunks: StoredChunk[]; documents: number; items: string[] }> {
  const queries = {
    chunks: `SELECT d.external_id, c.position, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
             ORDER BY d.external_id, c.position`,
    documents: 'SELECT count(*)::int AS count FROM documents',
    items: `SELECT external_id || ':' || status AS item FROM index_job_items ORDER BY external_id`,
  };
  const read = async (query: <T>(text: string) => Promise<T[]>) => ({
    chunks: await query<StoredChunk>(queries.chunks),
    documents: (await query<{ count: number }>(queries.documents))[0]?.count ?? 0,
    items: (await query<{ item: string }>(queries.items)).map((row) => row.item),
  });
  if (site.database.location.kind === 'postgres') {
    const client = new pg.Client({ connectionString: site.database.location.url });
    await client.connect();
    try {
      return await read(async <T>(text: string) => (await client.query(text)).rows as T[]);
    } finally {
      await client.end();
    }
  }
  const client = await PGlite.create(path.join(site.dataDir, 'pglite'));
  try {
    return await read(async <T>(text: string) => (await client.query<T>(text)).rows);
  } finally {
    await client.close();
  }
}

async function newSite(drive: FakeDriveServer): Promise<Site> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'indexing-crash-'));
  const database = await createTestDatabase();
  const common = {
    LOG_LEVEL: 'warn',
    GOOGLE_DRIVE_API_URL: drive.url,
    // One file at a time, so a kill lands between files and inside one.
    INDEX_FILE_CONCURRENCY: '1',
  };
  const env =
    database.location.kind === 'postgres'
      ? { ...common, DATABASE_URL: database.location.url, ENCRYPTION_KEY: 'cd'.repeat(32) }
      : { ...common, DATA_DIR: dataDir };
  return { env, database, dataDir };
}

async function json(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Registers a user and asks the service to index the folder; answers the job's status URL and token. */
async function startIndexing(url: string, drive: FakeDriveServer, folderId: string) {
  const registered = await json(`${url}/v2/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'oauth',
      provider: 'google',
      provider_account_id: 'crash-1',
      email: 'crash@example.com',
      name: 'Crash',
    }),
  });
  const token = registered.body.access_token as string;
  const auth = { authorization: `Bearer ${token}` };
  const me = await json(`${url}/v1/users/me`, { headers: auth });
  const queued = await json(`${url}/v2/drive/files`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'x-drive-authorization': drive.accessToken },
    body: JSON.stringify({
      files: [
        {
          id: folderId,
          serviceId: 'google',
          name: 'Notes',
          description: '',
          type: 'folder',
          lastEditedUtc: 0,
          url: `https://drive.google.com/drive/folders/${folderId}`,
          sizeBytes: 0,
        },
      ],
      user_context: me.body,
    }),
  });
  expect(queued.status).toBe(202);
  return { token, statusUrl: `${url}/v2/drive/jobs/${queued.body.result_id as string}` };
}

/** Polls the job until `done`, however long a busy machine takes: only a hang meets the bound. */
async function waitFor(
  statusUrl: string,
  token: string,
  done: (job: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + HANG_BOUND_MS;
  for (;;) {
    const { body } = await json(statusUrl, { headers: { authorization: `Bearer ${token}` } });
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`timed out; last status ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('an indexing job across a kill -9 of the service', () => {
  let drive: FakeDriveServer;
  let folderId: string;
  const sites: Site[] = [];

  beforeAll(async () => {
    drive = await FakeDriveServer.start();
    folderId = drive.addFolder({ name: 'Notes' });
    for (const file of FILES) {
      drive.addFile({
        name: file.name,
        mimeType: 'text/markdown',
        content: file.content,
        parents: [folderId],
      });
    }
  });
  afterAll(async () => {
    await drive.close();
    for (const site of sites) {
      await site.database.drop();
      rmSync(site.dataDir, { recursive: true, force: true });
    }
  });

  it('completes after the restart with exactly the chunks of a clean run', async () => {
    // A clean run, for reference.
    const clean = await newSite(drive);
    sites.push(clean);
    const cleanService = await startServiceProcess(clean.env);
    const cleanJob = await startIndexing(cleanService.url, drive, folderId);
    const cleanView = await waitFor(cleanJob.statusUrl, cleanJob.token, (job) => job.result_ready === true);
    expect(cleanView.status).toBe('completed');
    expect(await cleanService.stop()).toBe(0);
    const expected = await storedChunks(clean);
    expect(expected.documents).toBe(FILES.length);
    expect(expected.chunks.length).toBeGreaterThanOrEqual(FILES.length);

    // The same job, with every download slow, killed once two files are in.
    drive.deliverNext((request) => request.route === 'media', {
      delayMs: 400,
      times: Number.POSITIVE_INFINITY,
    });
    const crashed = await newSite(drive);
    sites.push(crashed);
    const first = await startServiceProcess(crashed.env);
    const job = await startIndexing(first.url, drive, folderId);
    await waitFor(job.statusUrl, job.token, (view) => ((view.progress as { done: number }).done ?? 0) >= 2);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    // At the default level an operator sees the job handed back, resumed and finished, by its id.
    const restarted = await startServiceProcess({ ...crashed.env, LOG_LEVEL: 'info' });
    const statusUrl = job.statusUrl.replace(first.url, restarted.url);
    const view = await waitFor(statusUrl, job.token, (current) => current.result_ready === true);
    expect(view.status).toBe('completed');
    expect(view.progress).toMatchObject({ done: FILES.length, total: FILES.length, indexed: FILES.length });
    expect(await restarted.stop()).toBe(0);
    const logged = restarted
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; jobId?: string });
    const about = (message: string) => logged.filter((line) => line.msg === message);
    if (crashed.env.DATA_DIR !== undefined) {
      // PGlite: the dead process's job is handed back at once, by its id.
      expect(about('job of a stopped process handed back').length).toBeGreaterThanOrEqual(1);
      expect(about('job of a stopped process handed back')[0]).toMatchObject({ level: 30 });
    }
    const finished = about('index job finished');
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.at(-1)).toMatchObject({ level: 30, status: 'completed' });
    expect(typeof finished.at(-1)?.jobId).toBe('string');

    const actual = await storedChunks(crashed);
    expect(actual.documents).toBe(expected.documents);
    expect(actual.chunks).toEqual(expected.chunks);
    expect(actual.items).toEqual(expected.items);
  }, 900_000);
});
