import { SourceError } from '../source-error.js';
import type { WikiClient, WikiPage, WikiPageList, WikiSite, WikiSpace } from './wiki-client.js';

interface StoredPage {
  readonly id: string;
  readonly spaceKey: string;
  readonly title: string;
  readonly storageBody: string;
  readonly version: number;
  readonly lastModified: string;
}

/**
 * A `WikiClient` in memory, for tests of what uses the port (indexing jobs): the same errors as
 * `ConfluenceClient`, no network. Any site is served; `acceptToken` makes others `unauthorized`.
 */
export class InMemoryWiki implements WikiClient {
  /** Every call, in order: `getSpace DOC`, `listPages DOC 0`, `getPage 3`. */
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

  /** Creates a page, or stores a new version of page `id`. */
  putPage(
    spaceKey: string,
    page: { id?: string; title: string; storageBody: string; lastModified?: string },
  ): { id: string; version: number } {
    if (!this.spaces.has(spaceKey)) throw new Error(`in-memory wiki: no space ${spaceKey}; addSpace first`);
    const existing = page.id === undefined ? undefined : this.pages.get(page.id);
    const id = existing?.id ?? page.id ?? String(this.nextId++);
    const version = (existing?.version ?? 0) + 1;
    this.pages.set(id, {
      id,
      spaceKey,
      title: page.title,
      storageBody: page.storageBody,
      version,
      lastModified: page.lastModified ?? new Date().toISOString(),
    });
    return { id, version };
  }

  removePage(id: string): void {
    this.pages.delete(id);
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
      pages: slice.map(({ id, title, version }) => ({ id, title, version, url: this.pageUrl(id) })),
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
