/**
 * A stored passage's text, cut into prose and code. Indexing stores a code block fenced in its
 * passage (```` ```bash ```` … ```` ``` ````); only those fences become code here: the rest of a
 * passage is text, never read as Markdown or HTML.
 */
export type PassageBlock =
  | { readonly kind: 'prose'; readonly text: string }
  | { readonly kind: 'code'; readonly code: string; readonly language: string };

interface Fence {
  readonly indent: number;
  readonly marker: string;
  readonly info: string;
}

/**
 * The fence a line is (three or more backticks or tildes, indented by at most three spaces, as
 * CommonMark has it), or undefined. A scan, not a regular expression: linear on any line.
 */
function fenceOf(line: string): Fence | undefined {
  let start = 0;
  while (start < 3 && line[start] === ' ') start += 1;
  const mark = line[start];
  if (mark !== '`' && mark !== '~') return undefined;
  let end = start;
  while (line[end] === mark) end += 1;
  if (end - start < 3) return undefined;
  const info = line.slice(end).trim();
  // A backtick fence's info string has no backtick: such a line is inline code in prose.
  if (mark === '`' && info.includes('`')) return undefined;
  return { indent: start, marker: line.slice(start, end), info };
}

/** Whether `line` closes the block `opening` opened: the same mark, at least as long, nothing after. */
function closes(line: string, opening: Fence): boolean {
  const fence = fenceOf(line);
  return (
    fence !== undefined &&
    fence.info === '' &&
    fence.marker[0] === opening.marker[0] &&
    fence.marker.length >= opening.marker.length
  );
}

/** A code line without the indentation its fence had (CommonMark removes up to that much). */
function unindented(line: string, indent: number): string {
  let removed = 0;
  while (removed < indent && line[removed] === ' ') removed += 1;
  return line.slice(removed);
}

/** Prose without the blank lines that set it apart from the code around it. */
function trimBlankLines(lines: readonly string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] ?? '').trim() === '') start += 1;
  while (end > start && (lines[end - 1] ?? '').trim() === '') end -= 1;
  return lines.slice(start, end).join('\n');
}

/**
 * The passage's blocks in order: prose as it was written (line breaks kept), and each fenced code
 * block with its language (the first word of the fence's info string, "" when none). A fence left
 * open (a passage cut inside a long block) runs to the end of the passage; an empty block is left out.
 */
export function passageBlocks(text: string): PassageBlock[] {
  const blocks: PassageBlock[] = [];
  let prose: string[] = [];
  let code: string[] = [];
  let fence: Fence | undefined;

  const endProse = () => {
    const joined = trimBlankLines(prose);
    if (joined !== '') blocks.push({ kind: 'prose', text: joined });
    prose = [];
  };
  const endCode = (opening: Fence) => {
    if (code.some((line) => line.trim() !== '')) {
      const language = (opening.info.split(/\s/)[0] ?? '').replaceAll('`', '');
      blocks.push({ kind: 'code', code: code.join('\n'), language });
    }
    code = [];
  };

  for (const line of text.split('\n')) {
    if (fence !== undefined) {
      if (closes(line, fence)) {
        endCode(fence);
        fence = undefined;
      } else code.push(unindented(line, fence.indent));
      continue;
    }
    const opening = fenceOf(line);
    if (opening === undefined) {
      prose.push(line);
      continue;
    }
    endProse();
    fence = opening;
  }
  if (fence !== undefined) endCode(fence);
  endProse();
  return blocks;
}

/** A code block as a search result shows it: its first lines, and how many more there are. */
export interface ShortenedCode {
  readonly shown: string;
  /** Lines left out (0: the block is whole). */
  readonly hiddenLines: number;
}

/** Lines of a code block a search result shows before it says how many more there are. */
export const RESULT_CODE_LINES = 8;

/**
 * The first `maxLines` lines of `code`. A block only one line longer is shown whole: a note
 * saying "1 more line" would take that line's place.
 */
export function shortenCode(code: string, maxLines = RESULT_CODE_LINES): ShortenedCode {
  const lines = code.split('\n');
  if (lines.length <= maxLines + 1) return { shown: code, hiddenLines: 0 };
  return { shown: lines.slice(0, maxLines).join('\n'), hiddenLines: lines.length - maxLines };
}
