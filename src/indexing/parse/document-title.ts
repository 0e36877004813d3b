import { parseMarkdown } from './parse-markdown.js';

/** Longest title made from a document's text; a longer first line is cut at a word. */
export const MAX_DERIVED_TITLE_LENGTH = 200;

/** How much of a text is read for its first heading or line: plenty for one, cheap on a request. */
const PREFIX_CHARS = 4096;

/**
 * A title for a text, from its first 4 KiB read as Markdown (so marks, raw HTML, comments and
 * front matter do not end up in it): the one it gives itself (front matter, a level-1 heading),
 * else its first heading or paragraph (the lines of a hard-wrapped one joined); cut to
 * `MAX_DERIVED_TITLE_LENGTH`. `undefined` for a text with nothing to say.
 */
export function titleFromText(text: string): string | undefined {
  const first = text.search(/\S/);
  if (first < 0) return undefined;
  const lineStart = text.lastIndexOf('\n', first) + 1;
  const parsed = parseMarkdown(text.slice(lineStart, lineStart + PREFIX_CHARS));
  const title = parsed.title ?? parsed.blocks[0]?.text;
  return title === undefined ? undefined : capTitle(title);
}

/** `title` cut to `maxLength` characters at a word, `…` marking the cut; shorter ones as they are. */
export function capTitle(title: string, maxLength = MAX_DERIVED_TITLE_LENGTH): string {
  if (title.length <= maxLength) return title;
  let cut = title.lastIndexOf(' ', maxLength - 1);
  if (cut < maxLength / 2) cut = maxLength - 1;
  // Never half of a surrogate pair.
  const code = title.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${title.slice(0, cut).trimEnd()}…`;
}
