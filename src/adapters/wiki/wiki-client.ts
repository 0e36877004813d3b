import { SourceError } from '../source-error.js';

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
  /**
   * Its ancestors' ids, root first (empty at the top of the space), when the answer carried them
   * (the listing asks for them); undefined when unknown.
   */
  readonly ancestorIds?: readonly string[];
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

/** A user a read restriction names. */
export interface WikiRestrictedUser {
  /** Cloud's `accountId`, Data Center's `username` (else `userKey`): tells users apart, never matched. */
  readonly id: string | undefined;
  /**
   * The address as the wiki shows it: Cloud hides it by the user's privacy setting (an empty
   * `email`), Data Center seldom sends one. A user without one matches no member.
   */
  readonly email: string | undefined;
}

/**
 * The read ("view") restriction set on one piece of content: the page itself or one of its
 * ancestors. No user and no group: this level restricts nothing. A restricted level lets in only
 * the users and the members of the groups it names, and a reader must pass every restricted level.
 */
export interface WikiReadRestriction {
  readonly contentId: string;
  readonly users: readonly WikiRestrictedUser[];
  /** Group names, as the wiki spells them. */
  readonly groups: readonly string[];
}

/**
 * Restrictions already asked for, by content id, within one sync of one site: the parent's is
 * read once for all its children. Dropped when the job ends (restrictions change at any time).
 */
export type WikiRestrictionCache = Map<string, Promise<WikiReadRestriction>>;

export interface WikiRestrictionOptions {
  /**
   * The page's ancestors as a listing gave them (`WikiPageSummary.ancestorIds`): not asked for
   * again, unless one of them is gone by now.
   */
  readonly ancestorIds?: readonly string[];
  /** Levels found here are not read again; those read are added. */
  readonly cache?: WikiRestrictionCache;
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
  /**
   * The page's read restrictions and its ancestors' (Confluence applies an ancestor's view
   * restriction to everything below it), root first, the page's own last: one entry per level,
   * restricted or not. The ancestors are asked for unless `options.ancestorIds` gives them; the
   * restrictions of levels in `options.cache` are not read again.
   */
  getReadRestrictions(
    site: WikiSite,
    pageId: string,
    signal?: AbortSignal,
    options?: WikiRestrictionOptions,
  ): Promise<readonly WikiReadRestriction[]>;
}

/**
 * `getReadRestrictions` from its two parts, for the implementations: the given ancestors, else
 * (or when one of them is no longer there: moved, deleted) `currentAncestors()`, then each
 * level's restriction through the cache.
 */
export async function readRestrictionsOfPage(
  pageId: string,
  options: WikiRestrictionOptions,
  currentAncestors: () => Promise<readonly string[]>,
  read: (contentId: string) => Promise<WikiReadRestriction>,
): Promise<WikiReadRestriction[]> {
  const { ancestorIds, cache } = options;
  if (ancestorIds !== undefined) {
    try {
      return await restrictionLevels([...ancestorIds, pageId], cache, read);
    } catch (error) {
      if (!(ancestorIds.length > 0 && error instanceof SourceError && error.failure === 'not_found'))
        throw error;
    }
  }
  return restrictionLevels([...(await currentAncestors()), pageId], cache, read);
}

/**
 * The restriction of each content, in the given order: from `cache` when it has it, else by
 * `read` (added to `cache`; a failed read is dropped from it, so that a later call asks again).
 */
function restrictionLevels(
  contentIds: readonly string[],
  cache: WikiRestrictionCache | undefined,
  read: (contentId: string) => Promise<WikiReadRestriction>,
): Promise<WikiReadRestriction[]> {
  return Promise.all(
    contentIds.map((contentId) => {
      const known = cache?.get(contentId);
      if (known !== undefined) return known;
      const reading = read(contentId);
      if (cache !== undefined) {
        cache.set(contentId, reading);
        reading.catch(() => {
          if (cache.get(contentId) === reading) cache.delete(contentId);
        });
      }
      return reading;
    }),
  );
}
