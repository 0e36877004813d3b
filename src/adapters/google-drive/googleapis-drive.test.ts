import { createHash } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DRIVE_MIME_TYPES,
  FAKE_DRIVE_OWNER_EMAIL,
  FakeDriveServer,
} from '../../../test/fakes/fake-drive-server.js';
import { SourceError } from '../source-error.js';
import { GoogleApisDrive } from './googleapis-drive.js';

let server: FakeDriveServer;
let client: GoogleApisDrive;
let token: string;

beforeAll(async () => {
  server = await FakeDriveServer.start();
  token = server.accessToken;
  client = new GoogleApisDrive({ apiUrl: server.url, timeoutMs: 10_000 });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.clearRecords();
  server.setPageSize(undefined);
});

async function sourceErrorOf(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

function newFolder(name = 'Folder'): string {
  return server.addFolder({ name });
}

describe('getFile', () => {
  it('reads a binary file: size as a number, md5, link, no drive', async () => {
    const content = 'hello, drive';
    const id = server.addFile({
      name: 'notes.txt',
      mimeType: 'text/plain',
      content,
      modifiedTime: '2026-01-02T03:04:05.000Z',
      parents: [newFolder()],
    });

    const file = await client.getFile(token, id);

    expect(file).toEqual({
      id,
      name: 'notes.txt',
      mimeType: 'text/plain',
      modifiedTime: '2026-01-02T03:04:05.000Z',
      size: content.length,
      md5Checksum: createHash('md5').update(content).digest('hex'),
      webViewLink: `https://drive.google.com/file/d/${id}/view?usp=drivesdk`,
      driveId: undefined,
      trashed: false,
      permissions: [{ type: 'user', emailAddress: FAKE_DRIVE_OWNER_EMAIL, role: 'owner' }],
    });
    const [request] = server.requests;
    expect(request?.route).toBe('get');
    expect(request?.tokenMatched).toBe(true);
    expect(request?.query).toMatchObject({
      fields:
        'id,name,mimeType,modifiedTime,size,md5Checksum,webViewLink,driveId,trashed,' +
        'permissions(type,emailAddress,domain,role,allowFileDiscovery)',
      supportsAllDrives: 'true',
    });
  });

  it('reads who a file is shared with: users, groups, domains and anyone, discoverable or by link', async () => {
    const id = server.addFile({
      name: 'shared.txt',
      mimeType: 'text/plain',
      parents: [newFolder()],
      permissions: [
        { type: 'user', emailAddress: 'ann@example.com', role: 'owner' },
        { type: 'user', emailAddress: 'bob@example.com', role: 'commenter' },
        { type: 'group', emailAddress: 'sales@example.com', role: 'reader' },
        { type: 'domain', domain: 'example.com', role: 'reader', allowFileDiscovery: true },
        { type: 'anyone', role: 'reader', allowFileDiscovery: false },
      ],
    });

    const file = await client.getFile(token, id);

    expect(file.permissions).toEqual([
      { type: 'user', emailAddress: 'ann@example.com', role: 'owner' },
      { type: 'user', emailAddress: 'bob@example.com', role: 'commenter' },
      { type: 'group', emailAddress: 'sales@example.com', role: 'reader' },
      { type: 'domain', domain: 'example.com', role: 'reader', allowFileDiscovery: true },
      { type: 'anyone', role: 'reader', allowFileDiscovery: false },
    ]);
  });

  it('sees a sharing change, which leaves modifiedTime alone', async () => {
    const id = server.addFile({ name: 'a.txt', mimeType: 'text/plain', parents: [newFolder()] });
    const before = await client.getFile(token, id);

    server.share(id, { type: 'user', emailAddress: 'bob@example.com' });
    const shared = await client.getFile(token, id);
    server.unshare(id, 'bob@example.com');
    const unshared = await client.getFile(token, id);

    expect(shared.modifiedTime).toBe(before.modifiedTime);
    expect(shared.permissions?.map((permission) => permission.emailAddress)).toEqual([
      FAKE_DRIVE_OWNER_EMAIL,
      'bob@example.com',
    ]);
    expect(unshared.permissions).toEqual(before.permissions);
  });

  it('has no permissions for a shared-drive file, nor for one the user may not share', async () => {
    const onSharedDrive = server.addFile({
      name: 'team.txt',
      mimeType: 'text/plain',
      parents: [server.addSharedDrive('Team drive')],
    });
    const unshareable = server.addFile({
      name: 'theirs.txt',
      mimeType: 'text/plain',
      parents: [newFolder()],
      canShare: false,
    });

    expect((await client.getFile(token, onSharedDrive)).permissions).toBeUndefined();
    expect((await client.getFile(token, unshareable)).permissions).toBeUndefined();
  });

  it('reads a Google Doc without size or md5', async () => {
    const id = server.addFile({
      name: 'Plan',
      mimeType: DRIVE_MIME_TYPES.document,
      content: '# Plan',
      parents: [newFolder()],
    });

    const file = await client.getFile(token, id);

    expect(file).toMatchObject({
      id,
      mimeType: DRIVE_MIME_TYPES.document,
      size: undefined,
      md5Checksum: undefined,
    });
    expect(file.modifiedTime).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('reads a file on a shared drive, with its driveId', async () => {
    const driveId = server.addSharedDrive('Team drive');
    const id = server.addFile({
      name: 'shared.pdf',
      mimeType: 'application/pdf',
      content: '%PDF',
      parents: [driveId],
    });

    const file = await client.getFile(token, id);

    expect(file.driveId).toBe(driveId);
  });

  it('sees an edit in modifiedTime and md5Checksum', async () => {
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      content: 'one',
      parents: [newFolder()],
    });
    const before = await client.getFile(token, id);

    server.updateFile(id, { content: 'two' });
    const after = await client.getFile(token, id);

    expect(after.modifiedTime).not.toBe(before.modifiedTime);
    expect(after.md5Checksum).toBe(createHash('md5').update('two').digest('hex'));
  });

  it('reports a trashed file as trashed', async () => {
    const id = server.addFile({ name: 'old.txt', mimeType: 'text/plain', parents: [newFolder()] });
    server.trash(id);

    expect((await client.getFile(token, id)).trashed).toBe(true);
  });
});

describe('listFolder', () => {
  it('pages through seven children three at a time, skipping trashed ones', async () => {
    const folderId = newFolder();
    const ids = Array.from({ length: 7 }, (_, index) =>
      server.addFile({
        name: `file-${index}.txt`,
        mimeType: 'text/plain',
        content: `${index}`,
        parents: [folderId],
      }),
    );
    const trashed = server.addFile({
      name: 'gone.txt',
      mimeType: 'text/plain',
      parents: [folderId],
      trashed: true,
    });
    server.addFile({ name: 'elsewhere.txt', mimeType: 'text/plain', parents: [newFolder()] });
    server.setPageSize(3);

    const pages = [];
    let pageToken: string | undefined;
    do {
      const page = await client.listFolder(token, folderId, pageToken);
      pages.push(page);
      pageToken = page.nextPageToken;
    } while (pageToken !== undefined);

    expect(pages.map((page) => page.files.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((page) => page.files.map((file) => file.id))).toEqual(ids);
    expect(pages.flatMap((page) => page.files.map((file) => file.id))).not.toContain(trashed);
    expect(pages[0]?.files[0]).toMatchObject({ name: 'file-0.txt', size: 1, trashed: false });
    expect(server.requests[0]?.query).toMatchObject({
      q: `'${folderId}' in parents and trashed = false`,
      fields:
        'nextPageToken,files(id,name,mimeType,modifiedTime,size,md5Checksum,webViewLink,driveId,trashed,' +
        'permissions(type,emailAddress,domain,role,allowFileDiscovery))',
      pageSize: '1000',
      supportsAllDrives: 'true',
      includeItemsFromAllDrives: 'true',
      corpora: 'allDrives',
    });
  });

  it('lists sub-folders and native files alongside binaries', async () => {
    const folderId = newFolder();
    const sub = server.addFolder({ name: 'Sub', parents: [folderId] });
    const sheet = server.addFile({
      name: 'Budget',
      mimeType: DRIVE_MIME_TYPES.spreadsheet,
      parents: [folderId],
    });

    const page = await client.listFolder(token, folderId, undefined);

    expect(page.nextPageToken).toBeUndefined();
    expect(page.files.map((file) => [file.id, file.mimeType, file.size])).toEqual([
      [sub, DRIVE_MIME_TYPES.folder, undefined],
      [sheet, DRIVE_MIME_TYPES.spreadsheet, undefined],
    ]);
  });

  it('lists a folder on a shared drive', async () => {
    const driveId = server.addSharedDrive('Engineering');
    const folderId = server.addFolder({ name: 'Specs', parents: [driveId] });
    const id = server.addFile({
      name: 'spec.md',
      mimeType: 'text/markdown',
      content: '# Spec',
      parents: [folderId],
    });

    const page = await client.listFolder(token, folderId, undefined);

    expect(page.files).toEqual([expect.objectContaining({ id, driveId, permissions: undefined })]);
  });

  it("carries each My Drive file's permissions", async () => {
    const folderId = newFolder();
    const mine = server.addFile({ name: 'mine.txt', mimeType: 'text/plain', parents: [folderId] });
    const open = server.addFile({
      name: 'open.txt',
      mimeType: 'text/plain',
      parents: [folderId],
      permissions: [{ type: 'anyone', role: 'reader', allowFileDiscovery: true }],
    });

    const page = await client.listFolder(token, folderId, undefined);

    expect(page.files.map((file) => [file.id, file.permissions])).toEqual([
      [mine, [{ type: 'user', emailAddress: FAKE_DRIVE_OWNER_EMAIL, role: 'owner' }]],
      [open, [{ type: 'anyone', role: 'reader', allowFileDiscovery: true }]],
    ]);
  });

  it("escapes ' and \\ in the folder id", async () => {
    const folderId = server.addFolder({ id: "odd'id\\x", name: 'Odd' });
    const id = server.addFile({ name: 'a.txt', mimeType: 'text/plain', parents: [folderId] });

    const page = await client.listFolder(token, folderId, undefined);

    expect(page.files.map((file) => file.id)).toEqual([id]);
    expect(server.requests[0]?.query.q).toBe("'odd\\'id\\\\x' in parents and trashed = false");
  });
});

describe('listPermissions', () => {
  it("lists a My Drive file's permissions in one request", async () => {
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      parents: [newFolder()],
      permissions: [
        { type: 'user', emailAddress: 'ann@example.com', role: 'owner' },
        { type: 'domain', domain: 'example.com', allowFileDiscovery: false },
      ],
    });

    const permissions = await client.listPermissions(token, id);

    expect(permissions).toEqual([
      { type: 'user', emailAddress: 'ann@example.com', role: 'owner' },
      { type: 'domain', domain: 'example.com', role: 'reader', allowFileDiscovery: false },
    ]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ route: 'permissions', fileId: id, status: 200 });
    expect(server.requests[0]?.query).toMatchObject({
      fields: 'nextPageToken,permissions(type,emailAddress,domain,role,allowFileDiscovery)',
      supportsAllDrives: 'true',
      pageSize: '100',
    });
  });

  it("lists a shared-drive file's permissions, which files.get leaves out", async () => {
    const id = server.addFile({
      name: 'team.txt',
      mimeType: 'text/plain',
      parents: [server.addSharedDrive('Team drive')],
      permissions: [
        { type: 'group', emailAddress: 'eng@example.com', role: 'organizer' },
        { type: 'user', emailAddress: 'bob@example.com', role: 'reader' },
      ],
    });

    const permissions = await client.listPermissions(token, id);

    expect(permissions).toEqual([
      { type: 'group', emailAddress: 'eng@example.com', role: 'organizer' },
      { type: 'user', emailAddress: 'bob@example.com', role: 'reader' },
    ]);
  });

  it('follows nextPageToken to the last page', async () => {
    const grants = Array.from({ length: 5 }, (_, index) => ({
      type: 'user' as const,
      emailAddress: `user-${index}@example.com`,
    }));
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      parents: [server.addSharedDrive('Big drive')],
      permissions: grants,
    });
    server.setPageSize(2);

    const permissions = await client.listPermissions(token, id);

    expect(permissions.map((permission) => permission.emailAddress)).toEqual(
      grants.map((grant) => grant.emailAddress),
    );
    expect(server.requests.map((request) => request.query.pageToken === undefined)).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('answers an empty list for a file shared with nobody', async () => {
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      parents: [newFolder()],
      permissions: [],
    });

    expect(await client.listPermissions(token, id)).toEqual([]);
  });

  it('is permission_denied for a file the user may not share', async () => {
    const id = server.addFile({
      name: 'theirs.txt',
      mimeType: 'text/plain',
      parents: [newFolder()],
      canShare: false,
    });

    const error = await sourceErrorOf(client.listPermissions(token, id));

    expect(error.failure).toBe('permission_denied');
    expect(error.status).toBe(403);
  });

  it('is not_found for a removed file', async () => {
    const id = server.addFile({ name: 'gone.txt', mimeType: 'text/plain', parents: [newFolder()] });
    server.removeFile(id);

    expect((await sourceErrorOf(client.listPermissions(token, id))).failure).toBe('not_found');
  });

  it('is rate_limited with Retry-After, and unauthorized for an unknown token', async () => {
    const id = server.addFile({ name: 'a.txt', mimeType: 'text/plain', parents: [newFolder()] });
    server.failNext((request) => request.route === 'permissions', { status: 429, retryAfter: 9 });

    const limited = await sourceErrorOf(client.listPermissions(token, id));
    const refused = await sourceErrorOf(client.listPermissions('ya29.unknown', id));

    expect(limited.failure).toBe('rate_limited');
    expect(limited.retryAfterSeconds).toBe(9);
    expect(refused.failure).toBe('unauthorized');
    expect(refused.message).not.toContain('ya29.unknown');
  });

  it('fails on a later page as on the first', async () => {
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      parents: [newFolder()],
      permissions: [
        { type: 'user', emailAddress: 'a@example.com' },
        { type: 'user', emailAddress: 'b@example.com' },
      ],
    });
    server.setPageSize(1);
    server.failNext((request) => request.route === 'permissions' && request.query.pageToken !== undefined, {
      status: 503,
    });

    expect((await sourceErrorOf(client.listPermissions(token, id))).failure).toBe('unavailable');
  });
});

