// Building blocks of the linear scans that replace backtracking regular expressions over document,
// question and answer text (issue 10): each search only moves forward, so a text full of unclosed
// openers is read once. Shared by the Markdown reader (indexing) and Slack's mrkdwn (adapters).

/** What `\s` matches in a JavaScript regular expression (NaN, past the end, is not). */
export function isWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The first index at or after `from` whose character code passes `test`, or -1. It remembers its
 * last answer, so callers asking with a `from` that only grows scan the text once in all.
 */
export function forwardFinder(text: string, test: (code: number) => boolean): (from: number) => number {
  let askedFrom = Number.POSITIVE_INFINITY;
  let found = -1;
  return (from) => {
    if (from < askedFrom || from > found) {
      found = from;
      while (found < text.length && !test(text.charCodeAt(found))) found += 1;
    }
    askedFrom = from;
    return found < text.length ? found : -1;
  };
}

/**
 * The first of some sorted positions at or after a bound, for bounds that only grow: a cursor
 * that moves forward, instead of a search from the start each time.
 */
export function forwardCursor(positions: readonly number[]): (atLeast: number) => number | undefined {
  let next = 0;
  return (atLeast) => {
    while (next < positions.length && (positions[next] ?? 0) < atLeast) next += 1;
    return positions[next];
  };
}

/** The runs of one repeated character in a text (backticks of code spans), indexed by length. */
export class CharacterRuns {
  readonly #text: string;
  readonly #char: string;
  readonly #startsByLength = new Map<number, number[]>();
  readonly #cursors = new Map<number, (atLeast: number) => number | undefined>();

  constructor(text: string, char: string) {
    this.#text = text;
    this.#char = char;
    for (let index = text.indexOf(char); index >= 0; ) {
      const end = this.end(index);
      const starts = this.#startsByLength.get(end - index) ?? [];
      starts.push(index);
      this.#startsByLength.set(end - index, starts);
      index = text.indexOf(char, end);
    }
  }

  /** Where the run that starts at `from` ends (`from` itself when none starts there). */
  end(from: number): number {
    let end = from;
    while (this.#text[end] === this.#char) end += 1;
    return end;
  }

  /**
   * The start of the first run of exactly `length` at or after `atLeast`; asked for one length
   * with bounds that only grow, it moves forward only.
   */
  nextOfLength(length: number, atLeast: number): number | undefined {
    let cursor = this.#cursors.get(length);
    if (cursor === undefined) {
      cursor = forwardCursor(this.#startsByLength.get(length) ?? []);
      this.#cursors.set(length, cursor);
    }
    return cursor(atLeast);
  }
}
