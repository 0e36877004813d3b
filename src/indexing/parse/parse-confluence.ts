import type { ParsedDocument } from '../document.js';
import { markupToBlocks } from './markup-to-blocks.js';

/** What the wiki adapter labels a page body in Confluence storage format (`body.storage`). */
export const CONFLUENCE_STORAGE_MIME_TYPE = 'application/vnd.atlassian.confluence.storage+xml';

/**
 * Confluence storage format: XHTML with `ac:` macros and `ri:` resources. Code macro bodies and
 * panel texts are kept, macro parameters and emoticons dropped, a page link without text reads
 * as the linked page's title.
 */
export function parseConfluenceStorage(storage: string): ParsedDocument {
  return markupToBlocks(storage, 'xml');
}
