/** Where and how to reach one Confluence site. */
export interface WikiSite {
  /** Cloud: `https://<site>.atlassian.net/wiki`; Data Center: the site root. No trailing slash. */
  readonly baseUrl: string;
  /** `basic`: Cloud, e-mail + API token. `bearer`: Data Center personal access token. */
  readonly authScheme: 'basic' | 'bearer';
  /** The e-mail address for `basic`; unused for `bearer`. */
  readonly username: string;
  readonly apiToken: string;
}

export interface WikiSpace {
  readonly key: string;
  readonly name: string;
}

/** A current page as the space listing reports it: enough to tell whether it changed. */
export interface WikiPageSummary {
  readonly id: string;
  readonly title: string;
  /** Confluence's version number; it goes up with every edit. */
  readonly version: number;
  /** Absolute link to the page in the wiki's web UI. */
  readonly url: string;
}

export interface WikiPage extends WikiPageSummary {
  /** The body in Confluence storage format (XHTML with `ac:` macros). */
  readonly storageBody: string;
  /** RFC 3339 time of the version, when the wiki says. */
  readonly lastModified: string | undefined;
}

export interface WikiPageList {
  readonly pages: readonly WikiPageSummary[];
  /** Pass back to get the next page of results; undefined on the last. */
  readonly next: string | undefined;
}

/**
 * Confluence's REST API (Cloud and Data Center). Every method throws `SourceError`: 401
 * `unauthorized` (rejected credentials), 403 `permission_denied`, 404 `not_found` (unknown space
 * or page), 429 `rate_limited` with `retryAfterSeconds`, 5xx `unavailable`, `refused` when the
 * outbound policy forbids the address.
 */
export interface WikiClient {
  getSpace(site: WikiSite, spaceKey: string, signal?: AbortSignal): Promise<WikiSpace>;
  /** One page of the space's current pages (type page, status current), without bodies. */
  listPages(
    site: WikiSite,
    spaceKey: string,
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<WikiPageList>;
  getPage(site: WikiSite, pageId: string, signal?: AbortSignal): Promise<WikiPage>;
}
