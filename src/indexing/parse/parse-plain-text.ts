import type { ParsedDocument } from '../document.js';
import { BlockCollector } from './blocks.js';

/** Plain text: one text block per paragraph, paragraphs separated by blank lines (or form feeds). */
export function parsePlainText(text: string): ParsedDocument {
  const collector = new BlockCollector();
  for (const paragraph of text.replace(/\r\n?/g, '\n').split(/\n[^\S\n]*\n|\f/)) collector.text(paragraph);
  return { blocks: collector.blocks };
}
