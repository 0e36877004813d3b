import type { GuardedFetch, GuardedResponse } from '../http/guarded-fetch.js';
import { headerValue, parseRetryAfter } from '../http/headers.js';
import { SourceError } from '../source-error.js';
import {
  readRestrictionsOfPage,
  type WikiClient,
  type WikiPage,
  type WikiPageList,
  type WikiPageSummary,
  type WikiReadRestriction,
  type WikiRestrictedUser,
  type WikiRestrictionOptions,
  type WikiSite,
  type WikiSpace,
} from './wiki-client.js';

export interface ConfluenceClientOptions {
  /**
   * The outbound client: its policy (allowed hosts, private network, WIKI_BASE_URL's origin as
   * trusted) and limits (time, response size) apply to every request.
   */
  readonly http: GuardedFetch;
  /** Pages asked for per listing request; the wiki may answer fewer. Default 50. */
  readonly pageSize?: number;
  /** Users (and groups) asked for per restriction request; the wiki may answer fewer. Default 100. */
  readonly restrictionPageSize?: number;
}

/** What a request was about, for messages: a 404 names the space key or page id. */
type Subject =
  | { readonly kind: 'space'; readonly key: string }
  | { readonly kind: 'page'; readonly id: string }
  | { readonly kind: 'restrictions'; readonly id: string }
  | { readonly kind: 'listing'; readonly spaceKey: string };

const API_PREFIX = '/rest/api/';

/** Requests for one content's restriction at most: a list longer than this many pages is not believed. */
const MAX_RESTRICTION_REQUESTS = 1_000;

/**
 * Confluence's REST API v1, which Cloud (`https://<site>.atlassian.net/wiki`) and Data Center
 * (`https://host[/context]`) both serve. Listing cursors are paths below the site's base
 * (`/rest/api/content?…`): requests never leave the configured site, whatever links the wiki sends.
 */
export class ConfluenceClient implements WikiClient {
  private readonly pageSize: number;
  private readonly restrictionPageSize: number;

  constructor(private readonly options: ConfluenceClientOptions) {
    this.pageSize = options.pageSize ?? 50;
    this.restrictionPageSize = options.restrictionPageSize ?? 100;
  }

  async getSpace(site: WikiSite, spaceKey: string, signal?: AbortSignal): Promise<WikiSpace> {
    const subject: Subject = { kind: 'space', key: spaceKey };
    const body = await this.getJson(site, `/rest/api/space/${encodeURIComponent(spaceKey)}`, subject, signal);
    const space = record(body);
    return { key: stringField(space, 'key') ?? spaceKey, name: requiredString(space, 'name', subject) };
  }

