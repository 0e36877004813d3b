import type { WikiPageSummary, WikiSite } from '../../adapters/wiki/wiki-client.js';
import { findWikiConnectorSecrets } from '../../db/repositories/connectors.js';
import type { DocumentFields, StoredDocumentState } from '../../db/repositories/documents.js';
import type { IndexJobItemRow, IndexJobRow } from '../../db/repositories/index-jobs.js';
import { FileFailure } from '../document.js';
import type { IndexingDependencies } from '../indexing-dependencies.js';
import { CONFLUENCE_STORAGE_MIME_TYPE } from '../parse/parse-document.js';
import type { FetchedItem, IndexSource } from './index-source.js';
import { documentFieldsOf, recordListing } from './source-items.js';

/** A wiki item's payload: the listing's view of the page. */
interface WikiPayload {
  readonly version: number;
  readonly url: string;
}

interface WikiConnector {
  readonly site: WikiSite;
  readonly spaceKey: string;
}

/** A Confluence space, synced through the team's wiki connector. */
export class WikiSource implements IndexSource {
  constructor(private readonly deps: Pick<IndexingDependencies, 'sql' | 'secrets' | 'wiki'>) {}

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
        payload: { version: page.version, url: page.url } satisfies WikiPayload,
      })),
    );
  }

  fields(job: IndexJobRow, item: IndexJobItemRow): DocumentFields {
    const payload = item.payload as unknown as WikiPayload;
    return documentFieldsOf(job, item, 'wiki', {
      title: item.name,
      url: payload.url ?? null,
      mimeType: CONFLUENCE_STORAGE_MIME_TYPE,
      sourceVersion: payload.version === undefined ? null : String(payload.version),
    });
  }

  async fetch(
    job: IndexJobRow,
    item: IndexJobItemRow,
    stored: StoredDocumentState | undefined,
    signal: AbortSignal,
  ): Promise<FetchedItem> {
    const fields = this.fields(job, item);
    // Only pages whose version changed are fetched again.
    if (stored?.contentHash != null && stored.sourceVersion === fields.sourceVersion) {
      return { kind: 'unchanged', fields };
    }
    const { site } = await this.connector(job);
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
