/** One lexeme of a tsvector, with how often it occurs: as `chunk_terms` holds it. */
export interface TsvectorPosting {
  readonly term: string;
  readonly frequency: number;
}

const QUOTE = 0x27; // '
const BACKSLASH = 0x5c; // \
const COLON = 0x3a; // :
const COMMA = 0x2c; // ,
const SPACE = 0x20;

/**
 * A tsvector's lexemes from its text form (`tsvector::text`: `'lexeme':1,5 'other':2B 'bare'`),
 * each with its number of positions, or 1 when it has none: the frequency `chunk_terms` stores
 * (`coalesce(array_length(positions, 1), 1)`). PostgreSQL writes each lexeme in single quotes,
 * doubling a quote or a backslash inside it. Reading a chunk's tsvector as one text is several
 * times cheaper, for the database and for this process, than reading its postings as rows.
 */
export function tsvectorPostings(text: string): TsvectorPosting[] {
  const postings: TsvectorPosting[] = [];
  let at = 0;
  while (at < text.length) {
    if (text.charCodeAt(at) === SPACE) {
      at++;
      continue;
    }
    if (text.charCodeAt(at) !== QUOTE)
      throw new Error(`not a tsvector's text at ${at}: ${text.slice(at, at + 20)}`);
    at++;
    let term = '';
    let from = at;
    for (;;) {
      if (at >= text.length) throw new Error("a tsvector's lexeme is not closed");
      const code = text.charCodeAt(at);
      if (code === BACKSLASH) {
        term += text.slice(from, at);
        from = at + 1;
        at += 2;
      } else if (code === QUOTE && text.charCodeAt(at + 1) === QUOTE) {
        term += text.slice(from, at + 1);
        at += 2;
        from = at;
      } else if (code === QUOTE) {
        term += text.slice(from, at);
        at++;
        break;
      } else {
        at++;
      }
    }
    let frequency = 1;
    if (text.charCodeAt(at) === COLON) {
      at++;
      while (at < text.length && text.charCodeAt(at) !== SPACE) {
        if (text.charCodeAt(at) === COMMA) frequency++;
        at++;
      }
    }
    postings.push({ term, frequency });
  }
  return postings;
}
