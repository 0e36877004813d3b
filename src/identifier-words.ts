/** The text with the words of its identifiers (`msgPrefix`: "msg prefix") after it, as chunks are indexed. */
export function withIdentifierWords(text: string): string {
  const words = identifierWords(text);
  return words === '' ? text : `${text}\n${words}`;
}

/**
 * The words identifiers are made of, as prose says them: `msgPrefix` is "msg prefix",
 * `FORCE_COLOR` "force color", `ignoreTrailingSlash` "ignore trailing slash", `reply.redirect`
 * "reply redirect", `HTTPServer` "http server" (not `mTOR` or `iPhone`, whose one-letter pieces are
 * no words). Text search reads an identifier as one word, while
 * documentation names options and functions by identifiers and people ask in words ("a prefix for
 * every message"): indexing and searching both with these words lets the two meet. Each identifier
 * that splits into two words or more gives its words once, in order; other words give nothing.
 * One forward scan (no backtracking regular expression): linear in the text.
 */
export function identifierWords(text: string): string {
  const seen = new Set<string>();
  const words: string[] = [];
  let start = -1;
  for (let index = 0; index <= text.length; index += 1) {
    const code = index < text.length ? text.charCodeAt(index) : 0;
    if (isIdentifierCharacter(code)) {
      if (start < 0) start = index;
      continue;
    }
    if (start >= 0) {
      const identifier = text.slice(start, index);
      start = -1;
      if (identifier.length > MAX_IDENTIFIER_LENGTH || seen.has(identifier)) continue;
      seen.add(identifier);
      const parts = partsOf(identifier);
      // A one-letter piece is a name's spelling, not a word of it ("mTOR", "iPhone", "x.y").
      if (parts.length >= 2 && parts.every((part) => part.length >= 2)) words.push(parts.join(' '));
    }
  }
  return words.join(' ');
}

/** Longer runs are not names people type (hashes, base64, minified code): left alone. */
const MAX_IDENTIFIER_LENGTH = 64;

/** Letters, digits, `_`, `.` and `$` (ASCII): what identifiers, dotted names and constants are made of. */
function isIdentifierCharacter(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 36
  );
}

const isUpper = (character: string) => character >= 'A' && character <= 'Z';
const isLower = (character: string) => character >= 'a' && character <= 'z';
const isLetter = (character: string) => isUpper(character) || isLower(character);

/**
 * An identifier's words, lower-cased: cut at `_`, `.` and `$`, where a lower-case letter meets an
 * upper-case one (`msgPrefix`), and before the last capital of a run followed by a lower-case
 * letter (`HTTPServer`: http, server). Digits stay with their word; a word without a letter is
 * dropped (a version's numbers are its own words already).
 */
function partsOf(identifier: string): string[] {
  const parts: string[] = [];
  let word = '';
  const flush = () => {
    if (word !== '' && [...word].some(isLetter)) parts.push(word.toLowerCase());
    word = '';
  };
  for (let index = 0; index < identifier.length; index += 1) {
    const character = identifier[index] as string;
    if (character === '_' || character === '.' || character === '$') {
      flush();
      continue;
    }
    const previous = identifier[index - 1] ?? '';
    const next = identifier[index + 1] ?? '';
    if (isUpper(character) && (isLower(previous) || (isUpper(previous) && isLower(next)))) flush();
    word += character;
  }
  flush();
  return parts;
}
