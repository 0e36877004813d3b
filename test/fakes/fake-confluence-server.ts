import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { WikiSite } from '../../src/adapters/wiki/wiki-client.js';
import { LocalHttpServer, sendBody } from './local-http-server.js';

/**
 * A local stand-in for Confluence's REST API v1, in the wire format both flavours share, on
 * 127.0.0.1 at a free port. It serves:
 * - `GET {base}/rest/api/space/{key}` → `{id, key, name, type, status, _links}`;
 * - `GET {base}/rest/api/content?spaceKey=&type=page&status=current&expand=version&limit=&start=`
 *   → `{results, start, limit, size, _links: {base, context, next?, self}}`, pages in id order,
 *   `limit` capped at `setPageSize(n)` (Confluence caps it too), `_links.next` relative to
 *   `_links.base` (Cloud's carries an opaque `cursor`, as Cloud's does);
 * - `GET {base}/rest/api/content/{id}?expand=body.storage,version,ancestors` → the page;
 * - `GET {base}/rest/api/content/{id}/restriction/byOperation/{read|update}?expand=restrictions.user,
 *   restrictions.group&start=&limit=` → `{operation, restrictions: {user: {results, start, limit, size},
 *   group: {…}}, _expandable, _links}` (users and groups share `start` and `limit`, the limit capped at
 *   `setRestrictionPageSize(n)`, default 100; both lists expanded when `expand` is absent, as on Cloud);
 *   `GET {base}/rest/api/content/{id}/restriction/byOperation` → `{read: …, update: …}`.
 * `version`, `body.storage` and `ancestors` (root first) come only when `expand` asks for them, as on
 * the real thing. Users in restrictions are Cloud's `{type, accountId, accountType, email, publicName,
 * displayName}` (`email: ""` for a user whose address is hidden) or Data Center's `{type, username,
 * userKey, displayName}`, with `email` as well when the test gave one (a stand-in: a real Data
 * Center seldom sends it); groups are `{type: "group", name}` (with an `id` on Cloud).
 *
 * Flavours: `cloud` serves under `/wiki` (`baseUrl` = `http://127.0.0.1:<port>/wiki`) and accepts
 * `Authorization: Basic base64(email:apiToken)`; a rejected one gets 401 with an HTML body, as
 * some Cloud sites send. `datacenter` serves at the root or under `contextPath`
 * (`baseUrl` = `http://127.0.0.1:<port>[/context]`), accepts `Authorization: Bearer <PAT>` and
 * rejects with a JSON 401. Errors are Confluence-shaped: `{"statusCode":404,"message":"…","data":{…}}`.
 *
 * Test controls: `addSpace`, `putPage` (new page, or a new version of `id`; `parentId` and
 * `readRestrictions` optional), `setReadRestrictions` and `setParent` (no new version, as sharing
 * and moving change none), `removePage` (its children move up to its parent), `setPageSize`,
 * `setRestrictionPageSize`, `acceptCredentials`, `failNext` (inject 429 with Retry-After, 5xx,
 * 403…), `requests` (the log), `site()` (a ready `WikiSite`), `close()`.
 */

export type ConfluenceFlavour = 'cloud' | 'datacenter';

export interface FakeConfluenceOptions {
  readonly flavour: ConfluenceFlavour;
  /** Data Center only: a context path such as `/confluence`. */
  readonly contextPath?: string;
  /** Credentials to accept; generated when absent (see `username` and `apiToken`). */
  readonly username?: string;
  readonly apiToken?: string;
}

/** One request the server received. */
export interface RecordedConfluenceRequest {
  readonly method: string;
  /** Path and query as sent, e.g. `/wiki/rest/api/content?spaceKey=DOC&…`. */
  readonly url: string;
  /** The path after the base, without query, e.g. `/rest/api/content/65537`. */
  readonly apiPath: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** The status answered. */
  readonly status: number;
}

/** A failure to answer instead of the real thing, for the next matching request(s). */
export interface ConfluenceFailure {
  /** Matches the path after the base (no query): exact string, pattern or predicate. */
  readonly path?: string | RegExp | ((apiPath: string) => boolean);
  /** Shorthand for `path: '/rest/api/content/<pageId>'`. */
  readonly pageId?: string;
  readonly status: number;
  /** Sent as `Retry-After` (seconds or an HTTP date). */
  readonly retryAfter?: number | string;
  /** How many matching requests fail; default 1. */
  readonly times?: number;
  /** Replaces the Confluence-shaped JSON error body. */
  readonly body?: string;
}

