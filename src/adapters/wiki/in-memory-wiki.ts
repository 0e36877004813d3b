import { SourceError } from '../source-error.js';
import {
  readRestrictionsOfPage,
  type WikiClient,
  type WikiPage,
  type WikiPageList,
  type WikiReadRestriction,
  type WikiRestrictedUser,
  type WikiRestrictionOptions,
  type WikiSite,
  type WikiSpace,
} from './wiki-client.js';

/** Who a page's read restriction names: users by e-mail (or as the wiki shows them), group names. */
export interface InMemoryReadRestrictions {
  readonly users?: readonly (string | WikiRestrictedUser)[];
  readonly groups?: readonly string[];
}

interface StoredPage {
  readonly id: string;
  readonly spaceKey: string;
  readonly title: string;
  readonly storageBody: string;
  readonly version: number;
  readonly lastModified: string;
  readonly parentId: string | undefined;
  readonly users: readonly WikiRestrictedUser[];
  readonly groups: readonly string[];
}

/**
 * A `WikiClient` in memory, for tests of what uses the port (indexing jobs): the same errors as
 * `ConfluenceClient`, no network. Any site is served; `acceptToken` makes others `unauthorized`.
 */
export class InMemoryWiki implements WikiClient {
  /**
   * Every call, in order: `getSpace DOC`, `listPages DOC 0`, `getPage 3`, `getReadRestrictions 3`
   * followed by `ancestors 3` when it looked them up and `readRestriction <id>` for each level it
   * did not find in its cache.
   */
  readonly calls: string[] = [];

  private readonly spaces = new Map<string, WikiSpace>();
  private readonly pages = new Map<string, StoredPage>();
  private readonly failures: { method: keyof WikiClient; error: SourceError }[] = [];
  private acceptedToken: string | undefined;
  private pageSize = 50;
  private nextId = 1;

  constructor(private readonly baseUrl = 'https://wiki.example.test/wiki') {}

  /** Only this token is accepted from now on (any is by default). */
  acceptToken(apiToken: string): void {
    this.acceptedToken = apiToken;
  }

  addSpace(key: string, name: string): void {
    this.spaces.set(key, { key, name });
  }

  /**
   * Creates a page, or stores a new version of page `id`. `parentId` places it below another page
   * (kept from the previous version when not given); `readRestrictions` replaces its own (kept too).
   */
  putPage(
    spaceKey: string,
    page: {
      id?: string;
      title: string;
      storageBody: string;
      lastModified?: string;
      parentId?: string;
      readRestrictions?: InMemoryReadRestrictions;
    },
  ): { id: string; version: number } {
    if (!this.spaces.has(spaceKey)) throw new Error(`in-memory wiki: no space ${spaceKey}; addSpace first`);
    const existing = page.id === undefined ? undefined : this.pages.get(page.id);
    const id = existing?.id ?? page.id ?? String(this.nextId++);
    const version = (existing?.version ?? 0) + 1;
    const parentId = page.parentId ?? existing?.parentId;
    this.checkParent(id, parentId);
    this.pages.set(id, {
      id,
      spaceKey,
      title: page.title,
      storageBody: page.storageBody,
      version,
      lastModified: page.lastModified ?? new Date().toISOString(),
      parentId,
      ...(page.readRestrictions === undefined
        ? { users: existing?.users ?? [], groups: existing?.groups ?? [] }
        : restrictionOf(page.readRestrictions)),
    });
    return { id, version };
  }

  /** Replaces the page's own read restriction (none named: unrestricted); its version stays. */
  setReadRestrictions(pageId: string, restrictions: InMemoryReadRestrictions): void {
    const page = this.existingPage(pageId);
    this.pages.set(pageId, { ...page, ...restrictionOf(restrictions) });
  }

  /** Moves the page below `parentId` (undefined: to the top of its space); its version stays. */
  setParent(pageId: string, parentId: string | undefined): void {
    const page = this.existingPage(pageId);
    this.checkParent(pageId, parentId);
    this.pages.set(pageId, { ...page, parentId });
  }

  /** Deletes a page; its children move up to its parent, as Confluence does. */
  removePage(id: string): void {
    const removed = this.pages.get(id);
    this.pages.delete(id);
    for (const page of this.pages.values()) {
      if (page.parentId === id) this.pages.set(page.id, { ...page, parentId: removed?.parentId });
    }
  }

  setPageSize(size: number): void {
    this.pageSize = size;
  }

  /** The next call of `method` throws `error` instead of answering. */
  failNext(method: keyof WikiClient, error: SourceError): void {
    this.failures.push({ method, error });
  }

