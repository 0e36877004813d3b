import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { TEAM_ACCESS } from '../../access.js';
import { SourceError } from '../../adapters/source-error.js';
import { InMemoryWiki } from '../../adapters/wiki/in-memory-wiki.js';
import type { StoredDocumentState } from '../../db/repositories/documents.js';
import type { IndexJobItemRow, IndexJobRow } from '../../db/repositories/index-jobs.js';
import type { SqlConnection } from '../../db/sql-connection.js';
import { SecretBox } from '../../security/secret-box.js';
import type { FetchedItem } from './index-source.js';
import { WikiSource } from './wiki-source.js';

const ANN = 'ann@example.com';
const BOB = 'bob@example.com';
const REQUESTER_ID = 7;
const signal = new AbortController().signal;
const secrets = new SecretBox(randomBytes(32));

let wiki: InMemoryWiki;
let source: WikiSource;
let connectorDeleted: boolean;

function jobOf(id: string): IndexJobRow {
  const now = new Date();
  return {
    id,
    teamId: 1,
    connectorId: 3,
    kind: 'wiki',
    status: 'running',
    requestedBy: REQUESTER_ID,
    requestedByEmail: ANN,
    requestedByEmailVerified: true,
    request: {},
    secretsSealed: null,
    attempts: 0,
    expandedAt: now,
    error: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  };
}

const job = jobOf('00000000-0000-4000-8000-000000000001');

beforeEach(() => {
  wiki = new InMemoryWiki();
  wiki.addSpace('DOC', 'Documentation');
  connectorDeleted = false;
  // fields() and fetch() read the connector only (expand is tested end to end).
  const sql = {
    executeSql: async () => ({
      rows: connectorDeleted
        ? []
        : [
            {
              config: { base_url: 'https://x.atlassian.net/wiki', username: ANN, space_key: 'DOC' },
              secrets_sealed: secrets.sealJson({ api_token: 'token' }),
            },
          ],
    }),
  } as unknown as SqlConnection;
  source = new WikiSource({ sql, secrets, wiki });
});

/** As expand stores a listed page (`ancestorIds` as the listing gave them, when it did). */
function itemOf(page: { id: string; version: number }, ancestorIds?: readonly string[]): IndexJobItemRow {
  return {
    externalId: page.id,
    position: 0,
    name: `Page ${page.id}`,
    status: 'indexing',
    reason: null,
    message: null,
    chunks: 0,
    documentId: null,
    payload: {
      version: page.version,
      url: `https://x.atlassian.net/wiki/pages/${page.id}`,
      ...(ancestorIds === undefined ? {} : { ancestorIds: [...ancestorIds] }),
    },
  };
}

function storedAt(version: number): StoredDocumentState {
  return {
    id: 11,
    status: 'indexed',
    reason: null,
    message: null,
    contentHash: 'hash',
    sourceVersion: String(version),
    chunkCount: 2,
    indexedBy: null,
    accessListId: 1,
  };
}

function put(title: string, options: { parentId?: string; users?: string[]; groups?: string[] } = {}) {
  return wiki.putPage('DOC', {
    title,
    storageBody: `<p>${title}</p>`,
    ...(options.parentId === undefined ? {} : { parentId: options.parentId }),
    ...(options.users === undefined && options.groups === undefined
      ? {}
      : { readRestrictions: { users: options.users ?? [], groups: options.groups ?? [] } }),
  });
}

function accessOf(fetched: FetchedItem) {
  return fetched.fields.access;
}