/**
 * A user a read restriction names: an e-mail address, or the user in more detail (an absent
 * `email` is a user whose address Confluence hides). `accountId` (Cloud) and `username` (Data
 * Center) are made up from the address or a counter when not given.
 */
export type FakeConfluenceUser =
  | string
  | {
      readonly email?: string;
      readonly accountId?: string;
      readonly username?: string;
      readonly displayName?: string;
    };

/** A page's own read ("view") restriction: nobody named means unrestricted. */
export interface FakeReadRestrictions {
  readonly users?: readonly FakeConfluenceUser[];
  /** Group names. */
  readonly groups?: readonly string[];
}

interface StoredUser {
  readonly email: string | undefined;
  readonly accountId: string;
  readonly username: string;
  readonly userKey: string;
  readonly displayName: string;
}

interface StoredSpace {
  readonly id: number;
  readonly key: string;
  readonly name: string;
}

interface StoredPage {
  readonly id: string;
  readonly spaceKey: string;
  title: string;
  storageBody: string;
  version: number;
  when: string;
  parentId: string | undefined;
  readUsers: readonly StoredUser[];
  readGroups: readonly string[];
}

interface PendingFailure {
  readonly matches: (apiPath: string) => boolean;
  readonly failure: ConfluenceFailure;
  remaining: number;
}

interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

export class FakeConfluenceServer {
  /** Every request, in arrival order. */
  readonly requests: RecordedConfluenceRequest[] = [];
  /** What a user would configure as the wiki's address. */
  readonly baseUrl: string;
  username: string;
  apiToken: string;

  private readonly spaces = new Map<string, StoredSpace>();
  private readonly pages = new Map<string, StoredPage>();
  private readonly failures: PendingFailure[] = [];
  readonly port: number;
  private readonly basePath: string;
  private pageSize = 25;
  private restrictionPageSize = 100;
  private nextUserNumber = 1;
  private nextPageId = 65_537;
  private nextSpaceId = 98_305;

  private constructor(
    private readonly http: LocalHttpServer,
    readonly flavour: ConfluenceFlavour,
    options: FakeConfluenceOptions,
  ) {
    this.port = http.port;
    this.basePath = flavour === 'cloud' ? '/wiki' : (options.contextPath ?? '').replace(/\/+$/, '');
    this.baseUrl = http.url(this.basePath);
    this.username = options.username ?? 'indexer@example.com';
    this.apiToken =
      options.apiToken ??
      `${flavour === 'cloud' ? 'ATATT3x' : 'NjM'}${randomBytes(18).toString('base64url')}`;
  }

  /** Listens on 127.0.0.1 at a free port. */
  static async start(options: FakeConfluenceOptions): Promise<FakeConfluenceServer> {
    const http = await LocalHttpServer.start();
    const fake = new FakeConfluenceServer(http, options.flavour, options);
    http.serve((request, response) => fake.handle(request, response));
    return fake;
  }

  /** The site as the service would store it, with the accepted credentials. */
  site(overrides: Partial<WikiSite> = {}): WikiSite {
    return {
      baseUrl: this.baseUrl,
      authScheme: this.flavour === 'cloud' ? 'basic' : 'bearer',
      username: this.username,
      apiToken: this.apiToken,
      ...overrides,
    };
  }

  /**
   * The service's settings that point it at this fake: its site as WIKI_BASE_URL, and 127.0.0.1
   * allowed (the wiki client refuses private addresses unless told otherwise).
   */
  serviceEnv(): Record<string, string> {
    return {
      WIKI_BASE_URL: this.baseUrl,
      WIKI_ALLOWED_HOSTS: '127.0.0.1',
      WIKI_ALLOW_PRIVATE_NETWORK: 'true',
    };
  }

  /** Replaces the credentials the server accepts (the e-mail address matters for Cloud only). */
  acceptCredentials(credentials: { username?: string; apiToken: string }): void {
    this.username = credentials.username ?? this.username;
    this.apiToken = credentials.apiToken;
  }

  addSpace(key: string, name: string): void {
    this.spaces.set(key, { id: this.nextSpaceId++, key, name });
  }

