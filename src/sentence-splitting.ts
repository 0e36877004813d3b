import { isWhitespace } from './text-scanning.js';

// Shared by chunking (indexing) and by answers that quote single sentences (answering), so it
// lives beside the other text scanners rather than in either layer.

// Words that end in a period without ending a sentence.
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'al',
  'approx',
  'ca',
  'cf',
  'dept',
  'dr',
  'e.g',
  'eg',
  'etc',
  'fig',
  'figs',
  'i.e',
  'ie',
  'inc',
  'jr',
  'ltd',
  'mr',
  'mrs',
  'ms',
  'prof',
  'ref',
  'sr',
  'st',
  'vs',
]);

/** A word without the quotes or brackets that open it (`"Dr`, `(e.g`). */
function withoutOpeningQuotes(word: string): string {
  return word.replace(/^["'([\u2018\u201C]+/, '');
}

/**
 * A single letter before a period that abbreviates a name ("John B. Weller", "J. R. R. Tolkien"):
 * a capital after a capitalised word or another initial, or before one. A variable ends a
 * sentence as any word does ("…reduces to Y. There are…", "…a function of n. Since…").
 */
function isInitial(word: string, wordBefore: string | undefined, following: string): boolean {
  if (!/^\p{Lu}$/u.test(word)) return false;
  const before = withoutOpeningQuotes(wordBefore ?? '');
  return before === '' || /^\p{Lu}/u.test(before) || /^\p{Lu}\.$/u.test(following);
}

/**
 * Sentences of prose, lines of code: a block with line breaks (code, addresses) is cut at its
 * lines; prose after `.`, `!` or `?` unless an abbreviation, an initial, or a lower-case
 * continuation says the sentence goes on.
 */
export function splitSentences(text: string): { text: string; separator: ' ' | '\n' }[] {
  if (text.includes('\n')) {
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => ({ text: line, separator: '\n' as const }));
  }
  const sentences: { text: string; separator: ' ' | '\n' }[] = [];
  let start = 0;
  for (let index = 0; index < text.length; ) {
    if (!isEndMark(text[index])) {
      index += 1;
      continue;
    }
    // A sentence end: end marks, closing quotes or brackets, then spaces. With no space, no mark
    // of the run ends a sentence (what `/[.!?\u2026]+["'\u2019\u201D)\]]*\s+/g` found, scanned
    // by hand: that expression backtracked over every run of marks, quadratically).
    let end = index;
    while (isEndMark(text[end])) end += 1;
    while (isCloser(text[end])) end += 1;
    if (!isWhitespace(text.charCodeAt(end))) {
      index = end;
      continue;
    }
    while (isWhitespace(text.charCodeAt(end))) end += 1;
    const next = text[end] ?? '';
    // Only the word before the mark matters; a bounded window keeps long runs of skipped marks linear.
    const before = text.slice(Math.max(start, index - 32), index).split(/\s+/);
    const lastWord = withoutOpeningQuotes(before.at(-1) ?? '');
    const abbreviated =
      text[index] === '.' &&
      (ABBREVIATIONS.has(lastWord.toLowerCase()) ||
        isInitial(lastWord, before.at(-2), text.slice(end, end + 2)) ||
        // "No. 5", "nos. 3–4"; "…yes or no. Next…" ends a sentence.
        (/^nos?$/i.test(lastWord) && /\p{N}/u.test(next)));
    index = end;
    if (abbreviated || /\p{Ll}/u.test(next)) continue;
    sentences.push({ text: text.slice(start, end).trimEnd(), separator: ' ' });
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest !== '') sentences.push({ text: rest, separator: ' ' });
  return sentences;
}

const isEndMark = (char: string | undefined) =>
  char === '.' || char === '!' || char === '?' || char === '\u2026';
const isCloser = (char: string | undefined) =>
  char === '"' || char === "'" || char === '\u2019' || char === '\u201D' || char === ')' || char === ']';