describe('WikiSource access lists', () => {
  it('records a page it could not read as the indexing user’s alone, never the team’s', () => {
    const fields = source.fields(job, itemOf({ id: '42', version: 1 }));
    expect(fields.access).toEqual({ team: false, emails: [], domains: [], groups: [] });
    expect(fields.indexedBy).toBe(REQUESTER_ID);
  });

  it('gives an unrestricted page to the team, indexed by the job’s requester', async () => {
    const page = put('Open');
    const fetched = await source.fetch(job, itemOf(page), undefined, signal);
    expect(fetched.kind).toBe('content');
    expect(accessOf(fetched)).toEqual(TEAM_ACCESS);
    expect(fetched.fields.indexedBy).toBe(REQUESTER_ID);
  });

  it('applies the ancestors’ restrictions to a changed page', async () => {
    const root = put('Root', { users: [ANN, BOB], groups: ['Staff'] });
    const child = put('Child', { parentId: root.id, users: ['Bob@Example.com'] });
    const fetched = await source.fetch(job, itemOf(child), undefined, signal);
    expect(fetched.kind).toBe('content');
    expect(accessOf(fetched)).toEqual({ team: false, emails: [BOB], domains: [], groups: [] });
  });

  it('re-reads the restrictions of an unchanged page: a restriction set or lifted reaches its list', async () => {
    const page = put('Stable');
    const first = await source.fetch(job, itemOf(page), storedAt(page.version), signal);
    expect(first).toMatchObject({ kind: 'unchanged' });
    expect(accessOf(first)).toEqual(TEAM_ACCESS);
    expect(first.fields.indexedBy).toBe(REQUESTER_ID);

    wiki.setReadRestrictions(page.id, { users: [ANN] });
    const nextJob = jobOf('00000000-0000-4000-8000-000000000002');
    const second = await source.fetch(nextJob, itemOf(page), storedAt(page.version), signal);
    expect(second).toMatchObject({ kind: 'unchanged' });
    expect(accessOf(second)).toEqual({ team: false, emails: [ANN], domains: [], groups: [] });
    expect(wiki.calls.filter((call) => call.startsWith('getPage'))).toEqual([]);
  });

  it('reads each ancestor’s restriction once per job', async () => {
    const parent = put('Parent', { users: [ANN] });
    const first = put('First', { parentId: parent.id });
    const second = put('Second', { parentId: parent.id });
    await Promise.all(
      [parent, first, second].map((page) => source.fetch(job, itemOf(page), undefined, signal)),
    );
    const reads = wiki.calls.filter((call) => call.startsWith('readRestriction '));
    expect(reads.filter((call) => call === `readRestriction ${parent.id}`)).toHaveLength(1);
    expect(reads).toHaveLength(3);

    // The next job reads them again: restrictions change at any time.
    await source.fetch(jobOf('00000000-0000-4000-8000-000000000003'), itemOf(first), undefined, signal);
    expect(wiki.calls.filter((call) => call === `readRestriction ${parent.id}`)).toHaveLength(2);
  });

  it('uses the ancestors the listing gave, and asks again when one of them is gone', async () => {
    const root = put('Root', { groups: ['staff'] });
    const middle = put('Middle', { parentId: root.id });
    const leaf = put('Leaf', { parentId: middle.id });
    const listed = await source.fetch(job, itemOf(leaf, [root.id, middle.id]), undefined, signal);
    expect(accessOf(listed)).toEqual({ team: false, emails: [], domains: [], groups: ['staff'] });
    expect(wiki.calls.filter((call) => call.startsWith('ancestors '))).toEqual([]);

    wiki.removePage(middle.id);
    wiki.setParent(leaf.id, undefined);
    const nextJob = jobOf('00000000-0000-4000-8000-000000000004');
    const moved = await source.fetch(nextJob, itemOf(leaf, [root.id, middle.id]), undefined, signal);
    expect(accessOf(moved)).toEqual(TEAM_ACCESS);
    expect(wiki.calls.filter((call) => call.startsWith('ancestors '))).toEqual([`ancestors ${leaf.id}`]);
  });

  it('stops an unchanged page too once the connector is deleted', async () => {
    const page = put('Orphan');
    connectorDeleted = true;
    await expect(source.fetch(job, itemOf(page), storedAt(page.version), signal)).rejects.toMatchObject({
      reason: 'not_found',
    });
  });

  it('fails the page, not open it, when its restrictions cannot be read', async () => {
    const page = put('Busy');
    wiki.failNext(
      'getReadRestrictions',
      new SourceError('rate_limited', 'slow down', { retryAfterSeconds: 5 }),
    );
    await expect(source.fetch(job, itemOf(page), storedAt(page.version), signal)).rejects.toMatchObject({
      failure: 'rate_limited',
    });
    const retried = await source.fetch(job, itemOf(page), storedAt(page.version), signal);
    expect(accessOf(retried)).toEqual(TEAM_ACCESS);
  });
});