  /**
   * Creates a page, or stores a new version of page `id` (its version number goes up). `parentId`
   * puts it below another page (its ancestors' read restrictions then apply to it);
   * `readRestrictions` sets its own. Both stay as they were when a new version leaves them out.
   */
  putPage(
    spaceKey: string,
    page: {
      id?: string;
      title: string;
      storageBody: string;
      when?: string;
      parentId?: string;
      readRestrictions?: FakeReadRestrictions;
    },
  ): { id: string; version: number } {
    if (!this.spaces.has(spaceKey)) throw new Error(`fake Confluence: no space ${spaceKey}; addSpace first`);
    const when = page.when ?? new Date().toISOString();
    const existing = page.id === undefined ? undefined : this.pages.get(page.id);
    const id = existing?.id ?? page.id ?? String(this.nextPageId++);
    if (page.parentId !== undefined) this.checkParent(id, page.parentId);
    if (existing !== undefined) {
      existing.title = page.title;
      existing.storageBody = page.storageBody;
      existing.version += 1;
      existing.when = when;
      if (page.parentId !== undefined) existing.parentId = page.parentId;
      if (page.readRestrictions !== undefined) this.setReadRestrictions(id, page.readRestrictions);
      return { id: existing.id, version: existing.version };
    }
    this.pages.set(id, {
      id,
      spaceKey,
      title: page.title,
      storageBody: page.storageBody,
      version: 1,
      when,
      parentId: page.parentId,
      readUsers: [],
      readGroups: [],
    });
    if (page.readRestrictions !== undefined) this.setReadRestrictions(id, page.readRestrictions);
    return { id, version: 1 };
  }

  /**
   * Replaces page `pageId`'s own read restriction: `{users: ['ann@example.com'], groups: ['staff']}`;
   * `{}` lifts it. The page's version stays: Confluence's does too.
   */
  setReadRestrictions(pageId: string, restrictions: FakeReadRestrictions): void {
    const page = this.existingPage(pageId);
    page.readUsers = (restrictions.users ?? []).map((user) => this.storedUser(user));
    page.readGroups = [...(restrictions.groups ?? [])];
  }

  /** Moves page `pageId` below `parentId` (undefined: to the top of its space); its version stays. */
  setParent(pageId: string, parentId: string | undefined): void {
    const page = this.existingPage(pageId);
    if (parentId !== undefined) this.checkParent(pageId, parentId);
    page.parentId = parentId;
  }

  /** Deletes a page: gone from listings, 404 when fetched; its children move up to its parent. */
  removePage(id: string): void {
    const removed = this.pages.get(id);
    this.pages.delete(id);
    for (const page of this.pages.values()) if (page.parentId === id) page.parentId = removed?.parentId;
  }

  /** The most users (and groups) one restriction answer holds, whatever `limit` asks (default 100). */
  setRestrictionPageSize(size: number): void {
    this.restrictionPageSize = size;
  }

  /** The most results one listing answers, whatever `limit` asks (default 25). */
  setPageSize(size: number): void {
    this.pageSize = size;
  }

