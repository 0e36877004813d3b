// Code fences, shared by indexing (a code block is stored fenced in its chunk's text, so the
// block's extent survives chunking) and answering (which quotes it as a code block): beside the
// other text scanners rather than in either layer.

/**
 * Code as a fenced block, the fence longer than any run of backticks inside it, with its language
 * (the first word of the opening fence's info string) when known.
 */
export function fenced(code: string, language = ''): string {
  let longest = 0;
  let run = 0;
  for (const character of code) {
    run = character === '`' ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${languageOf(language)}\n${code}\n${fence}`;
}

/** A fence line: its run of three or more backticks (or tildes) and what follows (a language). */
export interface Fence {
  /** The spaces before the marker (at most three). */
  readonly indent: number;
  readonly marker: string;
  readonly info: string;
}

/**
 * The fence a line is (```` ``` ````, ```` ```ts ````, `~~~`), indented by at most three spaces
 * as CommonMark allows, or undefined. A scan, not a regular expression: linear on any line.
 */
export function fenceOf(line: string): Fence | undefined {
  let start = 0;
  while (start < 3 && line[start] === ' ') start += 1;
  const mark = line[start];
  if (mark !== '`' && mark !== '~') return undefined;
  let end = start;
  while (line[end] === mark) end += 1;
  if (end - start < 3) return undefined;
  const info = line.slice(end).trim();
  // A backtick fence's info string has no backtick (else the line is inline code).
  if (mark === '`' && info.includes('`')) return undefined;
  return { indent: start, marker: line.slice(start, end), info };
}

/**
 * Whether `line` closes a block `opening` opened: the same mark, at least as long, then only
 * spaces or tabs (CommonMark).
 */
export function closes(line: string, opening: Pick<Fence, 'marker'>): boolean {
  const fence = fenceOf(line);
  return (
    fence !== undefined &&
    /^[ \t]*$/.test(line.slice(fence.indent + fence.marker.length)) &&
    fence.marker[0] === opening.marker[0] &&
    fence.marker.length >= opening.marker.length
  );
}

/** The language an info string names ("ts", "bash"): its first word, without backticks. */
export function languageOf(info: string): string {
  return (info.trim().split(/\s/)[0] ?? '').replaceAll('`', '');
}
