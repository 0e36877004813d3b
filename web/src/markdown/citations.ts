/** A piece of answer text: plain text, or a citation `[n]`. */
export type CitationSegment = { type: 'text'; value: string } | { type: 'citation'; citation: number };

/** `[n]` with a number of one to three digits: a year in brackets (`[2024]`) is not a citation. */
const CITATION = /\[(\d{1,3})\]/g;

/** Splits a text at its `[n]` citations, keeping everything else as it is. */
export function splitCitations(text: string): CitationSegment[] {
  const segments: CitationSegment[] = [];
  let last = 0;
  for (const found of text.matchAll(CITATION)) {
    const citation = Number(found[1]);
    if (citation === 0) continue;
    if (found.index > last) segments.push({ type: 'text', value: text.slice(last, found.index) });
    segments.push({ type: 'citation', citation });
    last = found.index + found[0].length;
  }
  if (last < text.length) segments.push({ type: 'text', value: text.slice(last) });
  return segments;
}
