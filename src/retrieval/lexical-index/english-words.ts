import { type EnglishStemmerVariant, englishStem } from './english-stemmer.js';

/**
 * PostgreSQL's English analysis (`to_tsvector('english', …)`) of the words its default parser
 * reads plainly, with only separators before and after them ("(Cells", "cancer?", "-added,"):
 * - a run of ASCII letters is one `asciiword`, lower-cased, dropped when it is one of
 *   `english.stop`'s words, else stemmed by Snowball's English stemmer;
 * - a run of ASCII letters and digits holding a digit (`numword`, `uint`: "UBC13", "12") is itself,
 *   lower-cased;
 * - such runs joined by single hyphens ("fast-twitch", "IL-6", "up-regulation") are the whole
 *   (stemmed when all letters, else lower-cased) and each part read as above.
 * Separators alone ("-", "(+)") make none. Anything else is left to the database: a number after "+" or "-" (a signed number), a hyphenated
 * word starting or going on with a digit, inner punctuation ("e.g.", "don't", "a@b"), "/", ".",
 * "~" and "_" that make paths and hosts, "&" and "<" that start entities and tags, other alphabets.
 * Checked against PostgreSQL 15 and 18 on the 32,616 words of docs-qa and SciFact and 23,386 of their
 * tokens with digits or hyphens read plainly
 * (english-words.test.ts checks a sample against the test database).
 */

/** PostgreSQL's `tsearch_data/english.stop`. */
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers ' +
    'herself it its itself they them their theirs themselves what which who whom this that these those am is are ' +
    'was were be been being have has had having do does did doing a an the and but if or because as until while ' +
    'of at by for with about against between into through during before after above below to from up down in out ' +
    'on off over under again further then once here there when where why how all any both each few more most other ' +
    'some such no nor not only own same so than too very s t can will just don should now'
  ).split(' '),
);

/** Separators the parser never joins to the word beside them; a word may end with one more ".". */
const PLAIN_WORD =
  /^([-!"#$%'()*+,:;=>?@[\\\]^`{|}]*)([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)[-!"#$%'()*+,:;=>?@[\\\]^`{|}]*\.?$/;
/** Separators alone ("-", "(+)", ":"): no lexeme. */
const SEPARATORS_ONLY = /^[-!"#$%'()*+,:;=>?@[\\\]^`{|}]*\.?$/;
/** Longer words are left to the database. */
const MAX_PLAIN_WORD = 100;

/**
 * The lexemes PostgreSQL's English analysis makes of one word (a run of text without white
 * space), when the word is read plainly (above); undefined when the database must analyse it.
 */
export function plainWordLexemes(word: string, variant: EnglishStemmerVariant): string[] | undefined {
  if (SEPARATORS_ONLY.test(word)) return [];
  const match = PLAIN_WORD.exec(word);
  const before = match?.[1];
  const core = match?.[2];
  if (before === undefined || core === undefined || core.length > MAX_PLAIN_WORD) return undefined;
  const parts = core.split('-');
  if (/^[0-9]/.test(core) && (parts.length > 1 || before.endsWith('-') || before.endsWith('+'))) {
    return undefined;
  }
  if (parts.length === 1) return partLexemes(core, variant);
  if (parts.slice(1).some((part) => /^[0-9]/.test(part))) return undefined;
  const lower = core.toLowerCase();
  const whole = parts.every((part) => /^[A-Za-z]+$/.test(part)) ? englishStem(lower, variant) : lower;
  return [...new Set([whole, ...parts.flatMap((part) => partLexemes(part, variant))])];
}

/** A run of ASCII letters (stop word or stem) or of letters and digits (itself), lower-cased. */
function partLexemes(part: string, variant: EnglishStemmerVariant): string[] {
  const lower = part.toLowerCase();
  if (!/^[a-z]+$/.test(lower)) return [lower];
  return STOP_WORDS.has(lower) ? [] : [englishStem(lower, variant)];
}

/** The two stemmers PostgreSQL releases ship (see `EnglishStemmerVariant`). */
export const STEMMER_VARIANTS: readonly EnglishStemmerVariant[] = [
  { keepsDoubleAfterLoneVowel: false },
  { keepsDoubleAfterLoneVowel: true },
];

/**
 * Words whose analysis exercises every rule of the stemmer and the stop words, and tells the two
 * variants apart ("added"): the database analyses them once, and the stemmer is used only if one
 * variant gives exactly what it gave.
 */
export const PROBE_WORDS: readonly string[] = (
  'caresses ponies ties cries gaps gas kiwis focus class agreed feed proceed exceeded succeeding inning outing ' +
  'canning herring earring hoped hoping hopped falling filing conflated troubled sized fizzed failing ' +
  'added egged offing luxuriating lying dying tying skis skies sky news howe atlas cosmos bias andes idly gently ' +
  'ugly early singly cry by say happy relational conditional rational valenci hesitanci digitizer conformabli ' +
  'radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness ' +
  'hopefulness callousness formaliti sensitiviti sensibiliti archaeology geology fully fearlessly ' +
  'formalize electricity electrical hopeful goodness demonstrative revival allowance inference airliner ' +
  'gyroscopic adjustable defensible irritant replacement adjustment dependent adoption communism activate ' +
  'angulariti homologous effective bowdlerize probate rate cease controll roll generate general generous ' +
  'communication community arsenal arsenic bayes boxed played knowing kwale yearly eyes sayyid crying ' +
  'The AND very Cells (cancer) cancer? -regulation, "Added" [note] {x} UBC13 12 K63-linked fast-twitch up-regulation - (+) ' +
  "'quoted' #tag @user *bold* +plus ^up |pipe `code` \\back =eq >gt end."
).split(' ');
