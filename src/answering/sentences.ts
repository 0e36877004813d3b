import { closes, type Fence, fenceOf, languageOf } from '../markdown-fence.js';
import { splitSentences } from '../sentence-splitting.js';

/** A line that ends a thought: a wrapped line of prose does not end in one of these. */
const LINE_END = /[.!?:;\u2026]["'\u2019\u201D)\]]*$/;
/** A line of prose that ends a sentence (code lines end in `;`, `{`, `)`…). */
const SENTENCE_END = /[.!?\u2026]["'\u2019\u201D)\]]*$/;
const HEADING_MARK = /^#{1,6}\s+/;
const LIST_MARK = /^(?:[-*+\u2022]|\d{1,3}[.)])\s+/;
/** What code has and prose rarely does: brackets, operators, `--flags`, paths, calls. */
const CODE_SIGNAL = /[{}();=<>$`|\\]|--|\/\w|\w\.\w+\(|^\s/;

/** A piece of a chunk an answer can quote. */
export interface TextUnit {
  /** A sentence of prose; a list item (or heading, or table row); or a whole code block. */
  readonly kind: 'sentence' | 'item' | 'code';
  /** Code keeps its lines and indentation; the others are one line. */
  readonly text: string;
  /** The block (paragraph) it belongs to, counted from 0: units of one block are read together. */
  readonly block: number;
  /** A fenced code block's language ("ts"), when its fence named one. */
  readonly language?: string;
}

/**
 * The units of a chunk's text, in order. A fenced code block is one code unit, lines intact, as is
 * the part of one a chunk holds when it was cut (its opening fence alone, or its closing one).
 * Text indexed without fences keeps its blocks' line breaks: a block of two or
 * more lines that looks like code is one code unit, lines intact, and so is a command on its own
 * line after a line that introduces it; a list item, a heading or a table
 * row is its own unit (markers dropped); a line of prose wrapped onto the next (no end mark, the
 * next starts in lower case) is joined back; and prose is cut after `.`, `!` or `?` as the chunker
 * cuts it.
 */
export function unitsOf(text: string): TextUnit[] {
  const units: TextUnit[] = [];
  let block = 0;
  let lines: string[] = [];
  const endBlock = () => {
    if (lines.length > 0) {
      const before = units.at(-1);
      const introduced = before !== undefined && before.kind !== 'code' && before.text.endsWith(':');
      units.push(
        ...(introduced && lines.length === 1 && isCommand(lines[0] ?? '')
          ? [{ kind: 'code' as const, text: (lines[0] ?? '').trim(), block }]
          : blockUnits(lines, block)),
      );
      block += 1;
    }
    lines = [];
  };
  const code = (codeLines: readonly string[], language = '') => {
    if (codeLines.some((line) => line.trim() !== ''))
      units.push({
        kind: 'code',
        text: codeLines.join('\n'),
        block,
        ...(language === '' ? {} : { language }),
      });
    block += 1;
  };
  const all = text.split('\n');
  let fence: Fence | undefined;
  let fencedLines: string[] = [];
  for (const [index, raw] of all.entries()) {
    if (fence !== undefined) {
      if (closes(raw, fence)) {
        code(fencedLines, languageOf(fence.info));
        fence = undefined;
        fencedLines = [];
      } else fencedLines.push(raw.trimEnd());
      continue;
    }
    const opening = lines.length === 0 ? fenceOf(raw) : undefined;
    if (opening !== undefined) {
      fence = opening;
      continue;
    }
    // A chunk cut inside a code block: the part after the cut ends with the block's closing fence.
    const next = all[index + 1];
    if (lines.length > 0 && fenceOf(raw)?.info === '' && (next === undefined || next.trim() === '')) {
      code(lines);
      lines = [];
      continue;
    }
    if (raw.trim() === '') endBlock();
    else lines.push(raw.trimEnd());
  }
  // The part before such a cut: its fence opens and nothing closes it.
  if (fence !== undefined) code(fencedLines, languageOf(fence.info));
  endBlock();
  return units;
}

function blockUnits(lines: readonly string[], block: number): TextUnit[] {
  if (lines.length >= 2 && isCode(lines)) {
    // The block's common indentation goes; its inner indentation stays.
    const indent = lines.reduce(
      (least, line) => Math.min(least, line.length - line.trimStart().length),
      Number.POSITIVE_INFINITY,
    );
    return [{ kind: 'code', text: lines.map((line) => line.slice(indent)).join('\n'), block }];
  }
  const units: TextUnit[] = [];
  // The line being read, in its wrapped parts; only its last part can end it (testing the whole
  // joined line again for each part was quadratic in the parts).
  let wrapped: string[] = [];
  let item = false;
  let endsThought = false;
  const endLine = () => {
    if (wrapped.length > 0) {
      const line = wrapped.join(' ');
      if (item) units.push({ kind: 'item', text: line, block });
      else {
        for (const sentence of splitSentences(line)) {
          const trimmed = sentence.text.trim();
          if (trimmed !== '') units.push({ kind: 'sentence', text: trimmed, block });
        }
      }
    }
    wrapped = [];
  };
  for (const raw of lines) {
    const trimmed = raw.trim();
    const marked = HEADING_MARK.test(trimmed) || LIST_MARK.test(trimmed);
    const line = trimmed.replace(HEADING_MARK, '').replace(LIST_MARK, '').trim();
    if (line === '') continue;
    if (marked || endsThought || !/^\p{Ll}/u.test(line)) {
      endLine();
      item = marked;
    }
    wrapped.push(line);
    endsThought = LINE_END.test(line);
  }
  endLine();
  return units;
}

/**
 * A line on its own after one that introduces it ("Install it with:") reads as a command when it
 * opens with a lower-case word or a path and ends without a sentence's end mark (`npm install
 * semver`, `./configure --prefix=/opt`), in text indexed before code blocks kept their fences.
 */
function isCommand(line: string): boolean {
  const trimmed = line.trim();
  return /^(?:\p{Ll}|[./~$])/u.test(trimmed) && !SENTENCE_END.test(trimmed) && !LIST_MARK.test(trimmed);
}

/** A block of several lines reads as code when a line has code's marks and not every line ends a sentence. */
function isCode(lines: readonly string[]): boolean {
  if (lines.every((line) => LIST_MARK.test(line.trim()) || HEADING_MARK.test(line.trim()))) return false;
  return lines.some((line) => CODE_SIGNAL.test(line)) && !lines.every((line) => SENTENCE_END.test(line));
}

/**
 * The sentences of a chunk's text, in order: its units' texts (a code block's lines joined by
 * line breaks).
 */
export function sentencesOf(text: string): string[] {
  return unitsOf(text).map((unit) => unit.text);
}

/** Whitespace-separated words. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}
