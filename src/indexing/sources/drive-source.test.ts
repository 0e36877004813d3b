import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeDriveServer } from '../../../test/fakes/fake-drive-server.js';
import type { DriveFile } from '../../adapters/google-drive/google-drive.js';
import { GoogleApisDrive } from '../../adapters/google-drive/googleapis-drive.js';
import { SourceError } from '../../adapters/source-error.js';
import type { StoredDocumentState } from '../../db/repositories/documents.js';
import type { IndexJobItemRow, IndexJobRow } from '../../db/repositories/index-jobs.js';
import { SecretBox } from '../../security/secret-box.js';
import { DriveSource } from './drive-source.js';
import type { FetchedItem } from './index-source.js';

const ANN = 'ann@example.com';
const ANN_ID = 7;

let server: FakeDriveServer;
let drive: GoogleApisDrive;
let source: DriveSource;
let job: IndexJobRow;
const signal = new AbortController().signal;

beforeAll(async () => {
  server = await FakeDriveServer.start({ ownerEmail: ANN });
  drive = new GoogleApisDrive({ apiUrl: server.url, timeoutMs: 10_000 });
  const secrets = new SecretBox(randomBytes(32));
  source = new DriveSource({
    // fields() and fetch() never touch the database; expand() does (tested end to end).
    sql: undefined as never,
    secrets,
    drive,
    limits: { maxFileBytes: 1024 * 1024, fileConcurrency: 1 },
  });
  const now = new Date();
  job = {
    id: '00000000-0000-4000-8000-000000000001',
    teamId: 1,
    connectorId: 3,
    kind: 'googledrive',
    status: 'running',
    requestedBy: ANN_ID,
    requestedByEmail: ANN,
    requestedByEmailVerified: true,
    request: {},
    secretsSealed: secrets.seal(server.accessToken),
    attempts: 0,
    expandedAt: now,
    error: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  };
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.clearRecords();
  server.setPageSize(undefined);
});

function itemOf(externalId: string, payload: Record<string, unknown> = {}): IndexJobItemRow {
  return {
    externalId,
    position: 0,
    name: externalId,
    status: 'indexing',
    reason: null,
    message: null,
    chunks: 0,
    documentId: null,
    payload,
  };
}

/** As expand stores a listed file: its metadata in the payload, through JSON as in the database. */
async function listedItem(fileId: string): Promise<IndexJobItemRow> {
  const meta: DriveFile = await drive.getFile(server.accessToken, fileId);
  return itemOf(fileId, JSON.parse(JSON.stringify({ meta, origin: 'folder' })));
}

function storedAs(fetched: FetchedItem): StoredDocumentState {
  return {
    id: 1,
    status: 'indexed',
    reason: null,
    message: null,
    contentHash: 'hash',
    sourceVersion: fetched.fields.sourceVersion,
    chunkCount: 1,
    indexedBy: null,
    accessListId: 1,
  };
}

function permissionRequests() {
  return server.requests.filter((request) => request.route === 'permissions');
}

describe('fields', () => {
  it("carries the listed file's access and the requester as indexer", async () => {
    const folder = server.addFolder({ name: 'Handbook' });
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      parents: [folder],
      permissions: [
        { type: 'user', emailAddress: ANN, role: 'owner' },
        { type: 'user', emailAddress: 'Bob@example.com' },
        { type: 'domain', domain: 'example.com', allowFileDiscovery: true },
        { type: 'anyone', allowFileDiscovery: false },
      ],
    });

    const fields = source.fields(job, await listedItem(id));

    expect(fields.access).toEqual({
      team: false,
      emails: [ANN, 'bob@example.com'],
      domains: ['example.com'],
      groups: [],
      users: [ANN_ID],
    });
    expect(fields.indexedBy).toBe(ANN_ID);
  });

  it('lets the indexing user alone in while the permissions are not known', async () => {
    const id = server.addFile({
      name: 'team.txt',
      mimeType: 'text/plain',
      parents: [server.addSharedDrive('Team')],
      permissions: [{ type: 'anyone', allowFileDiscovery: true }],
    });

    expect(source.fields(job, await listedItem(id)).access).toEqual({
      team: false,
      emails: [ANN],
      domains: [],
      groups: [],
      users: [ANN_ID],
    });
    expect(source.fields(job, itemOf('never-expanded')).access.emails).toEqual([ANN]);
  });
});