  /** The next matching request(s) get this status instead of their answer. */
  failNext(failure: ConfluenceFailure): void {
    const { path, pageId } = failure;
    const matches =
      pageId !== undefined
        ? (apiPath: string) => apiPath === `/rest/api/content/${pageId}`
        : path === undefined
          ? () => true
          : typeof path === 'string'
            ? (apiPath: string) => apiPath === path
            : path instanceof RegExp
              ? (apiPath: string) => path.test(apiPath)
              : path;
    this.failures.push({ matches, failure, remaining: failure.times ?? 1 });
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private existingPage(pageId: string): StoredPage {
    const page = this.pages.get(pageId);
    if (page === undefined) throw new Error(`fake Confluence: no page ${pageId}`);
    return page;
  }

  /** A parent must exist and must not be the page itself or below it. */
  private checkParent(pageId: string, parentId: string): void {
    for (let at: string | undefined = parentId; at !== undefined; at = this.pages.get(at)?.parentId) {
      if (!this.pages.has(at)) throw new Error(`fake Confluence: no parent page ${at}`);
      if (at === pageId) throw new Error(`fake Confluence: page ${pageId} cannot be below itself`);
    }
  }

  private storedUser(user: FakeConfluenceUser): StoredUser {
    const given = typeof user === 'string' ? { email: user } : user;
    const email = given.email === undefined || given.email === '' ? undefined : given.email;
    const number = this.nextUserNumber++;
    const seed = email ?? given.accountId ?? given.username ?? `user-${number}`;
    const digest = createHash('sha256').update(seed).digest('hex');
    const username = given.username ?? email?.split('@')[0] ?? `user${number}`;
    return {
      email,
      accountId:
        given.accountId ?? `557058:${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 24)}`,
      username,
      userKey: digest.slice(0, 32),
      displayName: given.displayName ?? username,
    };
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const apiPath = url.pathname.startsWith(`${this.basePath}/`)
      ? url.pathname.slice(this.basePath.length)
      : undefined;
    const query = Object.fromEntries(url.searchParams);
    const answer =
      apiPath === undefined
        ? {
            status: 404,
            headers: { 'content-type': 'text/html' },
            body: '<html><body>Page not found</body></html>',
          }
        : this.answer(request, apiPath, url.searchParams);
    this.requests.push({
      method: request.method ?? '',
      url: request.url ?? '',
      apiPath: apiPath ?? url.pathname,
      query,
      headers: request.headers,
      status: answer.status,
    });
    sendBody(response, answer.status, answer.body, {
      'content-type': 'application/json;charset=UTF-8',
      ...answer.headers,
    });
  }

  private answer(request: IncomingMessage, apiPath: string, query: URLSearchParams): Answer {
    const injected = this.takeFailure(apiPath);
    if (injected !== undefined) return injected;
    if (!this.authorized(request.headers.authorization)) return this.unauthorized();
    if (request.method !== 'GET') return confluenceError(405, 'Method Not Allowed');
    const spaceMatch = /^\/rest\/api\/space\/([^/]+)$/.exec(apiPath);
    if (spaceMatch?.[1] !== undefined) return this.space(decodeURIComponent(spaceMatch[1]));
    if (apiPath === '/rest/api/content') return this.listing(query);
    const contentMatch = /^\/rest\/api\/content\/([^/]+)$/.exec(apiPath);
    if (contentMatch?.[1] !== undefined) return this.content(decodeURIComponent(contentMatch[1]), query);
    const restrictionMatch = /^\/rest\/api\/content\/([^/]+)\/restriction\/byOperation(?:\/([^/]+))?$/.exec(
      apiPath,
    );
    if (restrictionMatch?.[1] !== undefined) {
      return this.restrictions(decodeURIComponent(restrictionMatch[1]), restrictionMatch[2], query);
    }
    return confluenceError(404, `null for uri: ${this.baseUrl}${apiPath}`);
  }

  private takeFailure(apiPath: string): Answer | undefined {
    const index = this.failures.findIndex((pending) => pending.matches(apiPath));
    const pending = this.failures[index];
    if (pending === undefined) return undefined;
    pending.remaining -= 1;
    if (pending.remaining <= 0) this.failures.splice(index, 1);
    const { status, retryAfter, body } = pending.failure;
    const headers: Record<string, string> =
      retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
    if (body !== undefined) return { status, headers, body };
    const message =
      status === 429
        ? 'Rate limit exceeded'
        : status === 403
          ? 'Current user not permitted to use Confluence'
          : status >= 500
            ? 'Internal server error'
            : 'Request failed';
    return { ...confluenceError(status, message), headers };
  }

  private authorized(header: string | undefined): boolean {
    if (header === undefined) return false;
    if (this.flavour === 'datacenter') return header === `Bearer ${this.apiToken}`;
    const expected = Buffer.from(`${this.username}:${this.apiToken}`, 'utf8').toString('base64');
    return header === `Basic ${expected}`;
  }

  private unauthorized(): Answer {
    if (this.flavour === 'cloud') {
      return {
        status: 401,
        headers: { 'content-type': 'text/html;charset=UTF-8', 'www-authenticate': 'Basic realm="Protected"' },
        body: '<!DOCTYPE html><html><head><title>Unauthorized (401)</title></head><body><h1>Unauthorized</h1></body></html>',
      };
    }
    return confluenceError(401, 'This request requires authentication');
  }

  private links(self: string, extra: Record<string, string> = {}): Record<string, string> {
    return { base: this.baseUrl, context: this.basePath, self: `${this.baseUrl}${self}`, ...extra };
  }

  private space(key: string): Answer {
    const space = this.spaces.get(key);
    // Cloud and Data Center both answer 404 for a space the user may not see as for one that is not there.
    if (space === undefined) return confluenceError(404, `No space found with key : ${key}`);
    return json(200, {
      id: space.id,
      key: space.key,
      name: space.name,
      type: 'global',
      status: 'current',
      _expandable: { homepage: '', description: '', metadata: '', icon: '' },
      _links: this.links(`/rest/api/space/${encodeURIComponent(key)}`, {
        webui: this.flavour === 'cloud' ? `/spaces/${key}` : `/display/${key}`,
      }),
    });
  }

  private listing(query: URLSearchParams): Answer {
    const spaceKey = query.get('spaceKey');
    const type = query.get('type');
    const status = query.get('status');
    const expand = (query.get('expand') ?? '').split(',');
    const limit = Math.max(0, Math.min(integerParameter(query.get('limit'), 25), this.pageSize));
    const start = this.listingStart(query);
    const matching = [...this.pages.values()]
      .filter(
        (page) =>
          (spaceKey === null || page.spaceKey === spaceKey) &&
          (type === null || type === 'page') &&
          (status === null || status === 'current'),
      )
      .sort((left, right) => Number(left.id) - Number(right.id));
    const results = matching.slice(start, start + limit);
    const selfQuery = new URLSearchParams(query);
    const next =
      start + results.length < matching.length
        ? this.nextLink(query, start + results.length, limit)
        : undefined;
    return json(200, {
      results: results.map((page) => this.pageJson(page, expand, false)),
      start,
      limit,
      size: results.length,
      _links: this.links(`/rest/api/content?${selfQuery}`, next === undefined ? {} : { next }),
    });
  }

  private listingStart(query: URLSearchParams): number {
    const cursor = query.get('cursor');
    if (cursor !== null && this.flavour === 'cloud') {
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { start?: unknown };
      if (typeof decoded.start === 'number') return decoded.start;
    }
    return integerParameter(query.get('start'), 0);
  }

  private nextLink(query: URLSearchParams, start: number, limit: number): string {
    const next = new URLSearchParams();
    if (this.flavour === 'cloud') {
      next.set('next', 'true');
      next.set('cursor', Buffer.from(JSON.stringify({ start }), 'utf8').toString('base64url'));
    }
    for (const [name, value] of query)
      if (!['start', 'limit', 'cursor', 'next'].includes(name)) next.set(name, value);
    next.set('limit', String(limit));
    next.set('start', String(start));
    return `/rest/api/content?${next}`;
  }

  private content(id: string, query: URLSearchParams): Answer {
    const page = this.pages.get(id);
    if (page === undefined) return confluenceError(404, `No content found with id : ContentId{id=${id}}`);
    return json(200, this.pageJson(page, (query.get('expand') ?? '').split(','), true));
  }

  /** One operation's restriction (`read` or `update`), or with no operation both, by operation. */
  private restrictions(id: string, operation: string | undefined, query: URLSearchParams): Answer {
    const page = this.pages.get(id);
    if (page === undefined) return confluenceError(404, `No content found with id : ContentId{id=${id}}`);
    const expandParameter = query.get('expand');
    const expand = expandParameter === null ? undefined : expandParameter.split(',');
    const start = integerParameter(query.get('start'), 0);
    const limit = Math.max(0, Math.min(integerParameter(query.get('limit'), 100), this.restrictionPageSize));
    if (operation === undefined) {
      return json(200, {
        read: this.restrictionJson(page, 'read', expand, start, limit),
        update: this.restrictionJson(page, 'update', expand, start, limit),
        _links: this.links(`/rest/api/content/${id}/restriction/byOperation`),
      });
    }
    if (operation !== 'read' && operation !== 'update') {
      return confluenceError(400, `Operation key is not valid: ${operation}`);
    }
    return json(200, {
      ...this.restrictionJson(page, operation, expand, start, limit),
      _links: this.links(`/rest/api/content/${id}/restriction/byOperation/${operation}`),
    });
  }

  /** The fake keeps read restrictions only: `update` names no one. */
  private restrictionJson(
    page: StoredPage,
    operation: 'read' | 'update',
    expand: readonly string[] | undefined,
    start: number,
    limit: number,
  ): Record<string, unknown> {
    const users = operation === 'read' ? page.readUsers : [];
    const groups = operation === 'read' ? page.readGroups : [];
    const self = `/rest/api/content/${page.id}/restriction/byOperation/${operation}`;
    const list = (results: readonly Record<string, unknown>[]) => {
      const slice = results.slice(start, start + limit);
      return { results: slice, start, limit, size: slice.length };
    };
    const restrictions: Record<string, unknown> = {};
    const expandable: Record<string, string> = {};
    if (expand === undefined || expand.includes('restrictions.user'))
      restrictions.user = list(users.map((user) => this.userJson(user)));
    else expandable.user = `${self}/user`;
    if (expand === undefined || expand.includes('restrictions.group'))
      restrictions.group = list(groups.map((name) => this.groupJson(name)));
    else expandable.group = `${self}/group`;
    if (Object.keys(expandable).length > 0) restrictions._expandable = expandable;
    return {
      operation,
      restrictions,
      _expandable: { content: `/rest/api/content/${page.id}` },
      _links: { self: `${this.baseUrl}${self}` },
    };
  }

  private userJson(user: StoredUser): Record<string, unknown> {
    const profilePicture = {
      path: '/images/icons/profilepics/default.svg',
      width: 48,
      height: 48,
      isDefault: true,
    };
    if (this.flavour === 'cloud') {
      return {
        type: 'known',
        accountId: user.accountId,
        accountType: 'atlassian',
        email: user.email ?? '',
        publicName: user.displayName,
        profilePicture,
        displayName: user.displayName,
        isExternalCollaborator: false,
        _expandable: { operations: '', personalSpace: '' },
        _links: { self: `${this.baseUrl}/rest/api/user?accountId=${encodeURIComponent(user.accountId)}` },
      };
    }
    return {
      type: 'known',
      username: user.username,
      userKey: user.userKey,
      profilePicture,
      displayName: user.displayName,
      ...(user.email === undefined ? {} : { email: user.email }),
      _expandable: { status: '' },
      _links: { self: `${this.baseUrl}/rest/api/user?key=${user.userKey}` },
    };
  }

  private groupJson(name: string): Record<string, unknown> {
    const self = `${this.baseUrl}/rest/api/group/${encodeURIComponent(name)}`;
    if (this.flavour === 'datacenter') return { type: 'group', name, _links: { self } };
    const digest = createHash('sha256').update(name).digest('hex');
    const id = `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
    return { type: 'group', name, id, _links: { self } };
  }

  /** The page's ancestors, root first, as `expand=ancestors` lists them. */
  private ancestorsOf(page: StoredPage): StoredPage[] {
    const ancestors: StoredPage[] = [];
    for (let at = page.parentId; at !== undefined; ) {
      const ancestor = this.pages.get(at);
      if (ancestor === undefined) break;
      ancestors.unshift(ancestor);
      at = ancestor.parentId;
    }
    return ancestors;
  }

  private pageJson(page: StoredPage, expand: readonly string[], withBase: boolean): Record<string, unknown> {
    const titleInPath = encodeURIComponent(page.title).replace(/%20/g, '+');
    const webui =
      this.flavour === 'cloud'
        ? `/spaces/${page.spaceKey}/pages/${page.id}/${titleInPath}`
        : `/display/${page.spaceKey}/${titleInPath}`;
    const self = `/rest/api/content/${page.id}`;
    const expandable: Record<string, string> = {
      space: `/rest/api/space/${page.spaceKey}`,
      history: `/rest/api/content/${page.id}/history`,
    };
    const json: Record<string, unknown> = { id: page.id, type: 'page', status: 'current', title: page.title };
    if (expand.includes('version')) {
      json.version = {
        by: { type: 'known', displayName: 'Indexer' },
        when: page.when,
        number: page.version,
        minorEdit: false,
      };
    } else expandable.version = '';
    if (expand.includes('body.storage')) {
      json.body = {
        storage: { value: page.storageBody, representation: 'storage', _expandable: { content: self } },
        _expandable: { view: '', export_view: '', styled_view: '', anonymous_export_view: '' },
      };
    } else expandable.body = '';
    if (expand.includes('ancestors')) {
      json.ancestors = this.ancestorsOf(page).map((ancestor) => this.pageJson(ancestor, [], false));
    } else expandable.ancestors = '';
    json._expandable = expandable;
    json._links = withBase
      ? this.links(self, { webui, tinyui: `/x/${page.id}` })
      : { webui, tinyui: `/x/${page.id}`, self: `${this.baseUrl}${self}` };
    return json;
  }
}

function json(status: number, body: unknown): Answer {
  return { status, body: JSON.stringify(body) };
}

function confluenceError(status: number, message: string): Answer {
  return json(status, {
    statusCode: status,
    data: { authorized: status !== 401 && status !== 403, valid: true, errors: [], successful: false },
    message,
  });
}

function integerParameter(value: string | null, fallback: number): number {
  const parsed = value === null ? Number.NaN : Number.parseInt(value, 10);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}
