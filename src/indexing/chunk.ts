import type { Block, Chunk, ParsedDocument } from './document.js';

/** Sizes are in whitespace-separated words, the unit `Chunk.tokenCount` counts. */
export interface ChunkOptions {
  /** A chunk is filled until the next paragraph (or sentence) would take it past this. */
  readonly targetWords: number;
  /** Never exceeded, overlap included: a longer sentence is cut at words. */
  readonly maxWords: number;
  /** Trailing whole sentences of a chunk repeated at the start of the next one in the same section. */
  readonly overlapWords: number;
}

/**
 * Chosen from bench/chunking (docs/benchmarks.md, "Chunking"): on SciFact, chunks indexed with
 * their title retrieve as well as whole abstracts at every size, while small chunks alone lose;
 * abstracts (~215 words) are shorter than real documents, so the ceiling is the embedding model,
 * ~512 tokens (~390 words at 1.3 tokens a word, fewer for technical text) including the title and
 * heading path: 320 words at most leaves that room. Overlap showed no effect there; ~12 % (whole
 * sentences) keeps context across cuts in long sections.
 */
export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { targetWords: 256, maxWords: 320, overlapWords: 32 };

/** A sentence (or line of code, or run of words) with where it came from. */
interface Piece {
  readonly text: string;
  readonly words: number;
  /** Index of the block it came from: pieces of one block are joined by `separator`, blocks by a blank line. */
  readonly block: number;
  readonly separator: ' ' | '\n';
  readonly page: number | undefined;
}

interface Section {
  readonly headingPath: readonly string[];
  readonly blocks: { readonly index: number; readonly text: string; readonly page: number | undefined }[];
}

/**
 * Splits a parsed document into chunks that follow its structure: a chunk never spans two
 * sections (heading paths); small blocks of a section are packed together up to the target;
 * a block over the target is split at sentences (a sentence over the maximum at words); the
 * chunks of one section overlap by their last sentence(s). Same input, same chunks.
 */
export function chunkDocument(
  parsed: ParsedDocument,
  options: ChunkOptions = DEFAULT_CHUNK_OPTIONS,
): Chunk[] {
  validate(options);
  const chunks: Chunk[] = [];
  for (const section of sectionsOf(parsed.blocks)) {
    for (const pieces of packSection(section, options)) {
      const text = joinPieces(pieces);
      const pages = [...new Set(pieces.flatMap((piece) => (piece.page === undefined ? [] : [piece.page])))];
      chunks.push({
        position: chunks.length,
        text,
        headingPath: section.headingPath,
        pageLabels: pages.sort((a, b) => a - b).map(String),
        tokenCount: countWords(text),
      });
    }
  }
  return chunks;
}

function validate(options: ChunkOptions): void {
  const { targetWords, maxWords, overlapWords } = options;
  if (!Number.isInteger(targetWords) || targetWords < 1)
    throw new RangeError('targetWords must be a positive integer');
  if (!Number.isInteger(maxWords) || maxWords < targetWords)
    throw new RangeError('maxWords must be >= targetWords');
  if (!Number.isInteger(overlapWords) || overlapWords < 0 || overlapWords >= targetWords) {
    throw new RangeError('overlapWords must be >= 0 and < targetWords');
  }
}

/**
 * Text blocks grouped by the heading path above them. A heading replaces those at its level and
 * deeper. A heading with nothing under it (no text, no deeper heading) is kept as its own text,
 * so an outline or a slide with only a title is still searchable.
 */
function sectionsOf(blocks: readonly Block[]): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; text: string; page: number | undefined; index: number }[] = [];
  let current: Section | undefined;
  let headingHasContent = true;
  const path = () => stack.map((heading) => heading.text);
  const keepEmptyHeading = () => {
    const last = stack.at(-1);
    if (headingHasContent || last === undefined) return;
    sections.push({ headingPath: path(), blocks: [{ index: last.index, text: last.text, page: last.page }] });
  };
  blocks.forEach((block, index) => {
    if (block.kind === 'heading') {
      const last = stack.at(-1);
      if (last !== undefined && block.level <= last.level) keepEmptyHeading();
      while ((stack.at(-1)?.level ?? 0) >= block.level) stack.pop();
      stack.push({ level: block.level, text: block.text, page: block.page, index });
      headingHasContent = false;
      current = undefined;
      return;
    }
    headingHasContent = true;
    if (current === undefined) {
      current = { headingPath: path(), blocks: [] };
      sections.push(current);
    }
    current.blocks.push({ index, text: block.text, page: block.page });
  });
  keepEmptyHeading();
  return sections;
}

