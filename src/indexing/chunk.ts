import { closes, fenceOf } from '../markdown-fence.js';
import { splitSentences } from '../sentence-splitting.js';
import { compactText } from './compact-text.js';
import type { Block, Chunk, ParsedDocument } from './document.js';

/** Sizes are in whitespace-separated words, the unit `Chunk.tokenCount` counts, and in characters. */
export interface ChunkOptions {
  /** A chunk is filled until the next paragraph (or sentence) would take it past this. */
  readonly targetWords: number;
  /** Never exceeded, overlap included: a longer sentence is cut at words. */
  readonly maxWords: number;
  /** Trailing whole sentences of a chunk repeated at the start of the next one in the same section. */
  readonly overlapWords: number;
  /**
   * Never exceeded, overlap included, in UTF-16 code units (`String.length`): a longer sentence is
   * cut at words, a longer word (base64, a URL, minified code) between characters. By default
   * 12.5 characters a word of `maxWords` (4,000 for the defaults).
   */
  readonly maxChars?: number;
}

/**
 * The character cap is for text that is not prose: words average ~6 characters with their space
 * in English and ~8 in technical text, so 12.5 a word never binds on prose (words do), while a
 * megabyte with no spaces still makes chunks of a prose chunk's order, not one of the whole.
 */
const MAX_CHARS_PER_WORD = 12.5;

/**
 * Chosen from bench/chunking (docs/benchmarks.md, "Chunking"): on SciFact, chunks indexed with
 * their title retrieve as well as whole abstracts at every size, while small chunks alone lose;
 * abstracts (~215 words) are shorter than real documents, so the ceiling is the embedding model,
 * ~512 tokens (~390 words at 1.3 tokens a word, fewer for technical text) including the title and
 * heading path: 320 words at most leaves that room. Overlap showed no effect there; ~12 % (whole
 * sentences) keeps context across cuts in long sections. 4,000 characters is 320 words at
 * `MAX_CHARS_PER_WORD`.
 */
export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = {
  targetWords: 256,
  maxWords: 320,
  overlapWords: 32,
  maxChars: 4_000,
};

/** A sentence (or line of code, or run of words) with where it came from. */
interface Piece {
  readonly text: string;
  readonly words: number;
  /** Index of the block it came from: pieces of one block are joined by `separator`, blocks by a blank line. */
  readonly block: number;
  readonly separator: ' ' | '\n';
  readonly page: number | undefined;
}

interface SectionBlock {
  readonly index: number;
  readonly text: string;
  readonly page: number | undefined;
}

interface Section {
  readonly headingPath: readonly string[];
  readonly blocks: SectionBlock[];
}

/**
 * Splits a parsed document into chunks that follow its structure: a chunk never spans two
 * sections (heading paths); small blocks of a section are packed together up to the target;
 * a block over the target is split at sentences (a sentence over the maximum at words); the
 * chunks of one section overlap by their last sentence(s). Same input, same chunks.
 */
export function chunkDocument(parsed: ParsedDocument, given: ChunkOptions = DEFAULT_CHUNK_OPTIONS): Chunk[] {
  const maxChars = given.maxChars ?? Math.round(given.maxWords * MAX_CHARS_PER_WORD);
  const options: Required<ChunkOptions> = { ...given, maxChars };
  validate(options);
  const chunks: Chunk[] = [];
  for (const section of sectionsOf(parsed.blocks)) {
    for (const pieces of packSection(section, options)) {
      const text = joinPieces(pieces);
      const pages = [...new Set(pieces.flatMap((piece) => (piece.page === undefined ? [] : [piece.page])))];
      chunks.push({
        position: chunks.length,
        text: compactText(text),
        headingPath: section.headingPath,
        pageLabels: pages.sort((a, b) => a - b).map(String),
        tokenCount: countWords(text),
      });
    }
  }
  return chunks;
}