describe('exportFile and downloadFile', () => {
  it('exports a Doc as Markdown, a Sheet as CSV and Slides as text', async () => {
    const folderId = newFolder();
    const doc = server.addFile({
      name: 'Doc',
      mimeType: DRIVE_MIME_TYPES.document,
      content: '# Título',
      parents: [folderId],
    });
    const sheet = server.addFile({
      name: 'Sheet',
      mimeType: DRIVE_MIME_TYPES.spreadsheet,
      content: 'a,b\n1,2\n',
      parents: [folderId],
    });
    const slides = server.addFile({
      name: 'Deck',
      mimeType: DRIVE_MIME_TYPES.presentation,
      content: 'Slide one',
      parents: [folderId],
    });
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

    expect(decode(await client.exportFile(token, doc, 'text/markdown', 1_000_000))).toBe('# Título');
    expect(decode(await client.exportFile(token, sheet, 'text/csv', 1_000_000))).toBe('a,b\n1,2\n');
    expect(decode(await client.exportFile(token, slides, 'text/plain', 1_000_000))).toBe('Slide one');
    expect(server.requests.map((request) => [request.route, request.query.mimeType])).toEqual([
      ['export', 'text/markdown'],
      ['export', 'text/csv'],
      ['export', 'text/plain'],
    ]);
  });

  it('refuses an export format Google does not offer as bad_response', async () => {
    const sheet = server.addFile({
      name: 'Sheet',
      mimeType: DRIVE_MIME_TYPES.spreadsheet,
      parents: [newFolder()],
    });

    const error = await sourceErrorOf(client.exportFile(token, sheet, 'text/markdown', 1_000));

    expect(error).toMatchObject({ failure: 'bad_response', status: 400, retryable: false });
  });

  it('downloads a binary file', async () => {
    const content = new Uint8Array([0, 1, 2, 250, 255]);
    const id = server.addFile({
      name: 'blob.bin',
      mimeType: 'application/octet-stream',
      content,
      parents: [newFolder()],
    });

    expect(await client.downloadFile(token, id, 1_000)).toEqual(content);
    expect(server.requests[0]?.query).toMatchObject({ alt: 'media', supportsAllDrives: 'true' });
  });

  it('downloads a shared-drive file', async () => {
    const driveId = server.addSharedDrive('Shared');
    const id = server.addFile({
      name: 'x.txt',
      mimeType: 'text/plain',
      content: 'shared',
      parents: [driveId],
    });

    expect(new TextDecoder().decode(await client.downloadFile(token, id, 1_000))).toBe('shared');
  });

  it('refuses to download a Google Doc (bad_response: export it instead)', async () => {
    const doc = server.addFile({ name: 'Doc', mimeType: DRIVE_MIME_TYPES.document, parents: [newFolder()] });

    const error = await sourceErrorOf(client.downloadFile(token, doc, 1_000));

    expect(error).toMatchObject({ failure: 'bad_response', status: 403 });
    expect(error.message).toContain('fileNotDownloadable');
  });
});

