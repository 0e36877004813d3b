import type { ParsedDocument } from '../document.js';
import { markupToBlocks } from './markup-to-blocks.js';

/** HTML: `<title>` (else the first `<h1>`) as the title; scripts, styles and forms left out. */
export function parseHtml(html: string): ParsedDocument {
  return markupToBlocks(html, 'html');
}