  async listPages(
    site: WikiSite,
    spaceKey: string,
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<WikiPageList> {
    const subject: Subject = { kind: 'listing', spaceKey };
    const root = siteRoot(site);
    const path =
      cursor ??
      `/rest/api/content?${new URLSearchParams({
        spaceKey,
        type: 'page',
        status: 'current',
        expand: 'version,ancestors',
        limit: String(this.pageSize),
        start: '0',
      })}`;
    if (!path.startsWith(API_PREFIX))
      throw new SourceError('bad_response', 'The wiki listing cursor is not valid');
    const body = record(await this.getJson(site, path, subject, signal));
    const results = body.results;
    if (!Array.isArray(results)) throw unreadable(subject, 'it has no results');
    const links = record(body._links);
    const linksBase = stringField(links, 'base');
    const pages = results.map((item): WikiPageSummary => summary(record(item), linksBase, root, subject));
    return { pages, next: nextCursor(body, links, path, root) };
  }

  async getPage(site: WikiSite, pageId: string, signal?: AbortSignal): Promise<WikiPage> {
    const subject: Subject = { kind: 'page', id: pageId };
    const root = siteRoot(site);
    const path = `/rest/api/content/${encodeURIComponent(pageId)}?expand=body.storage,version`;
    const content = record(await this.getJson(site, path, subject, signal));
    const storage = record(record(content.body).storage);
    const storageBody = storage.value;
    if (typeof storageBody !== 'string') throw unreadable(subject, 'it has no body.storage.value');
    return {
      ...summary(content, stringField(record(content._links), 'base'), root, subject),
      storageBody,
      lastModified: stringField(record(content.version), 'when'),
    };
  }

  /**
   * `GET /rest/api/content/{id}?expand=ancestors` for the ancestors (root first) unless given,
   * then for each level not in the cache `GET /rest/api/content/{id}/restriction/byOperation/read`
   * with its users and groups expanded, a page of them at a time.
   */
  getReadRestrictions(
    site: WikiSite,
    pageId: string,
    signal?: AbortSignal,
    options: WikiRestrictionOptions = {},
  ): Promise<readonly WikiReadRestriction[]> {
    return readRestrictionsOfPage(
      pageId,
      options,
      () => this.ancestorIds(site, pageId, signal),
      (contentId) => this.readRestriction(site, contentId, signal),
    );
  }

  private async ancestorIds(
    site: WikiSite,
    pageId: string,
    signal: AbortSignal | undefined,
  ): Promise<string[]> {
    const subject: Subject = { kind: 'page', id: pageId };
    const path = `/rest/api/content/${encodeURIComponent(pageId)}?expand=ancestors`;
    const ancestors = ancestorIdsOf(record(await this.getJson(site, path, subject, signal)), subject);
    if (ancestors === undefined) throw unreadable(subject, 'it has no ancestors');
    return ancestors;
  }

  /** One content's own read restriction, every page of its users and groups. */
  private async readRestriction(
    site: WikiSite,
    contentId: string,
    signal: AbortSignal | undefined,
  ): Promise<WikiReadRestriction> {
    const subject: Subject = { kind: 'restrictions', id: contentId };
    const users: WikiRestrictedUser[] = [];
    const groups: string[] = [];
    let start = 0;
    for (let request = 0; request < MAX_RESTRICTION_REQUESTS; request += 1) {
      const query = new URLSearchParams({
        expand: 'restrictions.user,restrictions.group',
        start: String(start),
        limit: String(this.restrictionPageSize),
      });
      const path = `/rest/api/content/${encodeURIComponent(contentId)}/restriction/byOperation/read?${query}`;
      const body = record(await this.getJson(site, path, subject, signal));
      const operation = body.operation;
      if (operation !== undefined && operation !== 'read') {
        throw unreadable(subject, `it describes the operation ${String(operation)}`);
      }
      if (!isRecord(body.restrictions)) throw unreadable(subject, 'it has no restrictions');
      const userList = restrictionList(body.restrictions, 'user', subject);
      const groupList = restrictionList(body.restrictions, 'group', subject);
      for (const user of userList.results) users.push(restrictedUser(record(user)));
      for (const group of groupList.results) {
        const name = stringField(record(group), 'name');
        if (name === undefined || name === '') throw unreadable(subject, 'a group has no name');
        groups.push(name);
      }
      // Users and groups share `start` and `limit`: while either list came back full there may
      // be more, from the shortest full one on (a list the wiki cut shorter than asked included).
      const full = [userList, groupList].filter(
        (list) => list.results.length > 0 && list.results.length >= (list.limit ?? this.restrictionPageSize),
      );
      if (full.length === 0) return { contentId, users, groups };
      start += Math.min(...full.map((list) => list.results.length));
    }
    throw unreadable(subject, 'its lists of users and groups never end');
  }

  /** GETs `path` below the site's base with the site's credentials; any answer but 200 throws. */
  private async getJson(
    site: WikiSite,
    path: string,
    subject: Subject,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const root = siteRoot(site);
    const url = new URL(`${root.href}${path}`);
    // Dot segments in a cursor would climb out of the API below the site's base.
    if (!url.pathname.startsWith(`${root.pathname}${API_PREFIX}`) || url.origin !== root.origin) {
      throw new SourceError('bad_response', 'The wiki listing cursor is not valid');
    }
    const response = await this.options.http.request(url, {
      headers: {
        accept: 'application/json',
        authorization: authorization(site),
        'user-agent': 'knowledge-answers',
      },
      signal,
    });
    if (response.status === 200) return response.json();
    throw failureOf(response, site, subject);
  }
}

/** The configured base: origin and path without trailing slash; `href` is the two joined. */
interface SiteRoot {
  readonly origin: string;
  readonly pathname: string;
  readonly href: string;
}

/** The base URL without trailing slash, query or fragment; `refused` when it is not an http(s) URL. */
function siteRoot(site: WikiSite): SiteRoot {
  let url: URL;
  try {
    url = new URL(site.baseUrl);
  } catch {
    throw new SourceError('refused', 'Refused: the wiki address is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SourceError('refused', 'Refused: the wiki must be reached over http or https');
  }
  const pathname = withoutTrailingSlashes(url.pathname);
  return { origin: url.origin, pathname, href: `${url.origin}${pathname}` };
}

function authorization(site: WikiSite): string {
  if (site.authScheme === 'bearer') return `Bearer ${site.apiToken}`;
  return `Basic ${Buffer.from(`${site.username}:${site.apiToken}`, 'utf8').toString('base64')}`;
}

/** A content's id, which Confluence sends as a string (numbers are taken too); undefined when none. */
function idOf(content: Record<string, unknown>): string | undefined {
  const rawId = content.id;
  const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : undefined;
  return id === '' ? undefined : id;
}

/** The content's `ancestors` as ids, root first; undefined when the answer has none. */
function ancestorIdsOf(content: Record<string, unknown>, subject: Subject): string[] | undefined {
  const { ancestors } = content;
  if (!Array.isArray(ancestors)) return undefined;
  return ancestors.map((ancestor) => {
    const id = idOf(record(ancestor));
    if (id === undefined) throw unreadable(subject, 'an ancestor has no id');
    return id;
  });
}

/** A restriction's `user` or `group` list: absent is empty, unless the wiki left it unexpanded. */
function restrictionList(
  restrictions: Record<string, unknown>,
  name: 'user' | 'group',
  subject: Subject,
): { readonly results: readonly unknown[]; readonly limit: number | undefined } {
  const list = restrictions[name];
  if (list === undefined || list === null) {
    if (record(restrictions._expandable)[name] !== undefined) {
      throw unreadable(subject, `its ${name} restrictions were not expanded`);
    }
    return { results: [], limit: undefined };
  }
  const { results, limit } = record(list);
  if (!Array.isArray(results)) throw unreadable(subject, `its ${name} restrictions have no results`);
  return { results, limit: typeof limit === 'number' && limit > 0 ? limit : undefined };
}

/** Cloud: `{accountId, email}` (`email` empty when hidden); Data Center: `{username, userKey}`. */
function restrictedUser(user: Record<string, unknown>): WikiRestrictedUser {
  const present = (name: string) => {
    const value = stringField(user, name)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    id: present('accountId') ?? present('username') ?? present('userKey'),
    email: present('email'),
  };
}

function summary(
  content: Record<string, unknown>,
  linksBase: string | undefined,
  root: SiteRoot,
  subject: Subject,
): WikiPageSummary {
  const id = idOf(content);
  if (id === undefined) throw unreadable(subject, 'a page has no id');
  const version = record(content.version).number;
  if (typeof version !== 'number') throw unreadable(subject, `page ${id} has no version number`);
  const ancestorIds = ancestorIdsOf(content, subject);
  return {
    id,
    title: requiredString(content, 'title', subject),
    version,
    url: pageUrl(id, stringField(record(content._links), 'webui'), linksBase, root),
    ...(ancestorIds === undefined ? {} : { ancestorIds }),
  };
}

/**
 * `_links.base` + `_links.webui`: the address the wiki itself publishes (a Data Center behind a
 * proxy knows its public name better than the address we reach it at); else the configured base.
 */
function pageUrl(
  id: string,
  webui: string | undefined,
  linksBase: string | undefined,
  root: SiteRoot,
): string {
  const base =
    linksBase !== undefined && isHttpUrl(linksBase) ? withoutTrailingSlashes(linksBase) : root.href;
  if (webui === undefined) return `${base}/pages/viewpage.action?pageId=${encodeURIComponent(id)}`;
  if (isHttpUrl(webui)) return webui;
  return `${base}${webui.startsWith('/') ? '' : '/'}${webui}`;
}

/**
 * Where the next listing starts: `_links.next` when the wiki gives one (relative to `_links.base`,
 * though some servers include the context path), else, when the answer was full, the same query
 * from `start + size`; none when the answer was short.
 */
function nextCursor(
  body: Record<string, unknown>,
  links: Record<string, unknown>,
  currentPath: string,
  root: SiteRoot,
): string | undefined {
  const next = stringField(links, 'next');
  if (next !== undefined && next !== '') return belowBase(next, stringField(links, 'context'), root);
  const size = body.size;
  const limit = body.limit;
  const start = body.start;
  if (typeof size !== 'number' || typeof limit !== 'number' || size === 0 || size < limit) return undefined;
  const current = new URL(currentPath, 'http://cursor.invalid');
  current.searchParams.set('start', String((typeof start === 'number' ? start : 0) + size));
  current.searchParams.delete('cursor');
  return `${current.pathname}${current.search}`;
}

function belowBase(link: string, context: string | undefined, root: SiteRoot): string {
  let path = link;
  if (isHttpUrl(link)) {
    const url = new URL(link);
    // A link to another origin would carry the credentials away from the configured site.
    if (url.origin !== root.origin)
      throw new SourceError('bad_response', 'The wiki listing linked to another site');
    path = `${url.pathname}${url.search}`;
  }
  for (const prefix of [root.pathname, context]) {
    if (
      prefix !== undefined &&
      prefix !== '' &&
      prefix !== '/' &&
      path.startsWith(`${prefix}${API_PREFIX}`)
    ) {
      path = path.slice(prefix.length);
      break;
    }
  }
  if (!path.startsWith(API_PREFIX))
    throw new SourceError('bad_response', 'The wiki listing sent an unusable next link');
  return path;
}

function failureOf(response: GuardedResponse, site: WikiSite, subject: Subject): SourceError {
  const { status } = response;
  const said = wikiMessage(response, site);
  if (status === 401) {
    const credentials =
      site.authScheme === 'basic' ? 'the e-mail address and API token' : 'the personal access token';
    return new SourceError(
      'unauthorized',
      `The wiki rejected the credentials (HTTP 401): check ${credentials}`,
      {
        status,
      },
    );
  }
  if (status === 403) {
    return new SourceError(
      'permission_denied',
      `The wiki account may not read ${describe(subject)} (HTTP 403)${said}`,
      { status },
    );
  }
  if (status === 404 || status === 410) {
    const what =
      subject.kind === 'page' || subject.kind === 'restrictions'
        ? `The wiki has no current page with id ${subject.id}`
        : `The wiki has no space with key "${subject.kind === 'space' ? subject.key : subject.spaceKey}"`;
    // Cloud answers 404, not 403, for a space the account cannot see.
    return new SourceError('not_found', `${what}, or the account cannot see it (HTTP ${status})`, { status });
  }
  const retryAfterSeconds = parseRetryAfter(headerValue(response.headers, 'retry-after'));
  const retry = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
  if (status === 429) {
    return new SourceError('rate_limited', `The wiki is rate limiting requests (HTTP 429)`, {
      status,
      ...retry,
    });
  }
  if (status >= 500) {
    return new SourceError('unavailable', `The wiki failed to answer (HTTP ${status})${said}`, {
      status,
      ...retry,
    });
  }
  if (status >= 300 && status < 400) {
    const location = response.headers.location;
    return new SourceError(
      'bad_response',
      `The wiki answered with a redirect (HTTP ${status})${
        location === undefined ? '' : ` to ${safeText(location, site)}`
      }, which is not followed: set the wiki address to where it leads`,
      { status },
    );
  }
  return new SourceError(
    'bad_response',
    `The wiki refused the request for ${describe(subject)} (HTTP ${status})${said}`,
    {
      status,
    },
  );
}

function describe(subject: Subject): string {
  switch (subject.kind) {
    case 'space':
      return `space "${subject.key}"`;
    case 'listing':
      return `the pages of space "${subject.spaceKey}"`;
    case 'page':
      return `page ${subject.id}`;
    case 'restrictions':
      return `the read restrictions of page ${subject.id}`;
  }
}

/** The wiki's own `message`, as `: …`, when its error body has one. */
function wikiMessage(response: GuardedResponse, site: WikiSite): string {
  let body: unknown;
  try {
    body = JSON.parse(response.text());
  } catch {
    return '';
  }
  const message = stringField(record(body), 'message');
  return message === undefined || message === '' ? '' : `: ${safeText(message, site)}`;
}

/** Text from the wiki, short, on one line, with the credentials cut out should it echo them. */
function safeText(text: string, site: WikiSite): string {
  let safe = text;
  const secrets = [
    site.apiToken,
    Buffer.from(`${site.username}:${site.apiToken}`, 'utf8').toString('base64'),
  ];
  for (const secret of secrets) if (secret !== '') safe = safe.split(secret).join('[redacted]');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  safe = safe.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return safe.length > 200 ? `${safe.slice(0, 200)}…` : safe;
}

function unreadable(subject: Subject, why: string): SourceError {
  return new SourceError(
    'bad_response',
    `The wiki's answer about ${describe(subject)} is unreadable: ${why}`,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function stringField(object: Record<string, unknown>, name: string): string | undefined {
  const value = object[name];
  return typeof value === 'string' ? value : undefined;
}

function requiredString(object: Record<string, unknown>, name: string, subject: Subject): string {
  const value = stringField(object, name);
  if (value === undefined) throw unreadable(subject, `it has no ${name}`);
  return value;
}

function isHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text) && URL.canParse(text);
}

/**
 * The text without its trailing slashes, by a scan from the end: `/\/+$/` is quadratic on a long
 * run of slashes inside the text, and `_links.base` is whatever the wiki server sends.
 */
function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return text.slice(0, end);
}