describe('size limits', () => {
  const bigSize = 32 * 1024 * 1024;
  let bigFile: string;

  beforeAll(() => {
    bigFile = server.addFile({
      name: 'big.bin',
      mimeType: 'application/octet-stream',
      content: new Uint8Array(bigSize).fill(7),
      parents: [newFolder()],
    });
  });

  it('stops a download at Content-Length over maxBytes without reading the body', async () => {
    // Slow pieces, so what the server wrote shows what the client waited for.
    server.deliverNext(bigFile, { chunkBytes: 64 * 1024, chunkDelayMs: 300 });

    const error = await sourceErrorOf(client.downloadFile(token, bigFile, 64 * 1024));

    expect(error).toMatchObject({ failure: 'too_large', retryable: false });
    await expectConnectionCut(bigFile);
    expect(server.contentRequests(bigFile).at(-1)?.bytesSent).toBe(64 * 1024);
  });

  it('stops a download without Content-Length as soon as it passes maxBytes', async () => {
    server.deliverNext(bigFile, { contentLength: false });

    const error = await sourceErrorOf(client.downloadFile(token, bigFile, 64 * 1024));

    expect(error.failure).toBe('too_large');
    await expectConnectionCut(bigFile);
  });

  it('stops an export over maxBytes', async () => {
    const doc = server.addFile({
      name: 'Long doc',
      mimeType: DRIVE_MIME_TYPES.document,
      content: 'x'.repeat(200_000),
      parents: [newFolder()],
    });

    const error = await sourceErrorOf(client.exportFile(token, doc, 'text/plain', 10_000));

    expect(error.failure).toBe('too_large');
  });

  it("maps Google's own export cap (403 exportSizeLimitExceeded) to too_large", async () => {
    const doc = server.addFile({
      name: 'Huge doc',
      mimeType: DRIVE_MIME_TYPES.document,
      content: 'y'.repeat(11 * 1024 * 1024),
      parents: [newFolder()],
    });

    const error = await sourceErrorOf(client.exportFile(token, doc, 'text/plain', 50 * 1024 * 1024));

    expect(error).toMatchObject({ failure: 'too_large', status: 403, retryable: false });
    expect(error.message).toContain('exportSizeLimitExceeded');
  });

  /** The client hung up mid-body, when far less than the file had been written. */
  async function expectConnectionCut(fileId: string): Promise<void> {
    await expect.poll(() => server.contentRequests(fileId).at(-1)?.outcome).toBe('cut_short');
    expect(server.contentRequests(fileId).at(-1)?.bytesSent).toBeLessThan(bigSize / 2);
  }
});