function validate(options: Required<ChunkOptions>): void {
  const { targetWords, maxWords, overlapWords, maxChars } = options;
  if (!Number.isInteger(targetWords) || targetWords < 1)
    throw new RangeError('targetWords must be a positive integer');
  if (!Number.isInteger(maxWords) || maxWords < targetWords)
    throw new RangeError('maxWords must be >= targetWords');
  if (!Number.isInteger(overlapWords) || overlapWords < 0 || overlapWords >= targetWords) {
    throw new RangeError('overlapWords must be >= 0 and < targetWords');
  }
  // Two, so that a surrogate pair always fits.
  if (!Number.isInteger(maxChars) || maxChars < 2) throw new RangeError('maxChars must be an integer >= 2');
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
function packSection(section: Section, options: Required<ChunkOptions>): Piece[][] {
  const { targetWords, maxWords, maxChars } = options;
  const chunks: Piece[][] = [];
  let current: Piece[] = [];
  let currentWords = 0;
  let currentChars = 0;
  // Overlap alone is not a chunk: the first unit after it is always taken.
  let hasFreshContent = false;
  for (const unit of unitsOf(section, options)) {
    const unitWords = sumWords(unit);
    const unitChars = joinedLength(unit);
    if (
      hasFreshContent &&
      (currentWords + unitWords > targetWords ||
        lengthWith(current, currentChars, unit, unitChars) > maxChars)
    ) {
      chunks.push(current);
      // Room for the widest separator (a blank line) between the overlap and the unit.
      const charRoom = maxChars - unitChars - BLOCK_SEPARATOR.length;
      current = overlapFrom(current, options.overlapWords, maxWords - unitWords, charRoom);
      currentWords = sumWords(current);
      currentChars = joinedLength(current);
    }
    currentChars = lengthWith(current, currentChars, unit, unitChars);
    current.push(...unit);
    currentWords += unitWords;
    hasFreshContent = true;
  }
  if (hasFreshContent) chunks.push(current);
  return chunks;
}

/**
 * The pieces packed as one: a block up to the target (and the character cap) stays whole; a
 * longer block goes sentence by sentence, and a sentence over a maximum in runs of words.
 */
function* unitsOf(section: Section, options: Required<ChunkOptions>): Generator<Piece[]> {
  for (const block of section.blocks.flatMap((whole) => fencedParts(whole, options))) {
    const pieces = splitSentences(block.text).map(
      (sentence): Piece => ({
        ...sentence,
        words: countWords(sentence.text),
        block: block.index,
        page: block.page,
      }),
    );
    if (sumWords(pieces) <= options.targetWords && joinedLength(pieces) <= options.maxChars) {
      yield pieces;
      continue;
    }
    for (const piece of pieces) {
      if (piece.words <= options.maxWords && piece.text.length <= options.maxChars) {
        yield [piece];
        continue;
      }
      yield* runsOf(piece, options);
    }
  }
}

/**
 * A fenced code block over the target in parts of half a chunk, each fenced as the block was, so
 * that every chunk holding code holds it fenced. Each part is a block of its own (an index between the
 * block's and the next one's): parts are joined by a blank line, and chunks are cut between them.
 * Any other block is returned as it is.
 */
function fencedParts(block: SectionBlock, options: Required<ChunkOptions>): SectionBlock[] {
  const firstBreak = block.text.indexOf('\n');
  const opening = firstBreak < 0 ? undefined : fenceOf(block.text.slice(0, firstBreak));
  if (opening === undefined) return [block];
  if (block.text.length <= options.maxChars && countWords(block.text) <= options.targetWords) return [block];
  const lines = block.text.split('\n');
  const open = lines[0] ?? '';
  const close = lines.at(-1) ?? '';
  if (lines.length <= 2 || !closes(close, opening)) return [block];
  // Half a chunk, the two fence lines and their line breaks included: the sentence introducing the
  // code ("Run these commands:") then usually shares a chunk with its first part.
  const wordRoom = Math.floor(options.targetWords / 2) - countWords(open) - countWords(close);
  const charRoom = Math.floor(options.maxChars / 2) - open.length - close.length - 2;
  const groups: string[][] = [];
  let group: string[] = [];
  let words = 0;
  let chars = 0;
  for (const line of lines.slice(1, -1)) {
    const lineWords = countWords(line);
    if (group.length > 0 && (words + lineWords > wordRoom || chars + 1 + line.length > charRoom)) {
      groups.push(group);
      group = [];
      words = 0;
      chars = 0;
    }
    chars += (group.length > 0 ? 1 : 0) + line.length;
    words += lineWords;
    group.push(line);
  }
  if (group.length > 0) groups.push(group);
  return groups.map((part, index) => ({
    index: block.index + index / groups.length,
    text: [open, ...part, close].join('\n'),
    page: block.page,
  }));
}

/**
 * A sentence over a maximum in runs of `targetWords` words, fewer when they would pass
 * `maxChars`; a word longer than that is cut into slices of it.
 */
function* runsOf(piece: Piece, options: Required<ChunkOptions>): Generator<Piece[]> {
  let run: string[] = [];
  let runChars = 0;
  let first = true;
  const cut = (): Piece[] => {
    const separator = first ? piece.separator : ' ';
    const unit: Piece = { ...piece, text: run.join(' '), words: run.length, separator };
    first = false;
    run = [];
    runChars = 0;
    return [unit];
  };
  for (const word of piece.text.split(/\s+/)) {
    if (word === '') continue;
    for (const part of slicesOf(word, options.maxChars)) {
      if (
        run.length >= options.targetWords ||
        (run.length > 0 && runChars + 1 + part.length > options.maxChars)
      ) {
        yield cut();
      }
      runChars += (run.length > 0 ? 1 : 0) + part.length;
      run.push(part);
    }
  }
  if (run.length > 0) yield cut();
}

/** A word in slices of at most `maxChars` code units, never between the two halves of a surrogate pair. */
function* slicesOf(word: string, maxChars: number): Generator<string> {
  let start = 0;
  while (word.length - start > maxChars) {
    let end = start + maxChars;
    const last = word.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield word.slice(start, end);
    start = end;
  }
  yield word.slice(start);
}

/** The last whole sentences of a chunk, within both budgets, never the whole chunk. */
function overlapFrom(
  pieces: readonly Piece[],
  overlapWords: number,
  wordRoom: number,
  charRoom: number,
): Piece[] {
  const budget = Math.min(overlapWords, wordRoom);
  const overlap: Piece[] = [];
  let words = 0;
  let chars = 0;
  for (let index = pieces.length - 1; index > 0; index -= 1) {
    const piece = pieces[index];
    // Not into code: a fence line (its end, read backwards) is where prose's context stops.
    if (piece === undefined || fenceOf(piece.text) !== undefined) break;
    const pieceChars = piece.text.length + (overlap.length === 0 ? 0 : separatorLength(piece, overlap[0]));
    if (words + piece.words > budget || chars + pieceChars > charRoom) break;
    overlap.unshift(piece);
    words += piece.words;
    chars += pieceChars;
  }
  return overlap;
}

const BLOCK_SEPARATOR = '\n\n';

/** Pieces of one block are joined by their separator, blocks by a blank line. */
function separatorOf(previous: Piece, piece: Piece): string {
  return previous.block === piece.block ? piece.separator : BLOCK_SEPARATOR;
}

function separatorLength(previous: Piece | undefined, piece: Piece | undefined): number {
  return previous === undefined || piece === undefined ? 0 : separatorOf(previous, piece).length;
}

function joinPieces(pieces: readonly Piece[]): string {
  let text = '';
  let previous: Piece | undefined;
  for (const piece of pieces) {
    if (previous === undefined) text = piece.text;
    else text += separatorOf(previous, piece) + piece.text;
    previous = piece;
  }
  return text;
}

/** The length of pieces (`chars` joined) with a unit (`unitChars` joined) after them. */
function lengthWith(
  pieces: readonly Piece[],
  chars: number,
  unit: readonly Piece[],
  unitChars: number,
): number {
  const last = pieces.at(-1);
  return last === undefined ? unitChars : chars + separatorLength(last, unit[0]) + unitChars;
}

/** What `joinPieces` would give, in length. */
function joinedLength(pieces: readonly Piece[]): number {
  let length = 0;
  let previous: Piece | undefined;
  for (const piece of pieces) {
    length += piece.text.length + separatorLength(previous, piece);
    previous = piece;
  }
  return length;
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
