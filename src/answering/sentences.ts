import { splitSentences } from '../sentence-splitting.js';

/** A line that ends a thought: a wrapped line of prose does not end in one of these. */
const LINE_END = /[.!?:;\u2026]["'\u2019\u201D)\]]*$/;
const HEADING_MARK = /^#{1,6}\s+/;
const LIST_MARK = /^(?:[-*+\u2022]|\d{1,3}[.)])\s+/;

/**
 * The sentences of a chunk's text, in order. Chunks keep their blocks' line breaks: a list item,
 * a heading or a table row is its own sentence (markers dropped), a line of prose wrapped onto
 * the next (no end mark, the next starts in lower case) is joined back, and prose is cut after
 * `.`, `!` or `?` as the chunker cuts it.
 */
export function sentencesOf(text: string): string[] {
  const lines: string[] = [];
  // The line being read, in its wrapped parts; only its last part can end it (testing the whole
  // joined line again for each part was quadratic in the parts).
  let wrapped: string[] = [];
  let endsThought = false;
  const endLine = () => {
    if (wrapped.length > 0) lines.push(wrapped.join(' '));
    wrapped = [];
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim().replace(HEADING_MARK, '').replace(LIST_MARK, '').trim();
    if (line === '') {
      endLine();
      continue;
    }
    if (endsThought || !/^\p{Ll}/u.test(line)) endLine();
    wrapped.push(line);
    endsThought = LINE_END.test(line);
  }
  endLine();
  return lines
    .flatMap((line) => splitSentences(line).map((sentence) => sentence.text.trim()))
    .filter((sentence) => sentence !== '');
}

/** Whitespace-separated words. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}
