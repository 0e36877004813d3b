import { peopleAccess } from '../../access.js';
import type { WikiPageSummary, WikiRestrictionCache, WikiSite } from '../../adapters/wiki/wiki-client.js';
import { findWikiConnectorSecrets } from '../../db/repositories/connectors.js';
import type { DocumentFields, StoredDocumentState } from '../../db/repositories/documents.js';
import type { IndexJobItemRow, IndexJobRow } from '../../db/repositories/index-jobs.js';
import { FileFailure } from '../document.js';
import type { IndexingDependencies } from '../indexing-dependencies.js';
import { CONFLUENCE_STORAGE_MIME_TYPE } from '../parse/parse-document.js';
import type { FetchedItem, IndexSource } from './index-source.js';
import { documentFieldsOf, recordListing } from './source-items.js';
import { wikiPageAccess } from './wiki-access.js';

/** A wiki item's payload: the listing's view of the page. */
interface WikiPayload {
  readonly version: number;
  readonly url: string;
  /** Root first; absent when the listing did not say (or the item is older than this field). */
  readonly ancestorIds?: readonly string[];
}

interface WikiConnector {
  readonly site: WikiSite;
  readonly spaceKey: string;
}

/** The restrictions one job has read, by content id: a parent's is read once for its children. */
interface JobRestrictions {
  readonly jobId: string;
  readonly cache: WikiRestrictionCache;
}

/**
 * A Confluence space, synced through the team's wiki connector. Every page's access list comes
 * from its read restrictions and its ancestors', read again at every sync, for unchanged pages
 * too: restrictions change without a new page version.
 */
export class WikiSource implements IndexSource {
  private restrictions: JobRestrictions | undefined;

  constructor(private readonly deps: Pick<IndexingDependencies, 'sql' | 'secrets' | 'wiki'>) {}

  /** The job's restriction cache; another job starts an empty one. */
  private restrictionCache(job: IndexJobRow): WikiRestrictionCache {
    if (this.restrictions?.jobId !== job.id) this.restrictions = { jobId: job.id, cache: new Map() };
    return this.restrictions.cache;
  }

  private async connector(job: IndexJobRow): Promise<WikiConnector> {
    if (job.connectorId === null) throw new FileFailure('not_found', 'The wiki connector was deleted');
    const stored = await findWikiConnectorSecrets(this.deps.sql, job.teamId, job.connectorId);
    if (stored === undefined) throw new FileFailure('not_found', 'The wiki connector was deleted');
    const { config } = stored;
    const secrets = this.deps.secrets.openJson<{ api_token: string }>(stored.secretsSealed);
    return {
      site: {
        baseUrl: config.base_url ?? '',
        authScheme: config.auth_scheme === 'bearer' ? 'bearer' : 'basic',
        username: config.username ?? '',
        apiToken: secrets.api_token,
      },
      spaceKey: config.space_key ?? '',
    };
  }

  async expand(job: IndexJobRow, signal: AbortSignal): Promise<void> {
    const { sql, wiki } = this.deps;
    const { site, spaceKey } = await this.connector(job);
    const pages: WikiPageSummary[] = [];
    let cursor: string | undefined;
    do {
      const list = await wiki.listPages(site, spaceKey, cursor, signal);
      pages.push(...list.pages);
      cursor = list.next;
    } while (cursor !== undefined);
    await recordListing(
      sql,
      job,
      'wiki',
      pages.map((page) => ({
        externalId: page.id,
        name: page.title,
        payload: {
          version: page.version,
          url: page.url,
          ...(page.ancestorIds === undefined ? {} : { ancestorIds: page.ancestorIds }),
        } satisfies WikiPayload,
      })),
    );
  }

  /**
   * Before its restrictions are read, a page is open to the indexing user alone (`indexedBy`):
   * what a failure records, never everyone.
   */
  fields(job: IndexJobRow, item: IndexJobItemRow): DocumentFields {
    const payload = item.payload as unknown as WikiPayload;
    return documentFieldsOf(job, item, 'wiki', {
      title: item.name,
      url: payload.url ?? null,
      mimeType: CONFLUENCE_STORAGE_MIME_TYPE,
      sourceVersion: payload.version === undefined ? null : String(payload.version),
      access: peopleAccess(),
      indexedBy: job.requestedBy,
    });
  }

  async fetch(
    job: IndexJobRow,
    item: IndexJobItemRow,
    stored: StoredDocumentState | undefined,
    signal: AbortSignal,
  ): Promise<FetchedItem> {
    // A deleted connector stops the job's remaining pages, changed or not.
    const { site } = await this.connector(job);
    const { ancestorIds } = item.payload as unknown as WikiPayload;
    const levels = await this.deps.wiki.getReadRestrictions(site, item.externalId, signal, {
      cache: this.restrictionCache(job),
      ...(Array.isArray(ancestorIds) && ancestorIds.every((id) => typeof id === 'string')
        ? { ancestorIds }
        : {}),
    });
    const fields: DocumentFields = { ...this.fields(job, item), access: wikiPageAccess(levels) };
    // Only pages whose version changed are fetched again; the others get their access list anew.
    if (stored?.contentHash != null && stored.sourceVersion === fields.sourceVersion) {
      return { kind: 'unchanged', fields };
    }
    const page = await this.deps.wiki.getPage(site, item.externalId, signal);
    return {
      kind: 'content',
      fields: {
        ...fields,
        title: page.title,
        url: page.url,
        sourceVersion: String(page.version),
        sourceModifiedAt: page.lastModified === undefined ? null : new Date(page.lastModified),
      },
      mimeType: CONFLUENCE_STORAGE_MIME_TYPE,
      bytes: Buffer.from(page.storageBody, 'utf8'),
    };
  }
}
