/*
 * Inline Markdown to plain text. Each rule is a scan of its own that reads what a regular
 * expression used to match (the expression is quoted above it), and finds its closing mark with
 * a cursor that only moves forward: the expressions restarted a search to the end of the text at
 * every unclosed opener (`[`, `**`, a backtick…), which is quadratic in their number.
 */

import { CharacterRuns, forwardCursor, forwardFinder, isWhitespace } from '../../text-scanning.js';
import { decodeEntities } from './markup-tokens.js';

// Escaped punctuation is parked in the private use area while the inline rules run, so `\*` stays a star.
const ESCAPED = /\\([!-/:-@[-`{-~])/g;
const PARKED = /[\uE000-\uE07F]/g;

/** What a code span holds literally that the later inline rules would otherwise read as markup. */
const CODE_LITERAL = /[<&*_~[\]!\\]/g;

const park = (char: string) => String.fromCharCode(0xe000 + char.charCodeAt(0));

/**
 * Inline markup to its text: links to their labels, images to their alt text, emphasis and code
 * marks dropped, raw HTML tags and comments dropped (an element's text kept), entities decoded.
 * Code spans keep what they hold as written: `<`, `&`, and the marks that elsewhere are emphasis,
 * links or escapes (`DEBUG=*,-connect:*`, `[[name]]`).
 */
export function inlineMarkdown(text: string): string {
  let result = text.replace(ESCAPED, (_, char: string) => park(char));
  result = withoutCodeSpanMarks(result);
  result = bracketsToLabels(result, '![', 'destination');
  result = bracketsToLabels(result, '![', 'reference');
  result = bracketsToLabels(result, '[', 'destination');
  result = bracketsToLabels(result, '[', 'reference');
  result = withoutAutolinkBrackets(result);
  result = withoutHtml(result);
  result = withoutDelimiters(result, ['**', '__'], false);
  result = withoutDelimiters(result, ['*'], true);
  result = withoutDelimiters(result, ['_'], true);
  result = withoutDelimiters(result, ['~~'], false);
  // Last, so `&lt;b&gt;` reads as `<b>` and is not taken for a tag.
  result = decodeEntities(result);
  return result.replace(PARKED, (char) => String.fromCharCode(char.charCodeAt(0) - 0xe000));
}

/** Text with some spans replaced, built from the pieces kept. */
class Rewrite {
  private readonly parts: string[] = [];
  private kept = 0;

  constructor(private readonly text: string) {}

  /** Replaces `text[from, to)` with `replacement`; spans come in order and never overlap. */
  replace(from: number, to: number, replacement: string): void {
    this.parts.push(this.text.slice(this.kept, from), replacement);
    this.kept = to;
  }

  result(): string {
    if (this.parts.length === 0) return this.text;
    this.parts.push(this.text.slice(this.kept));
    return this.parts.join('');
  }
}

/**
 * `` /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g `` → `$2`: an opening run of backticks (what is left
 * of it from where the search stands) up to the next run of exactly its length.
 */
function withoutCodeSpanMarks(text: string): string {
  if (!text.includes('`')) return text;
  const runs = new CharacterRuns(text, '`');
  const rewrite = new Rewrite(text);
  for (let index = text.indexOf('`'); index >= 0; ) {
    const end = runs.end(index);
    // Code needs a character: a run at the very end opens nothing, and no run follows it.
    if (end >= text.length) break;
    // Where the run cannot open, the search goes on from its next backtick, with one fewer.
    let next = text.indexOf('`', end);
    for (let start = index; start < end; start += 1) {
      const closing = runs.nextOfLength(end - start, end + 1);
      if (closing === undefined) continue;
      rewrite.replace(start, closing + end - start, text.slice(end, closing).replace(CODE_LITERAL, park));
      next = text.indexOf('`', closing + end - start);
      break;
    }
    index = next;
  }
  return rewrite.result();
}

const CLOSE_BRACKET = 0x5d;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;

/**
 * `/!\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g` (an image, `'![', 'destination'`),
 * `/!\[([^\]]*)\]\[[^\]]*\]/g` (an image by reference), and the same with `\[([^\]]+)\]` (a link
 * with a label): each to its label. A destination may hold parentheses one level deep.
 */
function bracketsToLabels(text: string, opener: '![' | '[', tail: 'destination' | 'reference'): string {
  if (!text.includes(opener)) return text;
  const nextLabelEnd = forwardFinder(text, (code) => code === CLOSE_BRACKET);
  const nextReferenceEnd = forwardFinder(text, (code) => code === CLOSE_BRACKET);
  const nextParenthesis = forwardFinder(text, (code) => code === OPEN_PAREN || code === CLOSE_PAREN);
  // Openers before one `]` share their destination: it is read once.
  let destinationFrom = -1;
  let destinationEnd = -1;
  const endOfDestination = (open: number): number => {
    if (open !== destinationFrom) {
      destinationFrom = open;
      destinationEnd = readDestination(text, open, nextParenthesis);
    }
    return destinationEnd;
  };
  const rewrite = new Rewrite(text);
  for (let index = text.indexOf(opener); index >= 0; ) {
    const labelStart = index + opener.length;
    const labelEnd = nextLabelEnd(labelStart);
    // No `]` after this opener: none after any later one either.
    if (labelEnd < 0) break;
    let end = -1;
    if (opener === '![' || labelEnd > labelStart) {
      if (tail === 'destination' && text.charCodeAt(labelEnd + 1) === OPEN_PAREN) {
        end = endOfDestination(labelEnd + 1);
      } else if (tail === 'reference' && text[labelEnd + 1] === '[') {
        const referenceEnd = nextReferenceEnd(labelEnd + 2);
        end = referenceEnd < 0 ? -1 : referenceEnd + 1;
      }
    }
    if (end < 0) {
      index = text.indexOf(opener, index + 1);
      continue;
    }
    rewrite.replace(index, end, text.slice(labelStart, labelEnd));
    index = text.indexOf(opener, end);
  }
  return rewrite.result();
}

/**
 * Where a destination that opens at `open` ends (after its `)`), or -1: other characters, or a
 * `(` closed before the next parenthesis, until a `)`.
 */
function readDestination(text: string, open: number, nextParenthesis: (from: number) => number): number {
  let index = open + 1;
  for (;;) {
    const parenthesis = nextParenthesis(index);
    if (parenthesis < 0) return -1;
    if (text.charCodeAt(parenthesis) === CLOSE_PAREN) return parenthesis + 1;
    const inner = nextParenthesis(parenthesis + 1);
    if (inner < 0 || text.charCodeAt(inner) !== CLOSE_PAREN) return -1;
    index = inner + 1;
  }
}

const AUTOLINK_SCHEME = /(?:https?|mailto|ftp):/iy;

/** `/<((?:https?|mailto|ftp):[^>\s]+)>/gi` → `$1`: an autolink to its address. */
function withoutAutolinkBrackets(text: string): string {
  if (!text.includes('<')) return text;
  const nextStop = forwardFinder(text, (code) => code === 0x3e || isWhitespace(code));
  const rewrite = new Rewrite(text);
  for (let index = text.indexOf('<'); index >= 0; ) {
    AUTOLINK_SCHEME.lastIndex = index + 1;
    if (AUTOLINK_SCHEME.test(text)) {
      const addressStart = AUTOLINK_SCHEME.lastIndex;
      const stop = nextStop(addressStart);
      if (stop > addressStart && text[stop] === '>') {
        rewrite.replace(index, stop + 1, text.slice(index + 1, stop));
        index = text.indexOf('<', stop + 1);
        continue;
      }
    }
    index = text.indexOf('<', index + 1);
  }
  return rewrite.result();
}

/**
 * HTML elements whose tags are dropped without a trace, so `<b>bo</b>ld` reads `bold`; the tags
 * of other elements (`<br>`, `<img>`, `<td>`, `<div>`) separate words and leave a space.
 */
const INLINE_ELEMENTS: ReadonlySet<string> = new Set(
  (
    'a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr q rp rt ' +
    'ruby s samp small span strike strong sub sup time tt u var wbr'
  ).split(' '),
);
const OTHER_ELEMENTS: ReadonlySet<string> = new Set(
  (
    'address area article aside audio base blockquote body br button canvas caption center col ' +
    'colgroup dd details dialog dir div dl dt embed fieldset figcaption figure footer form h1 h2 h3 ' +
    'h4 h5 h6 head header hgroup hr html iframe img input legend li link main map menu meta nav ' +
    'noscript object ol optgroup option p param picture pre script section select source style ' +
    'summary svg table tbody td template textarea tfoot th thead title tr track ul video'
  ).split(' '),
);

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;

/** Longer than any name in the sets above. */
const MAX_ELEMENT_NAME = 10;

/** The end of an element name that starts at `from` (ASCII letters and digits). */
function nameEnd(text: string, from: number): number {
  let index = from;
  for (; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const letter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
    if (!letter && !(code >= 0x30 && code <= 0x39)) break;
  }
  return index;
}

/**
 * Raw HTML written into Markdown, dropped: comments (`<!-- … -->`), and the opening and closing
 * tags of HTML elements (`<a id="x">`, `</a>`, `<br/>`, `<img src=…>`), their text kept. A tag
 * runs to the next `>`, with no `<` before it; what is not an HTML element's name (`<T>`,
 * `a <b` unclosed, `x < y`) stays text. Each search moves forward only.
 */
function withoutHtml(text: string): string {
  if (!text.includes('<')) return text;
  const nextAngle = forwardFinder(text, (code) => code === LESS_THAN || code === GREATER_THAN);
  const rewrite = new Rewrite(text);
  // Once a comment finds no `-->`, none after it can.
  let commentsClose = true;
  for (let index = text.indexOf('<'); index >= 0; ) {
    if (text.startsWith('<!--', index)) {
      const close = commentsClose ? text.indexOf('-->', index + 4) : -1;
      if (close >= 0) {
        rewrite.replace(index, close + 3, '');
        index = text.indexOf('<', close + 3);
        continue;
      }
      commentsClose = false;
    }
    const nameStart = text[index + 1] === '/' ? index + 2 : index + 1;
    const end = nameEnd(text, nameStart);
    const name = end - nameStart > MAX_ELEMENT_NAME ? '' : text.slice(nameStart, end).toLowerCase();
    const inline = INLINE_ELEMENTS.has(name);
    if (inline || OTHER_ELEMENTS.has(name)) {
      const close = nextAngle(index + 1);
      if (close >= 0 && text.charCodeAt(close) === GREATER_THAN) {
        rewrite.replace(index, close + 1, inline ? '' : ' ');
        index = text.indexOf('<', close + 1);
        continue;
      }
    }
    index = text.indexOf('<', index + 1);
  }
  return rewrite.result();
}

/** `\w`: ASCII letters, digits and `_`. */
function isWordCharacter(char: string | undefined): boolean {
  const code = char?.charCodeAt(0) ?? -1;
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f
  );
}
const isNonSpace = (text: string, index: number) =>
  index < text.length && !isWhitespace(text.charCodeAt(index));

/**
 * Emphasis and strikethrough marks dropped around their text:
 * `/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g` → `$2` (`['**', '__']`, one pass for both),
 * `/~~(?=\S)([\s\S]*?\S)~~/g` → `$1`, and, `flanked`, `/(^|[^\w*])\*(?=\S)([\s\S]*?\S)\*(?![\w*])/g`
 * → `$1$2` (and the same with `_`): a single mark counts only away from words and its like.
 */
function withoutDelimiters(text: string, marks: readonly string[], flanked: boolean): string {
  if (!marks.some((mark) => text.includes(mark))) return text;
  const isWordOrMark = (char: string | undefined, mark: string) => isWordCharacter(char) || char === mark;
  // Where each mark can close: after a non-space, and, flanked, before no word character or mark.
  const closings = new Map<string, number[]>(marks.map((mark) => [mark, []]));
  for (let index = 1; index < text.length; index += 1) {
    for (const mark of marks) {
      if (!text.startsWith(mark, index) || !isNonSpace(text, index - 1)) continue;
      if (flanked && isWordOrMark(text[index + mark.length], mark)) continue;
      closings.get(mark)?.push(index);
    }
  }
  const nextClosing = new Map(marks.map((mark) => [mark, forwardCursor(closings.get(mark) ?? [])]));
  /** The mark opening at `index`, and where: a flanked one after the character at `index`, which stays. */
  const openingAt = (index: number): { mark: string; position: number } | undefined => {
    for (const mark of marks) {
      if (!flanked) {
        if (text.startsWith(mark, index)) return { mark, position: index };
      } else if (index === 0 && text.startsWith(mark, 0)) {
        return { mark, position: 0 };
      } else if (!isWordOrMark(text[index], mark) && text.startsWith(mark, index + 1)) {
        return { mark, position: index + 1 };
      }
    }
    return undefined;
  };
  const rewrite = new Rewrite(text);
  for (let index = 0; index < text.length; ) {
    const opening = openingAt(index);
    const contentStart = opening === undefined ? -1 : opening.position + opening.mark.length;
    const closing =
      opening !== undefined && isNonSpace(text, contentStart)
        ? nextClosing.get(opening.mark)?.(contentStart + 1)
        : undefined;
    if (opening === undefined || closing === undefined) {
      index += 1;
      continue;
    }
    rewrite.replace(opening.position, closing + opening.mark.length, text.slice(contentStart, closing));
    index = closing + opening.mark.length;
  }
  return rewrite.result();
}