describe('errors', () => {
  let fileId: string;

  beforeEach(() => {
    fileId = server.addFile({ name: 'f.txt', mimeType: 'text/plain', content: 'f', parents: [newFolder()] });
  });

  it('401 for an unknown token is unauthorized', async () => {
    const error = await sourceErrorOf(client.getFile('ya29.not-a-token', fileId));

    expect(error).toMatchObject({ failure: 'unauthorized', status: 401, retryable: false });
    expect(server.requests[0]?.tokenMatched).toBe(false);
  });

  it('401 for a revoked token is unauthorized', async () => {
    const other = 'ya29.other-user';
    server.addAccessToken(other);
    expect((await client.getFile(other, fileId)).id).toBe(fileId);

    server.revokeAccessToken(other);

    expect((await sourceErrorOf(client.getFile(other, fileId))).failure).toBe('unauthorized');
  });

  it('403 on one file, every time, is permission_denied', async () => {
    server.failNext(fileId, { status: 403, times: Number.POSITIVE_INFINITY });

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await sourceErrorOf(client.downloadFile(token, fileId, 1_000));
      expect(error).toMatchObject({ failure: 'permission_denied', status: 403, retryable: false });
    }
    expect(server.requests).toHaveLength(2);
  });

  it('404 is not_found', async () => {
    server.removeFile(fileId);

    const error = await sourceErrorOf(client.getFile(token, fileId));

    expect(error).toMatchObject({ failure: 'not_found', status: 404, retryable: false });
  });

  it('429 with Retry-After in seconds is rate_limited once, then the file reads', async () => {
    server.failNext(fileId, { status: 429, retryAfter: 1 });

    const error = await sourceErrorOf(client.getFile(token, fileId));

    expect(error).toMatchObject({
      failure: 'rate_limited',
      status: 429,
      retryable: true,
      retryAfterSeconds: 1,
    });
    expect(server.requests).toHaveLength(1);
    expect((await client.getFile(token, fileId)).id).toBe(fileId);
  });

  it('429 with Retry-After as an HTTP date counts the seconds until then', async () => {
    server.failNext(fileId, { status: 429, retryAfter: new Date(Date.now() + 30_000) });

    const error = await sourceErrorOf(client.downloadFile(token, fileId, 1_000));

    expect(error.failure).toBe('rate_limited');
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(30);
  });

  it('500 is unavailable after exactly one request (no library retries)', async () => {
    server.failNext(fileId, { status: 500 });

    const error = await sourceErrorOf(client.getFile(token, fileId));

    expect(error).toMatchObject({
      failure: 'unavailable',
      status: 500,
      retryable: true,
      retryAfterSeconds: undefined,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('503 keeps its Retry-After', async () => {
    server.failNext(fileId, { status: 503, retryAfter: 5 });

    const error = await sourceErrorOf(client.exportFile(token, fileId, 'text/plain', 1_000));

    expect(error).toMatchObject({ failure: 'unavailable', status: 503, retryAfterSeconds: 5 });
  });

  it.each(['userRateLimitExceeded', 'rateLimitExceeded'])('403 %s is rate_limited', async (reason) => {
    server.failNext(fileId, { status: 403, reason });

    const error = await sourceErrorOf(client.getFile(token, fileId));

    expect(error).toMatchObject({ failure: 'rate_limited', status: 403, retryable: true });
    expect(error.message).toContain(reason);
  });

  it('403 dailyLimitExceeded is rate_limited until midnight Pacific Time', async () => {
    server.failNext(fileId, { status: 403, reason: 'dailyLimitExceeded' });

    const error = await sourceErrorOf(client.getFile(token, fileId));

    expect(error).toMatchObject({ failure: 'rate_limited', retryable: true });
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(25 * 3600);
  });

  it('a refused connection is unavailable', async () => {
    const closedPort = await unusedPort();
    const offline = new GoogleApisDrive({ apiUrl: `http://127.0.0.1:${closedPort}/` });

    const error = await sourceErrorOf(offline.getFile(token, fileId));

    expect(error).toMatchObject({ failure: 'unavailable', retryable: true, status: undefined });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a reset connection is unavailable after one attempt (no library retries)', async () => {
    let connections = 0;
    const resetting = createServer((socket) => {
      connections += 1;
      socket.resetAndDestroy();
    });
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', () => resolve()));
    const { port } = resetting.address() as AddressInfo;
    try {
      const error = await sourceErrorOf(
        new GoogleApisDrive({ apiUrl: `http://127.0.0.1:${port}/` }).getFile(token, fileId),
      );

      expect(error).toMatchObject({ failure: 'unavailable', retryable: true });
      expect(error.message).toContain('ECONNRESET');
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => resetting.close(resolve));
    }
  });

  it('no answer within timeoutMs is a timeout', async () => {
    const impatient = new GoogleApisDrive({ apiUrl: server.url, timeoutMs: 200 });
    server.deliverNext(fileId, { delayMs: 2_000 });

    const started = Date.now();
    const error = await sourceErrorOf(impatient.getFile(token, fileId));

    expect(error).toMatchObject({ failure: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('never puts the access token in an error, even when the server echoes it', async () => {
    server.failNext(fileId, { status: 403, message: `token ${token} is not allowed` });
    const errors = [
      await sourceErrorOf(client.getFile(token, fileId)),
      await sourceErrorOf(client.getFile(`${token}-expired`, fileId)),
      await sourceErrorOf(client.getFile(token, 'missing-file')),
      await sourceErrorOf(
        new GoogleApisDrive({ apiUrl: `http://127.0.0.1:${await unusedPort()}/` }).getFile(token, fileId),
      ),
    ];
    server.failNext(fileId, { status: 500 });
    errors.push(await sourceErrorOf(client.downloadFile(token, fileId, 1_000)));

    expect(errors.map((error) => error.failure)).toEqual([
      'permission_denied',
      'unauthorized',
      'not_found',
      'unavailable',
      'unavailable',
    ]);
    for (const error of errors) {
      expect(error.message).not.toContain(token);
      expect(inspect(error, { depth: 10 })).not.toContain(token);
    }
  });
});

describe('cancelling', () => {
  it('an aborted signal stops a slow download at once, with its reason', async () => {
    const id = server.addFile({
      name: 'slow.bin',
      mimeType: 'application/octet-stream',
      content: new Uint8Array(64 * 1024),
      parents: [newFolder()],
    });
    server.deliverNext(id, { chunkBytes: 1024, chunkDelayMs: 100 });
    const controller = new AbortController();
    const reason = new Error('worker stopping');
    setTimeout(() => controller.abort(reason), 250);

    const started = Date.now();
    await expect(client.downloadFile(token, id, 1_000_000, controller.signal)).rejects.toBe(reason);

    expect(Date.now() - started).toBeLessThan(1_500);
    await expect.poll(() => server.contentRequests(id)[0]?.outcome).toBe('cut_short');
    expect(server.contentRequests(id)[0]?.bytesSent).toBeLessThan(64 * 1024);
  });

  it('an already aborted signal sends nothing', async () => {
    const id = server.addFile({ name: 'a.txt', mimeType: 'text/plain', parents: [newFolder()] });
    const reason = new Error('gone');

    await expect(client.getFile(token, id, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(server.requests).toHaveLength(0);
  });
});

/** A port nothing listens on: bound, then released. */
async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