/** The chunks of one section, each as its pieces (overlap first). */
function packSection(section: Section, options: ChunkOptions): Piece[][] {
  const { targetWords, maxWords } = options;
  const chunks: Piece[][] = [];
  let current: Piece[] = [];
  let currentWords = 0;
  // Overlap alone is not a chunk: the first unit after it is always taken.
  let hasFreshContent = false;
  for (const unit of unitsOf(section, options)) {
    const unitWords = sumWords(unit);
    if (hasFreshContent && currentWords + unitWords > targetWords) {
      chunks.push(current);
      current = overlapFrom(current, options.overlapWords, maxWords - unitWords);
      currentWords = sumWords(current);
    }
    current.push(...unit);
    currentWords += unitWords;
    hasFreshContent = true;
  }
  if (hasFreshContent) chunks.push(current);
  return chunks;
}

/**
 * The pieces packed as one: a block up to the target stays whole; a longer block goes sentence
 * by sentence, and a sentence over the maximum in runs of `targetWords` words.
 */
function* unitsOf(section: Section, options: ChunkOptions): Generator<Piece[]> {
  for (const block of section.blocks) {
    const pieces = splitSentences(block.text).map(
      (sentence): Piece => ({
        ...sentence,
        words: countWords(sentence.text),
        block: block.index,
        page: block.page,
      }),
    );
    if (sumWords(pieces) <= options.targetWords) {
      yield pieces;
      continue;
    }
    for (const piece of pieces) {
      if (piece.words <= options.maxWords) {
        yield [piece];
        continue;
      }
      const words = piece.text.split(/\s+/).filter((word) => word !== '');
      for (let start = 0; start < words.length; start += options.targetWords) {
        const run = words.slice(start, start + options.targetWords);
        yield [
          {
            ...piece,
            text: run.join(' '),
            words: run.length,
            separator: start === 0 ? piece.separator : ' ',
          },
        ];
      }
    }
  }
}

/** The last whole sentences of a chunk, up to the budget, never the whole chunk. */
function overlapFrom(pieces: readonly Piece[], overlapWords: number, room: number): Piece[] {
  const budget = Math.min(overlapWords, room);
  const overlap: Piece[] = [];
  let words = 0;
  for (let index = pieces.length - 1; index > 0; index -= 1) {
    const piece = pieces[index];
    if (piece === undefined || words + piece.words > budget) break;
    overlap.unshift(piece);
    words += piece.words;
  }
  return overlap;
}

function joinPieces(pieces: readonly Piece[]): string {
  let text = '';
  let previous: Piece | undefined;
  for (const piece of pieces) {
    if (previous === undefined) text = piece.text;
    else text += (previous.block === piece.block ? piece.separator : '\n\n') + piece.text;
    previous = piece;
  }
  return text;
}

function sumWords(pieces: readonly Piece[]): number {
  let total = 0;
  for (const piece of pieces) total += piece.words;
  return total;
}

/** Whitespace-separated words: the size unit of chunks and `Chunk.tokenCount`. */
export function countWords(text: string): number {
  let count = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const space =
      code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || (code >= 0x2000 && code <= 0x200a);
    if (!space && !inWord) count += 1;
    inWord = !space;
  }
  return count;
}

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
  'no',
  'nos',
  'prof',
  'ref',
  'sr',
  'st',
  'vs',
]);

/** End punctuation, closing quotes or brackets, then the space before the next sentence. */
const SENTENCE_END = /[.!?\u2026]+["'\u2019\u201D)\]]*\s+/g;

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
  SENTENCE_END.lastIndex = 0;
  for (let match = SENTENCE_END.exec(text); match !== null; match = SENTENCE_END.exec(text)) {
    const end = match.index + match[0].length;
    const next = text[end] ?? '';
    // Only the word before the mark matters; a bounded window keeps long runs of skipped marks linear.
    const before = text.slice(Math.max(start, match.index - 32), match.index);
    const lastWord = (before.split(/\s+/).at(-1) ?? '').replace(/^["'([\u2018\u201C]+/, '').toLowerCase();
    const abbreviated =
      match[0].startsWith('.') && (ABBREVIATIONS.has(lastWord) || /^\p{L}$/u.test(lastWord));
    if (abbreviated || /\p{Ll}/u.test(next)) continue;
    sentences.push({ text: text.slice(start, end).trimEnd(), separator: ' ' });
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest !== '') sentences.push({ text: rest, separator: ' ' });
  return sentences;
}
