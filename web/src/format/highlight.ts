/** A piece of text, marked when it matches one of the query's words. */
export interface Segment {
  text: string;
  match: boolean;
}

/**
 * The words of a search query worth highlighting: letters and digits in any script, lower-cased,
 * each once, at least two characters (single letters would mark half the passage), longest first
 * so "indexing" wins over "index" where both match.
 */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((word) => word.length >= 2))].sort((a, b) => b.length - a.length);
}

function escapeForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Splits text into plain and matching segments, case-insensitively, so a caller renders the matches
 * as <mark> elements: the text is never parsed as HTML. The search stems words, so a term matches
 * inside longer words too ("index" in "indexing").
 */
export function splitHighlights(text: string, terms: readonly string[]): Segment[] {
  if (terms.length === 0 || text === '') return text === '' ? [] : [{ text, match: false }];
  const pattern = new RegExp(terms.map(escapeForRegExp).join('|'), 'giu');
  const segments: Segment[] = [];
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    const start = found.index;
    if (start > last) segments.push({ text: text.slice(last, start), match: false });
    segments.push({ text: found[0], match: true });
    last = start + found[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), match: false });
  return segments;
}