  async getSpace(site: WikiSite, spaceKey: string, signal?: AbortSignal): Promise<WikiSpace> {
    this.enter('getSpace', `getSpace ${spaceKey}`, site, signal);
    const space = this.spaces.get(spaceKey);
    if (space === undefined) {
      throw new SourceError('not_found', `The wiki has no space with key "${spaceKey}"`, { status: 404 });
    }
    return space;
  }

  async listPages(
    site: WikiSite,
    spaceKey: string,
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<WikiPageList> {
    const start = cursor === undefined ? 0 : Number(cursor);
    this.enter('listPages', `listPages ${spaceKey} ${start}`, site, signal);
    const matching = [...this.pages.values()]
      .filter((page) => page.spaceKey === spaceKey)
      .sort((left, right) => Number(left.id) - Number(right.id));
    const slice = matching.slice(start, start + this.pageSize);
    return {
      pages: slice.map(({ id, title, version }) => ({
        id,
        title,
        version,
        url: this.pageUrl(id),
        ancestorIds: this.ancestorsOf(id),
      })),
      next: start + slice.length < matching.length ? String(start + slice.length) : undefined,
    };
  }

  async getPage(site: WikiSite, pageId: string, signal?: AbortSignal): Promise<WikiPage> {
    this.enter('getPage', `getPage ${pageId}`, site, signal);
    const page = this.pages.get(pageId);
    if (page === undefined) {
      throw new SourceError('not_found', `The wiki has no current page with id ${pageId}`, { status: 404 });
    }
    const { id, title, version, storageBody, lastModified } = page;
    return { id, title, version, storageBody, lastModified, url: this.pageUrl(id) };
  }

  async getReadRestrictions(
    site: WikiSite,
    pageId: string,
    signal?: AbortSignal,
    options: WikiRestrictionOptions = {},
  ): Promise<readonly WikiReadRestriction[]> {
    this.enter('getReadRestrictions', `getReadRestrictions ${pageId}`, site, signal);
    return readRestrictionsOfPage(
      pageId,
      options,
      async () => {
        this.calls.push(`ancestors ${pageId}`);
        if (!this.pages.has(pageId)) throw notFound(pageId);
        return this.ancestorsOf(pageId);
      },
      async (contentId) => {
        signal?.throwIfAborted();
        this.calls.push(`readRestriction ${contentId}`);
        const level = this.pages.get(contentId);
        if (level === undefined) throw notFound(contentId);
        return { contentId, users: level.users, groups: level.groups };
      },
    );
  }

  /** The page's ancestors' ids, root first. */
  private ancestorsOf(pageId: string): string[] {
    const ancestors: string[] = [];
    for (let at = this.pages.get(pageId)?.parentId; at !== undefined; at = this.pages.get(at)?.parentId) {
      ancestors.unshift(at);
    }
    return ancestors;
  }

  private existingPage(pageId: string): StoredPage {
    const page = this.pages.get(pageId);
    if (page === undefined) throw new Error(`in-memory wiki: no page ${pageId}`);
    return page;
  }

  /** A parent must exist and must not be the page itself or below it. */
  private checkParent(pageId: string, parentId: string | undefined): void {
    for (let at = parentId; at !== undefined; at = this.pages.get(at)?.parentId) {
      if (!this.pages.has(at)) throw new Error(`in-memory wiki: no parent page ${at}`);
      if (at === pageId) throw new Error(`in-memory wiki: page ${pageId} cannot be below itself`);
    }
  }

  private enter(
    method: keyof WikiClient,
    call: string,
    site: WikiSite,
    signal: AbortSignal | undefined,
  ): void {
    signal?.throwIfAborted();
    this.calls.push(call);
    const index = this.failures.findIndex((failure) => failure.method === method);
    const failure = this.failures[index];
    if (failure !== undefined) {
      this.failures.splice(index, 1);
      throw failure.error;
    }
    if (this.acceptedToken !== undefined && site.apiToken !== this.acceptedToken) {
      throw new SourceError('unauthorized', 'The wiki rejected the credentials (HTTP 401)', { status: 401 });
    }
  }

  private pageUrl(id: string): string {
    return `${this.baseUrl}/pages/viewpage.action?pageId=${id}`;
  }
}

function restrictionOf(restrictions: InMemoryReadRestrictions): Pick<StoredPage, 'users' | 'groups'> {
  return {
    users: (restrictions.users ?? []).map((user) =>
      typeof user === 'string' ? { id: user, email: user } : user,
    ),
    groups: [...(restrictions.groups ?? [])],
  };
}

function notFound(pageId: string): SourceError {
  return new SourceError('not_found', `The wiki has no current page with id ${pageId}`, { status: 404 });
}