describe('fetch', () => {
  it('uses the permissions the listing carried, with no further request', async () => {
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addFolder({ name: 'F' })],
      permissions: [{ type: 'anyone', role: 'reader', allowFileDiscovery: true }],
    });
    const item = await listedItem(id);
    server.clearRecords();

    const fetched = await source.fetch(job, item, undefined, signal);

    expect(fetched.kind).toBe('content');
    expect(fetched.fields.access).toEqual({
      team: true,
      emails: [ANN],
      domains: [],
      groups: [],
      users: [ANN_ID],
    });
    expect(fetched.fields.indexedBy).toBe(ANN_ID);
    expect(permissionRequests()).toHaveLength(0);
  });

  it("reads a shared-drive file's permissions with permissions.list", async () => {
    const id = server.addFile({
      name: 'team.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addSharedDrive('Team')],
      permissions: [
        { type: 'group', emailAddress: 'eng@example.com', role: 'organizer' },
        { type: 'user', emailAddress: 'bob@example.com' },
      ],
    });
    const item = await listedItem(id);
    server.clearRecords();

    const fetched = await source.fetch(job, item, undefined, signal);

    expect(fetched.fields.access).toEqual({
      team: false,
      emails: [ANN, 'bob@example.com'],
      domains: [],
      groups: ['eng@example.com'],
      users: [ANN_ID],
    });
    expect(permissionRequests()).toHaveLength(1);
  });

  it('reads the permissions again for an unchanged file: a sharing change reaches its access list', async () => {
    const id = server.addFile({
      name: 'team.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addSharedDrive('Team')],
      permissions: [{ type: 'user', emailAddress: 'bob@example.com' }],
    });
    const first = await source.fetch(job, await listedItem(id), undefined, signal);

    server.unshare(id, 'bob@example.com');
    const again = await source.fetch(job, await listedItem(id), storedAs(first), signal);

    expect(first.fields.access.emails).toEqual([ANN, 'bob@example.com']);
    expect(again.kind).toBe('unchanged');
    expect(again.fields.access.emails).toEqual([ANN]);
  });

  it('carries the access of a My Drive file whose content did not change', async () => {
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addFolder({ name: 'F' })],
    });
    const first = await source.fetch(job, itemOf(id), undefined, signal);

    server.share(id, { type: 'domain', domain: 'example.com', allowFileDiscovery: true });
    const again = await source.fetch(job, itemOf(id), storedAs(first), signal);

    expect(again.kind).toBe('unchanged');
    expect(again.fields.access).toEqual({
      team: false,
      emails: [ANN],
      domains: ['example.com'],
      groups: [],
      users: [ANN_ID],
    });
  });

  it('lets the indexing user alone in when Drive will not show the permissions (403)', async () => {
    const id = server.addFile({
      name: 'theirs.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addFolder({ name: 'F' })],
      canShare: false,
      permissions: [{ type: 'anyone', allowFileDiscovery: true }],
    });

    const fetched = await source.fetch(job, await listedItem(id), undefined, signal);

    expect(fetched.kind).toBe('content');
    expect(fetched.fields.access).toEqual({
      team: false,
      emails: [ANN],
      domains: [],
      groups: [],
      users: [ANN_ID],
    });
    expect(permissionRequests().map((request) => request.status)).toEqual([403]);
  });

  it('lets the indexing user alone in on a 404 from permissions.list', async () => {
    const id = server.addFile({
      name: 'team.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addSharedDrive('Team')],
      permissions: [{ type: 'anyone', allowFileDiscovery: true }],
    });
    const item = await listedItem(id);
    server.failNext((request) => request.route === 'permissions', { status: 404 });

    const fetched = await source.fetch(job, item, undefined, signal);

    expect(fetched.fields.access).toEqual({
      team: false,
      emails: [ANN],
      domains: [],
      groups: [],
      users: [ANN_ID],
    });
  });

  it('throws what other failures of permissions.list are, to be retried', async () => {
    const id = server.addFile({
      name: 'team.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addSharedDrive('Team')],
    });
    const item = await listedItem(id);
    server.failNext((request) => request.route === 'permissions', { status: 429, retryAfter: 5 });

    const error = await source.fetch(job, item, undefined, signal).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );

    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).failure).toBe('rate_limited');
    expect(server.contentRequests(id)).toHaveLength(0);
  });

  it('lets nobody but the named users in when the requester is gone', async () => {
    const id = server.addFile({
      name: 'a.txt',
      mimeType: 'text/plain',
      content: 'hello',
      parents: [server.addFolder({ name: 'F' })],
      permissions: [{ type: 'user', emailAddress: 'bob@example.com', role: 'owner' }],
    });

    const fetched = await source.fetch(
      { ...job, requestedBy: null, requestedByEmail: null },
      itemOf(id),
      undefined,
      signal,
    );

    expect(fetched.fields.access).toEqual({
      team: false,
      emails: ['bob@example.com'],
      domains: [],
      groups: [],
    });
    expect(fetched.fields.indexedBy).toBeNull();
  });
});
