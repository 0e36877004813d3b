import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ConfluenceFlavour, FakeConfluenceServer } from '../../../test/fakes/fake-confluence-server.js';
import { GuardedFetch } from '../http/guarded-fetch.js';
import { SourceError } from '../source-error.js';
import { ConfluenceClient } from './confluence-client.js';
import { InMemoryWiki } from './in-memory-wiki.js';
import type {
  WikiClient,
  WikiPageSummary,
  WikiReadRestriction,
  WikiRestrictionCache,
  WikiSite,
} from './wiki-client.js';

/** The client as the service builds it: user addresses policed, the administrator's origin trusted. */
function clientFor(trustedBaseUrl: string | undefined, pageSize?: number): ConfluenceClient {
  const http = new GuardedFetch({
    allowPrivateNetwork: false,
    allowedHosts: ['*.atlassian.net'],
    trustedOrigins: trustedBaseUrl === undefined ? [] : [trustedBaseUrl],
    timeoutMs: 5_000,
    maxResponseBytes: 5 * 1024 * 1024,
    sourceName: 'the wiki',
  });
  return new ConfluenceClient({ http, ...(pageSize === undefined ? {} : { pageSize }) });
}

async function failureOf(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

async function listAll(client: WikiClient, site: WikiSite, spaceKey: string): Promise<WikiPageSummary[]> {
  const pages: WikiPageSummary[] = [];
  let cursor: string | undefined;
  for (let round = 0; round < 20; round += 1) {
    const list = await client.listPages(site, spaceKey, cursor);
    pages.push(...list.pages);
    cursor = list.next;
    if (cursor === undefined) return pages;
  }
  throw new Error('the listing never ended');
}

describe.each([
  { flavour: 'cloud' as ConfluenceFlavour, contextPath: undefined },
  { flavour: 'datacenter' as ConfluenceFlavour, contextPath: undefined },
  { flavour: 'datacenter' as ConfluenceFlavour, contextPath: '/confluence' },
])('ConfluenceClient against $flavour (context $contextPath)', ({ flavour, contextPath }) => {
  let fake: FakeConfluenceServer;
  let client: ConfluenceClient;
  let site: WikiSite;
  const messages: string[] = [];

  beforeAll(async () => {
    fake = await FakeConfluenceServer.start({
      flavour,
      ...(contextPath === undefined ? {} : { contextPath }),
    });
    client = clientFor(fake.baseUrl);
    site = fake.site();
    fake.addSpace('DOC', 'Documentation');
  });

  afterAll(async () => {
    await fake.close();
    // Every error any test met, checked once more: no credential in any message.
    const basic = Buffer.from(`${fake.username}:${fake.apiToken}`).toString('base64');
    for (const message of messages) {
      expect(message).not.toContain(fake.apiToken);
      expect(message).not.toContain(basic);
    }
  });

  afterEach(() => {
    fake.setPageSize(25);
    fake.setRestrictionPageSize(100);
  });

  async function expectFailure(promise: Promise<unknown>): Promise<SourceError> {
    const error = await failureOf(promise);
    messages.push(error.message);
    return error;
  }

  it('reads the space, with the flavour’s authentication', async () => {
    await expect(client.getSpace(site, 'DOC')).resolves.toEqual({ key: 'DOC', name: 'Documentation' });
    const request = fake.requests.at(-1);
    expect(request?.apiPath).toBe('/rest/api/space/DOC');
    expect(request?.headers.authorization?.split(' ')[0]).toBe(flavour === 'cloud' ? 'Basic' : 'Bearer');
  });

  it('reports rejected credentials as unauthorized, without the token', async () => {
    const error = await expectFailure(
      client.getSpace({ ...site, apiToken: `${site.apiToken}-wrong` }, 'DOC'),
    );
    expect(error.failure).toBe('unauthorized');
    expect(error.status).toBe(401);
    expect(error.message).toContain('rejected the credentials');
    expect(error.message).not.toContain(site.apiToken);
  });

  it('reports an unknown space as not_found, naming its key', async () => {
    const error = await expectFailure(client.getSpace(site, 'NOPE'));
    expect(error.failure).toBe('not_found');
    expect(error.message).toContain('"NOPE"');
  });

  it('reports 403 as permission_denied', async () => {
    fake.failNext({ path: '/rest/api/space/DOC', status: 403 });
    const error = await expectFailure(client.getSpace(site, 'DOC'));
    expect(error.failure).toBe('permission_denied');
    expect(error.retryable).toBe(false);
  });

  it('lists a space over several requests, following the wiki’s next links', async () => {
    fake.addSpace('MANY', 'Many pages');
    const created = Array.from({ length: 7 }, (_, index) =>
      fake.putPage('MANY', { title: `Page ${index + 1}`, storageBody: `<p>${index + 1}</p>` }),
    );
    fake.setPageSize(3);
    const before = fake.requests.length;
    const pages = await listAll(client, site, 'MANY');
    expect(pages.map((page) => page.id)).toEqual(created.map((page) => page.id));
    expect(pages.map((page) => page.title)).toEqual(created.map((_, index) => `Page ${index + 1}`));
    expect(pages.every((page) => page.version === 1)).toBe(true);
    for (const page of pages) expect(page.url.startsWith(`${fake.baseUrl}/`)).toBe(true);
    const listings = fake.requests.slice(before);
    expect(listings).toHaveLength(3);
    expect(listings[0]?.query).toMatchObject({
      spaceKey: 'MANY',
      type: 'page',
      status: 'current',
      expand: 'version,ancestors',
    });
    if (flavour === 'cloud') expect(listings[1]?.query.cursor).toBeDefined();
  });

  it('asks once more when a full answer comes without a next link, and stops on a short one', async () => {
    fake.addSpace('EXACT', 'Exactly one batch');
    for (let index = 0; index < 4; index += 1) fake.putPage('EXACT', { title: `E${index}`, storageBody: '' });
    const exact = clientFor(fake.baseUrl, 4);
    const before = fake.requests.length;
    const pages = await listAll(exact, site, 'EXACT');
    expect(pages).toHaveLength(4);
    const listings = fake.requests.slice(before);
    expect(listings.map((request) => request.query.start)).toEqual(['0', '4']);
  });

  it('reads a page: storage body, version, time and web link', async () => {
    const { id } = fake.putPage('DOC', {
      title: 'Release notes',
      storageBody: '<p>Hello <ac:structured-macro ac:name="info"/></p>',
      when: '2026-01-02T03:04:05.000Z',
    });
    const page = await client.getPage(site, id);
    expect(page).toMatchObject({
      id,
      title: 'Release notes',
      version: 1,
      storageBody: '<p>Hello <ac:structured-macro ac:name="info"/></p>',
      lastModified: '2026-01-02T03:04:05.000Z',
    });
    const webui =
      flavour === 'cloud' ? `/spaces/DOC/pages/${id}/Release+notes` : '/display/DOC/Release+notes';
    expect(page.url).toBe(`${fake.baseUrl}${webui}`);
    expect(fake.requests.at(-1)?.query.expand?.split(',').sort()).toEqual(['body.storage', 'version']);
  });

  it('sees a higher version after an edit, in the listing and the page', async () => {
    fake.addSpace('EDIT', 'Edited');
    const { id } = fake.putPage('EDIT', { title: 'Draft', storageBody: '<p>one</p>' });
    fake.putPage('EDIT', { id, title: 'Final', storageBody: '<p>two</p>' });
    const [listed] = (await client.listPages(site, 'EDIT', undefined)).pages;
    expect(listed).toMatchObject({ id, title: 'Final', version: 2 });
    await expect(client.getPage(site, id)).resolves.toMatchObject({ version: 2, storageBody: '<p>two</p>' });
  });

  it('reports a removed page as not_found, and leaves it out of the listing', async () => {
    fake.addSpace('GONE', 'Removed pages');
    const kept = fake.putPage('GONE', { title: 'Kept', storageBody: '' });
    const removed = fake.putPage('GONE', { title: 'Removed', storageBody: '' });
    fake.removePage(removed.id);
    const error = await expectFailure(client.getPage(site, removed.id));
    expect(error.failure).toBe('not_found');
    expect(error.message).toContain(removed.id);
    const list = await client.listPages(site, 'GONE', undefined);
    expect(list.pages.map((page) => page.id)).toEqual([kept.id]);
  });

  it('reports 429 as rate_limited with Retry-After seconds', async () => {
    const { id } = fake.putPage('DOC', { title: 'Busy', storageBody: '' });
    fake.failNext({ pageId: id, status: 429, retryAfter: 17 });
    const error = await expectFailure(client.getPage(site, id));
    expect(error.failure).toBe('rate_limited');
    expect(error.retryAfterSeconds).toBe(17);
    expect(error.retryable).toBe(true);
    await expect(client.getPage(site, id)).resolves.toMatchObject({ id });
  });

  it('reads an HTTP-date Retry-After as seconds from now', async () => {
    fake.failNext({
      path: '/rest/api/space/DOC',
      status: 429,
      retryAfter: new Date(Date.now() + 60_000).toUTCString(),
    });
    const error = await expectFailure(client.getSpace(site, 'DOC'));
    expect(error.retryAfterSeconds).toBeGreaterThan(55);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('reports 500 as unavailable', async () => {
    fake.failNext({ path: '/rest/api/content', status: 500 });
    const error = await expectFailure(client.listPages(site, 'DOC', undefined));
    expect(error.failure).toBe('unavailable');
    expect(error.status).toBe(500);
    expect(error.retryable).toBe(true);
  });

  it('reports an answer that is not JSON as bad_response', async () => {
    fake.failNext({ path: '/rest/api/space/DOC', status: 200, body: '<html><body>Log in</body></html>' });
    const error = await expectFailure(client.getSpace(site, 'DOC'));
    expect(error.failure).toBe('bad_response');
  });

  it('cuts the token out of a wiki message that echoes it', async () => {
    fake.failNext({
      path: '/rest/api/space/DOC',
      status: 400,
      body: JSON.stringify({ statusCode: 400, message: `Bad token ${site.apiToken} given` }),
    });
    const error = await expectFailure(client.getSpace(site, 'DOC'));
    expect(error.failure).toBe('bad_response');
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(site.apiToken);
  });

  it('refuses the wiki on a private address when that origin is not trusted, sending nothing', async () => {
    const untrusted = clientFor(undefined);
    const before = fake.requests.length;
    const error = await expectFailure(untrusted.getSpace(site, 'DOC'));
    expect(error.failure).toBe('refused');
    expect(error.message).toContain('127.0.0.1');
    expect(fake.requests.length).toBe(before);
  });

  describe('read restrictions', () => {
    /** Each level as e-mails (undefined for a hidden one) and groups, sorted: what access is made of. */
    function simplified(levels: readonly WikiReadRestriction[]) {
      return levels.map((level) => ({
        contentId: level.contentId,
        emails: level.users.map((user) => user.email).sort(),
        groups: [...level.groups].sort(),
      }));
    }

    function restrictionRequests(since: number) {
      return fake.requests.slice(since).filter((request) => request.apiPath.includes('/restriction/'));
    }

    it('reads an unrestricted page at the top of its space: one level, no one named', async () => {
      fake.addSpace('OPEN', 'Open');
      const { id } = fake.putPage('OPEN', { title: 'Open', storageBody: '' });
      const before = fake.requests.length;
      const levels = await client.getReadRestrictions(site, id);
      expect(simplified(levels)).toEqual([{ contentId: id, emails: [], groups: [] }]);
      const requests = fake.requests.slice(before);
      expect(requests.map((request) => request.apiPath)).toEqual([
        `/rest/api/content/${id}`,
        `/rest/api/content/${id}/restriction/byOperation/read`,
      ]);
      expect(requests[0]?.query.expand).toBe('ancestors');
      expect(requests[1]?.query.expand?.split(',').sort()).toEqual([
        'restrictions.group',
        'restrictions.user',
      ]);
    });

    it('reads the restrictions of every ancestor, root first, and of the page', async () => {
      fake.addSpace('TREE', 'Tree');
      const root = fake.putPage('TREE', {
        title: 'Root',
        storageBody: '',
        readRestrictions: { users: ['Ann@Example.com', 'bob@example.com'], groups: ['staff'] },
      });
      const middle = fake.putPage('TREE', { title: 'Middle', storageBody: '', parentId: root.id });
      const leaf = fake.putPage('TREE', {
        title: 'Leaf',
        storageBody: '',
        parentId: middle.id,
        readRestrictions: { users: ['ann@example.com'] },
      });
      const before = fake.requests.length;
      const levels = await client.getReadRestrictions(site, leaf.id);
      expect(simplified(levels)).toEqual([
        { contentId: root.id, emails: ['Ann@Example.com', 'bob@example.com'], groups: ['staff'] },
        { contentId: middle.id, emails: [], groups: [] },
        { contentId: leaf.id, emails: ['ann@example.com'], groups: [] },
      ]);
      for (const level of levels) for (const user of level.users) expect(user.id).toBeTruthy();
      expect(restrictionRequests(before)).toHaveLength(3);
    });

    it('sees a restriction set or lifted without a new page version', async () => {
      fake.addSpace('LATER', 'Later');
      const { id } = fake.putPage('LATER', { title: 'Later', storageBody: '' });
      fake.setReadRestrictions(id, { users: ['carol@example.com'], groups: ['leads'] });
      expect(simplified(await client.getReadRestrictions(site, id))).toEqual([
        { contentId: id, emails: ['carol@example.com'], groups: ['leads'] },
      ]);
      fake.setReadRestrictions(id, {});
      expect(simplified(await client.getReadRestrictions(site, id))).toEqual([
        { contentId: id, emails: [], groups: [] },
      ]);
      const [listed] = (await client.listPages(site, 'LATER', undefined)).pages;
      expect(listed?.version).toBe(1);
    });

    it('sees a page moved below a restricted one', async () => {
      fake.addSpace('MOVE', 'Moved');
      const secret = fake.putPage('MOVE', {
        title: 'Secret',
        storageBody: '',
        readRestrictions: { groups: ['board'] },
      });
      const { id } = fake.putPage('MOVE', { title: 'Moved', storageBody: '' });
      fake.setParent(id, secret.id);
      expect(simplified(await client.getReadRestrictions(site, id))).toEqual([
        { contentId: secret.id, emails: [], groups: ['board'] },
        { contentId: id, emails: [], groups: [] },
      ]);
    });

    it('keeps a user whose e-mail the wiki hides, without an e-mail', async () => {
      fake.addSpace('HIDDEN', 'Hidden');
      const { id } = fake.putPage('HIDDEN', {
        title: 'Hidden',
        storageBody: '',
        readRestrictions: { users: [{ displayName: 'Dana' }, 'erin@example.com'] },
      });
      const [level] = await client.getReadRestrictions(site, id);
      expect(level?.users).toHaveLength(2);
      expect(level?.users.map((user) => user.email)).toEqual([undefined, 'erin@example.com']);
      expect(level?.users.every((user) => user.id !== undefined && user.id !== '')).toBe(true);
    });

    it('reads long lists of users and groups a page at a time', async () => {
      fake.addSpace('LONG', 'Long lists');
      const emails = Array.from({ length: 7 }, (_, index) => `user${index}@example.com`);
      const groups = ['g1', 'g2', 'g3'];
      const { id } = fake.putPage('LONG', {
        title: 'Long',
        storageBody: '',
        readRestrictions: { users: emails, groups },
      });
      fake.setRestrictionPageSize(3);
      const before = fake.requests.length;
      const levels = await client.getReadRestrictions(site, id);
      expect(simplified(levels)).toEqual([{ contentId: id, emails: [...emails].sort(), groups }]);
      expect(restrictionRequests(before).map((request) => request.query.start)).toEqual(['0', '3', '6']);
    });

    it('reads a level once for calls that share a cache, and again after a failure', async () => {
      fake.addSpace('CACHE', 'Cached');
      const parent = fake.putPage('CACHE', {
        title: 'Parent',
        storageBody: '',
        readRestrictions: { users: ['ann@example.com'] },
      });
      const first = fake.putPage('CACHE', { title: 'First', storageBody: '', parentId: parent.id });
      const second = fake.putPage('CACHE', { title: 'Second', storageBody: '', parentId: parent.id });
      const cache: WikiRestrictionCache = new Map();
      const before = fake.requests.length;
      await client.getReadRestrictions(site, first.id, undefined, { cache });
      const levels = await client.getReadRestrictions(site, second.id, undefined, { cache });
      expect(simplified(levels).map((level) => level.emails)).toEqual([['ann@example.com'], []]);
      expect(restrictionRequests(before).map((request) => request.apiPath)).toEqual([
        `/rest/api/content/${parent.id}/restriction/byOperation/read`,
        `/rest/api/content/${first.id}/restriction/byOperation/read`,
        `/rest/api/content/${second.id}/restriction/byOperation/read`,
      ]);

      const third = fake.putPage('CACHE', { title: 'Third', storageBody: '', parentId: parent.id });
      fake.failNext({ path: `/rest/api/content/${third.id}/restriction/byOperation/read`, status: 403 });
      const error = await expectFailure(client.getReadRestrictions(site, third.id, undefined, { cache }));
      expect(error.failure).toBe('permission_denied');
      expect(error.message).toContain(`read restrictions of page ${third.id}`);
      expect(cache.has(third.id)).toBe(false);
      await expect(client.getReadRestrictions(site, third.id, undefined, { cache })).resolves.toHaveLength(2);
    });

    it('lists each page’s ancestors, and reads only the restrictions when given them', async () => {
      fake.addSpace('KNOWN', 'Known ancestors');
      const root = fake.putPage('KNOWN', {
        title: 'Root',
        storageBody: '',
        readRestrictions: { users: ['ann@example.com'] },
      });
      const leaf = fake.putPage('KNOWN', { title: 'Leaf', storageBody: '', parentId: root.id });
      const { pages } = await client.listPages(site, 'KNOWN', undefined);
      expect(pages.map((page) => page.ancestorIds)).toEqual([[], [root.id]]);
      const before = fake.requests.length;
      const levels = await client.getReadRestrictions(site, leaf.id, undefined, {
        ancestorIds: pages[1]?.ancestorIds ?? [],
      });
      expect(simplified(levels).map((level) => level.contentId)).toEqual([root.id, leaf.id]);
      expect(fake.requests.slice(before).every((request) => request.apiPath.includes('/restriction/'))).toBe(
        true,
      );
    });

    it('asks for the current ancestors when one the listing gave is gone', async () => {
      fake.addSpace('STALE', 'Stale ancestors');
      const top = fake.putPage('STALE', {
        title: 'Top',
        storageBody: '',
        readRestrictions: { groups: ['g'] },
      });
      const gone = fake.putPage('STALE', { title: 'Gone', storageBody: '', parentId: top.id });
      const leaf = fake.putPage('STALE', { title: 'Leaf', storageBody: '', parentId: gone.id });
      fake.removePage(gone.id);
      const levels = await client.getReadRestrictions(site, leaf.id, undefined, {
        ancestorIds: [top.id, gone.id],
      });
      expect(simplified(levels)).toEqual([
        { contentId: top.id, emails: [], groups: ['g'] },
        { contentId: leaf.id, emails: [], groups: [] },
      ]);
    });

    it('reports a removed page as not_found', async () => {
      const { id } = fake.putPage('DOC', { title: 'Soon gone', storageBody: '' });
      fake.removePage(id);
      const error = await expectFailure(client.getReadRestrictions(site, id));
      expect(error.failure).toBe('not_found');
      expect(error.message).toContain(id);
    });

    it('reports an answer without restrictions as bad_response, never as unrestricted', async () => {
      const { id } = fake.putPage('DOC', { title: 'Odd', storageBody: '' });
      fake.failNext({
        path: `/rest/api/content/${id}/restriction/byOperation/read`,
        status: 200,
        body: JSON.stringify({ operation: 'read', _links: {} }),
      });
      expect((await expectFailure(client.getReadRestrictions(site, id))).failure).toBe('bad_response');
      fake.failNext({
        path: `/rest/api/content/${id}/restriction/byOperation/read`,
        status: 200,
        body: JSON.stringify({
          operation: 'read',
          restrictions: { group: { results: [] }, _expandable: { user: '/rest/api/…' } },
        }),
      });
      expect((await expectFailure(client.getReadRestrictions(site, id))).failure).toBe('bad_response');
    });
  });

  it('passes an abort through', async () => {
    const reason = new Error('stopped');
    await expect(client.getSpace(site, 'DOC', AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});

describe('ConfluenceClient listing cursors', () => {
  let fake: FakeConfluenceServer;

  beforeAll(async () => {
    fake = await FakeConfluenceServer.start({ flavour: 'cloud' });
    fake.addSpace('DOC', 'Documentation');
  });

  afterAll(async () => {
    await fake.close();
  });

  it('refuses a cursor that would leave the API below the site base', async () => {
    const client = clientFor(fake.baseUrl);
    for (const cursor of ['https://evil.example/rest/api/content', '/rest/api/../../admin', 'admin']) {
      const error = await failureOf(client.listPages(fake.site(), 'DOC', cursor));
      expect(error.failure).toBe('bad_response');
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe('InMemoryWiki keeps the port’s contract', () => {
  const site: WikiSite = {
    baseUrl: 'https://x.atlassian.net/wiki',
    authScheme: 'basic',
    username: 'a',
    apiToken: 't',
  };

  it('lists over several calls, versions edits, and fails like the real client', async () => {
    const wiki = new InMemoryWiki();
    wiki.addSpace('DOC', 'Documentation');
    for (let index = 0; index < 5; index += 1) wiki.putPage('DOC', { title: `P${index}`, storageBody: '' });
    wiki.setPageSize(2);
    expect(await listAll(wiki, site, 'DOC')).toHaveLength(5);
    const { id } = wiki.putPage('DOC', { id: '1', title: 'P0 again', storageBody: '<p>2</p>' });
    await expect(wiki.getPage(site, id)).resolves.toMatchObject({ version: 2, storageBody: '<p>2</p>' });
    expect((await failureOf(wiki.getSpace(site, 'NOPE'))).failure).toBe('not_found');
    wiki.acceptToken('other');
    expect((await failureOf(wiki.getSpace(site, 'DOC'))).failure).toBe('unauthorized');
    wiki.failNext('getPage', new SourceError('rate_limited', 'slow down', { retryAfterSeconds: 3 }));
    expect((await failureOf(wiki.getPage({ ...site, apiToken: 'other' }, id))).retryAfterSeconds).toBe(3);
  });

  it('answers read restrictions of a page and its ancestors, root first, through a cache', async () => {
    const wiki = new InMemoryWiki();
    wiki.addSpace('DOC', 'Documentation');
    const root = wiki.putPage('DOC', {
      title: 'Root',
      storageBody: '',
      readRestrictions: { users: ['ann@example.com'], groups: ['staff'] },
    });
    const child = wiki.putPage('DOC', { title: 'Child', storageBody: '', parentId: root.id });
    const cache: WikiRestrictionCache = new Map();
    const levels = await wiki.getReadRestrictions(site, child.id, undefined, { cache });
    const listed = (await wiki.listPages(site, 'DOC', undefined)).pages;
    expect(listed.map((page) => page.ancestorIds)).toEqual([[], [root.id]]);
    wiki.calls.length = 0;
    expect(levels).toEqual([
      { contentId: root.id, users: [{ id: 'ann@example.com', email: 'ann@example.com' }], groups: ['staff'] },
      { contentId: child.id, users: [], groups: [] },
    ]);
    wiki.setReadRestrictions(child.id, { users: [{ id: 'acc-1', email: undefined }] });
    await wiki.getReadRestrictions(site, child.id);
    await wiki.getReadRestrictions(site, child.id, undefined, { cache, ancestorIds: [root.id] });
    expect(wiki.calls).toEqual([
      `getReadRestrictions ${child.id}`,
      `ancestors ${child.id}`,
      `readRestriction ${root.id}`,
      `readRestriction ${child.id}`,
      `getReadRestrictions ${child.id}`,
    ]);
    wiki.removePage(root.id);
    expect(await wiki.getReadRestrictions(site, child.id)).toEqual([
      { contentId: child.id, users: [{ id: 'acc-1', email: undefined }], groups: [] },
    ]);
    expect((await failureOf(wiki.getReadRestrictions(site, root.id))).failure).toBe('not_found');
  });
});
