import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DRIVE_MIME_TYPES, FakeDriveServer } from '../../../../test/fakes/fake-drive-server.js';
import { corruptPdf, FIXTURE_FILES } from '../../../../test/fixtures/documents.js';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  waitForJob,
} from '../../../../test/helpers/test-app.js';

type Registered = Awaited<ReturnType<typeof registerUser>>;

interface DriveEntry {
  id: string;
  name: string;
  type: string;
}

function driveFile(entry: DriveEntry) {
  return {
    id: entry.id,
    serviceId: 'google',
    name: entry.name,
    description: '',
    type: entry.type,
    lastEditedUtc: 1_767_225_600_000,
    url: `https://drive.google.com/file/d/${entry.id}/view`,
    sizeBytes: 1,
  };
}

describe('POST /v2/drive/files', () => {
  let drive: FakeDriveServer;
  let testApp: TestApp;
  let user: Registered;
  let userContext: Record<string, unknown>;

  beforeAll(async () => {
    drive = await FakeDriveServer.start();
    testApp = await startTestApp({
      env: { GOOGLE_DRIVE_API_URL: drive.url, INDEX_MAX_FILE_BYTES: String(2 * 1024 * 1024) },
      worker: true,
    });
  });
  afterAll(async () => {
    await testApp.close();
    await drive.close();
  });
  beforeEach(async () => {
    user = await registerUser(testApp.app);
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(user.token) });
    userContext = me.json();
  });
  afterEach(() => drive.clearRecords());

  async function index(entries: readonly DriveEntry[], as: Registered = user, context = userContext) {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: { ...bearer(as.token), 'x-drive-authorization': `Bearer ${drive.accessToken}` },
      payload: { files: entries.map(driveFile), user_context: context },
    });
    expect(response.statusCode, response.body).toBe(202);
    const queued = response.json() as { result_id: string; result_ready: boolean };
    expect(queued.result_ready).toBe(false);
    return waitForJob(testApp.app, as.token, `/v2/drive/jobs/${queued.result_id}`);
  }

  function filesById(job: { files: Record<string, unknown>[] }) {
    return Object.fromEntries(job.files.map((file) => [file.id as string, file]));
  }

  async function storedChunks(teamId: number) {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT d.external_id, c.position, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
       WHERE c.team_id = $1 ORDER BY d.external_id, c.position`,
      [teamId],
    );
    return rows as { external_id: string; position: number; text: string }[];
  }

  it('indexes every supported type from a folder listed over several pages, and skips the rest', async () => {
    drive.setPageSize(3);
    const folder = drive.addFolder({ name: 'Everything' });
    const sub = drive.addFolder({ name: 'Nested', parents: [folder] });
    const ids: Record<string, string> = {};
    for (const fixture of await FIXTURE_FILES()) {
      ids[fixture.name] = drive.addFile({
        name: fixture.name,
        mimeType: fixture.mimeType,
        content: fixture.bytes,
        parents: [fixture.name.endsWith('.md') ? sub : folder],
      });
    }
    ids.doc = drive.addFile({
      name: 'Google Doc',
      mimeType: DRIVE_MIME_TYPES.document,
      content: '# Travel policy\n\nBook trains for trips under four hours.',
      parents: [folder],
    });
    ids.sheet = drive.addFile({
      name: 'Budget',
      mimeType: DRIVE_MIME_TYPES.spreadsheet,
      content: 'Item,Cost\nLaptops,12000\n"Desks, standing",4000\n',
      parents: [folder],
    });
    ids.slides = drive.addFile({
      name: 'Roadmap',
      mimeType: DRIVE_MIME_TYPES.presentation,
      content: 'Quarter one\n\nShip the indexing service.',
      parents: [sub],
    });
    ids.image = drive.addFile({ name: 'logo.png', mimeType: 'image/png', content: 'PNG', parents: [folder] });

    const job = await index([{ id: folder, name: 'Everything', type: 'folder' }]);
    drive.setPageSize(undefined);
    expect(job.status).toBe('completed');
    const byId = filesById(job);
    // Folders expand into their files; the folder entries themselves are not files.
    expect(job.files).toHaveLength(Object.keys(ids).length);
    for (const [name, id] of Object.entries(ids)) {
      if (name === 'image') continue;
      expect(byId[id], name).toMatchObject({ status: 'indexed', reason: null });
      expect((byId[id]?.chunks as number) > 0, name).toBe(true);
    }
    expect(byId[ids.image as string]).toMatchObject({
      status: 'skipped',
      reason: 'unsupported_type',
      chunks: 0,
    });
    expect(job.progress).toMatchObject({ done: job.files.length, total: job.files.length });
    // Listing paged: the folder of more than three children was read in several requests.
    const listings = drive.requests.filter(
      (request) => request.route === 'list' && request.fileId === folder,
    );
    expect(listings.length).toBeGreaterThan(1);
    // Each fixture's known phrase is searchable text of its document.
    const chunks = await storedChunks(user.teamId);
    for (const fixture of await FIXTURE_FILES()) {
      const text = chunks
        .filter((chunk) => chunk.external_id === ids[fixture.name])
        .map((chunk) => chunk.text)
        .join(' ');
      expect(text, fixture.name).toContain(fixture.phrase);
    }
    // The Sheet is indexed row by row, the Doc keeps its text.
    expect(
      chunks.some((chunk) => chunk.external_id === ids.sheet && chunk.text.includes('Desks, standing')),
    ).toBe(true);

    // The team's Drive connector lists the same per-file status.
    const connectorId = job.connector_id as number;
    const connector = await testApp.app.inject({
      url: `/v1/connectors/googledrive/${connectorId}`,
      headers: bearer(user.token),
    });
    expect(connector.statusCode).toBe(200);
    const listed = Object.fromEntries(
      (connector.json().files as Record<string, unknown>[]).map((file) => [file.id as string, file]),
    );
    expect(listed[ids.image as string]).toMatchObject({ status: 'skipped', reason: 'unsupported_type' });
    expect(listed[ids.doc as string]).toMatchObject({
      status: 'indexed',
      chunks: byId[ids.doc as string]?.chunks,
    });
  });

  it("lists a job's files on the connector while it runs, with the job's own status", async () => {
    const slow = drive.addFile({
      name: 'slow.md',
      mimeType: 'text/markdown',
      content: '# Slow\n\nA slow file.',
      parents: [],
    });
    drive.deliverNext((request) => request.fileId === slow, {
      delayMs: 1_500,
      times: Number.POSITIVE_INFINITY,
    });
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: { ...bearer(user.token), 'x-drive-authorization': `Bearer ${drive.accessToken}` },
      payload: { files: [driveFile({ id: slow, name: 'slow.md', type: 'file' })], user_context: userContext },
    });
    expect(response.statusCode).toBe(202);
    const path = `/v2/drive/jobs/${(response.json() as { result_id: string }).result_id}`;
    const running = (await testApp.app.inject({ url: path, headers: bearer(user.token) })).json();
    const connectorUrl = `/v1/connectors/googledrive/${running.connector_id as number}`;
    const during = (await testApp.app.inject({ url: connectorUrl, headers: bearer(user.token) })).json();
    expect(during.files).toEqual([
      expect.objectContaining({
        id: slow,
        name: 'slow.md',
        status: expect.stringMatching(/^(queued|indexing)$/),
      }),
    ]);
    const job = await waitForJob(testApp.app, user.token, path);
    expect(filesById(job)[slow]).toMatchObject({ status: 'indexed' });
    const after = (await testApp.app.inject({ url: connectorUrl, headers: bearer(user.token) })).json();
    expect(after.files).toEqual([expect.objectContaining({ id: slow, status: 'indexed', reason: null })]);
  });

  it('skips unchanged files without fetching them, replaces changed ones and removes files gone from the folder', async () => {
    const folder = drive.addFolder({ name: 'Policies' });
    const stays = drive.addFile({
      name: 'stays.md',
      mimeType: 'text/markdown',
      content: '# Stays\n\nThis text never changes.',
      parents: [folder],
    });
    const changes = drive.addFile({
      name: 'changes.md',
      mimeType: 'text/markdown',
      content: '# Old heading\n\nThe old version mentions zebras.',
      parents: [folder],
    });
    const leaves = drive.addFile({
      name: 'leaves.txt',
      mimeType: 'text/plain',
      content: 'This file will be moved out of the folder.',
      parents: [folder],
    });
    const entry = { id: folder, name: 'Policies', type: 'folder' };
    const first = await index([entry]);
    expect(first.files.map((file) => file.status)).toEqual(['indexed', 'indexed', 'indexed']);

    drive.updateFile(changes, { content: '# New heading\n\nThe new version mentions giraffes instead.' });
    drive.removeFile(leaves);
    drive.clearRecords();
    const second = await index([entry]);
    const byId = filesById(second);
    expect(second.files).toHaveLength(2);
    expect(byId[stays]).toMatchObject({ status: 'skipped', reason: 'unchanged' });
    expect(byId[changes]).toMatchObject({ status: 'indexed' });
    // The unchanged file was not downloaded again.
    expect(drive.contentRequests(stays)).toHaveLength(0);
    const chunks = await storedChunks(user.teamId);
    const text = chunks.map((chunk) => chunk.text).join(' ');
    expect(text).toContain('giraffes');
    expect(text).not.toContain('zebras');
    expect(chunks.some((chunk) => chunk.external_id === leaves)).toBe(false);
    const documents = await testApp.app.inject({ url: '/v1/documents', headers: bearer(user.token) });
    expect(
      (documents.json().documents as { external_id: string }[]).map((doc) => doc.external_id).sort(),
    ).toEqual([stays, changes].sort());
  });

  it('retries a 429 after its Retry-After, fails a 403 and a corrupt PDF alone, and indexes their neighbours', async () => {
    const folder = drive.addFolder({ name: 'Mixed' });
    const limited = drive.addFile({
      name: 'limited.txt',
      mimeType: 'text/plain',
      content: 'Rate limited once, then readable.',
      parents: [folder],
    });
    const forbidden = drive.addFile({
      name: 'secret.txt',
      mimeType: 'text/plain',
      content: 'Nobody may read this.',
      parents: [folder],
    });
    const corrupt = drive.addFile({
      name: 'broken.pdf',
      mimeType: 'application/pdf',
      content: corruptPdf(),
      parents: [folder],
    });
    const fine = drive.addFile({
      name: 'fine.txt',
      mimeType: 'text/plain',
      content: 'A perfectly ordinary file.',
      parents: [folder],
    });
    drive.failNext((request) => request.route === 'media' && request.fileId === limited, {
      status: 429,
      retryAfter: 1,
    });
    drive.failNext(forbidden, {
      status: 403,
      reason: 'insufficientFilePermissions',
      times: Number.POSITIVE_INFINITY,
    });
    const started = Date.now();
    const job = await index([{ id: folder, name: 'Mixed', type: 'folder' }]);
    const byId = filesById(job);
    expect(job.status).toBe('completed');
    expect(byId[limited]).toMatchObject({ status: 'indexed' });
    expect(drive.contentRequests(limited).length).toBe(2);
    // The second download waited for the Retry-After second.
    const downloads = drive.contentRequests(limited);
    expect(downloads[1]?.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(byId[forbidden]).toMatchObject({ status: 'failed', reason: 'permission_denied', chunks: 0 });
    expect(byId[corrupt]).toMatchObject({ status: 'failed', reason: 'parse_error', chunks: 0 });
    expect(byId[fine]).toMatchObject({ status: 'indexed' });
  });

  it('skips a file over the size limit as too_large without downloading it', async () => {
    const big = drive.addFile({
      name: 'big.txt',
      mimeType: 'text/plain',
      content: 'x'.repeat(3 * 1024 * 1024),
      parents: [drive.addFolder({ name: 'Big' })],
    });
    const job = await index([{ id: big, name: 'big.txt', type: 'file' }]);
    expect(filesById(job)[big]).toMatchObject({ status: 'skipped', reason: 'too_large' });
    expect(drive.contentRequests(big)).toHaveLength(0);
  });

  it("refuses another user's or team's user_context with 403 and queues nothing", async () => {
    const other = await registerUser(testApp.app);
    const otherContext = (
      await testApp.app.inject({ url: '/v1/users/me', headers: bearer(other.token) })
    ).json() as Record<string, unknown>;
    const forged = [
      otherContext,
      { ...userContext, team_id: other.teamId },
      {
        ...userContext,
        vector_store: { ...(userContext.vector_store as object), namespaces: [`team-${other.teamId}`] },
      },
    ];
    for (const context of forged) {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v2/drive/files',
        headers: { ...bearer(user.token), 'x-drive-authorization': drive.accessToken },
        payload: { files: [driveFile({ id: 'x1', name: 'x', type: 'file' })], user_context: context },
      });
      expect(response.statusCode).toBe(403);
    }
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT count(*)::int AS count FROM index_jobs WHERE team_id = $1',
      [user.teamId],
    );
    expect(rows[0]?.count).toBe(0);
    expect(drive.requests).toHaveLength(0);
  });

  it('needs x-drive-authorization (422 at header) and a signed-in caller (401)', async () => {
    const missing = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: bearer(user.token),
      payload: { files: [driveFile({ id: 'x1', name: 'x', type: 'file' })], user_context: userContext },
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toContainEqual(
      expect.objectContaining({ loc: ['header', 'x-drive-authorization'], type: 'missing' }),
    );
    const anonymous = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: { 'x-drive-authorization': drive.accessToken },
      payload: { files: [driveFile({ id: 'x1', name: 'x', type: 'file' })], user_context: userContext },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('lists a missing x-drive-authorization with the body errors, header first (FastAPI order)', async () => {
    const headerOnly = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: bearer(user.token),
      payload: { files: [driveFile({ id: 'x1', name: 'x', type: 'file' })], user_context: userContext },
    });
    expect(headerOnly.statusCode).toBe(422);
    const headerIssues = headerOnly.json().detail as unknown[];
    expect(headerIssues).toHaveLength(1);

    const both = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: bearer(user.token),
      payload: { files: [], user_context: userContext },
    });
    expect(both.statusCode).toBe(422);
    const detail = both.json().detail as { loc: unknown[]; type: string }[];
    // The header's entry is exactly the one it gets alone, and comes before the body's.
    expect(detail[0]).toEqual(headerIssues[0]);
    expect(detail.slice(1)).toEqual([expect.objectContaining({ loc: ['body', 'files'], type: 'too_short' })]);

    const badHeaderAndBody = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: { ...bearer(user.token), 'x-drive-authorization': '' },
      payload: { user_context: userContext },
    });
    expect(badHeaderAndBody.statusCode).toBe(422);
    expect(
      (badHeaderAndBody.json().detail as { loc: unknown[]; type: string }[]).map((issue) => [
        issue.loc,
        issue.type,
      ]),
    ).toEqual([
      [['header', 'x-drive-authorization'], 'string_too_short'],
      [['body', 'files'], 'missing'],
    ]);
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT count(*)::int AS count FROM index_jobs WHERE team_id = $1',
      [user.teamId],
    );
    expect(rows[0]?.count).toBe(0);
  });

  it('keeps the drive token encrypted while the job runs and deletes it after; jobs are private to the team', async () => {
    const file = drive.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      content: 'Tokens at rest.',
      parents: [drive.addFolder({ name: 'T' })],
    });
    drive.deliverNext(file, { delayMs: 500 });
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v2/drive/files',
      headers: { ...bearer(user.token), 'x-drive-authorization': drive.accessToken },
      payload: { files: [driveFile({ id: file, name: 'a.txt', type: 'file' })], user_context: userContext },
    });
    const { result_id: jobId } = response.json() as { result_id: string };
    const during = await testApp.runtime.database.sql.executeSql(
      'SELECT secrets_sealed FROM index_jobs WHERE id = $1',
      [jobId],
    );
    const sealed = String(during.rows[0]?.secrets_sealed);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(drive.accessToken);
    const other = await registerUser(testApp.app);
    const foreign = await testApp.app.inject({
      url: `/v2/drive/jobs/${jobId}`,
      headers: bearer(other.token),
    });
    expect(foreign.statusCode).toBe(404);
    await waitForJob(testApp.app, user.token, `/v2/drive/jobs/${jobId}`);
    const after = await testApp.runtime.database.sql.executeSql(
      'SELECT secrets_sealed FROM index_jobs WHERE id = $1',
      [jobId],
    );
    expect(after.rows[0]?.secrets_sealed).toBeNull();
    expect(testApp.logLines.join('\n')).not.toContain(drive.accessToken);
  });

  it('answers the running job again for the same request, and deletes a connector with its documents', async () => {
    const file = drive.addFile({
      name: 'b.txt',
      mimeType: 'text/plain',
      content: 'Connector deletion removes me.',
      parents: [drive.addFolder({ name: 'D' })],
    });
    drive.deliverNext(file, { delayMs: 300 });
    const send = () =>
      testApp.app.inject({
        method: 'POST',
        url: '/v2/drive/files',
        headers: { ...bearer(user.token), 'x-drive-authorization': drive.accessToken },
        payload: { files: [driveFile({ id: file, name: 'b.txt', type: 'file' })], user_context: userContext },
      });
    const first = (await send()).json() as { result_id: string };
    const again = (await send()).json() as { result_id: string };
    expect(again.result_id).toBe(first.result_id);
    const job = await waitForJob(testApp.app, user.token, `/v2/drive/jobs/${first.result_id}`);
    const connectorId = job.connector_id as number;
    expect((await storedChunks(user.teamId)).length).toBeGreaterThan(0);

    const other = await registerUser(testApp.app);
    const foreign = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/connectors/googledrive/${connectorId}`,
      headers: bearer(other.token),
    });
    expect(foreign.statusCode).toBe(404);
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/connectors/googledrive/${connectorId}`,
      headers: bearer(user.token),
    });
    expect(deleted.statusCode).toBe(204);
    expect(await storedChunks(user.teamId)).toEqual([]);
    const documents = await testApp.app.inject({ url: '/v1/documents', headers: bearer(user.token) });
    expect(documents.json().total).toBe(0);
    const gone = await testApp.app.inject({
      url: `/v1/connectors/googledrive/${connectorId}`,
      headers: bearer(user.token),
    });
    expect(gone.statusCode).toBe(404);
  });
});
