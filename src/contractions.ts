/**
 * English contractions spelled out ("I'm" → "I am", "doesn't" → "does not", "Fastify's" →
 * "Fastify"), straight or curly apostrophe. PostgreSQL's parser splits a contraction at its
 * apostrophe and keeps both halves, and its English stop words hold "don" and "t" but not "m",
 * "doesn", "isn" or "ll": "I'm using…" would search for a word "m", which every "I'm" in the
 * collection holds and no answer needs. Spelled out, every half is a stop word.
 */
export function withoutContractions(text: string): string {
  return text
    .replace(
      IRREGULAR_NOT,
      (_match, stem: string) => `${sameCase(IRREGULAR[stem.toLowerCase()] ?? stem, stem)} not`,
    )
    .replace(NOT, ' not')
    .replace(IS, '$1 is')
    .replace(SUFFIX, (_match, suffix: string) => SUFFIXES[suffix.toLowerCase()] ?? '');
}

const IRREGULAR: Readonly<Record<string, string>> = { ca: 'can', wo: 'will', sha: 'shall' };
/** "can't", "won't", "shan't": their stems are not the verbs ("ca", "wo", "sha"). */
const IRREGULAR_NOT = /\b(ca|wo|sha)n['\u2019]t\b/giu;
/** "doesn't", "isn't": the verb stays, "n't" is "not". */
const NOT = /(?<=\p{L})n['\u2019]t\b/giu;
/** "what's", "it's": "is" after a question word or pronoun; after a name, "'s" is its possessive. */
const IS = /\b(what|where|when|who|how|it|that|there|here|he|she|this)['\u2019]s\b/giu;
/** "I'm", "we're", "they've", "you'll", "I'd", "it's" and the possessive "'s", after a letter only (not a quote mark). */
const SUFFIX = /(?<=\p{L})['\u2019](m|re|ve|ll|d|s)\b/giu;
const SUFFIXES: Readonly<Record<string, string>> = {
  m: ' am',
  re: ' are',
  ve: ' have',
  ll: ' will',
  d: ' would',
  s: '',
};

/** `word` with `like`'s first letter's case. */
function sameCase(word: string, like: string): string {
  return /^\p{Lu}/u.test(like) ? `${word.charAt(0).toUpperCase()}${word.slice(1)}` : word;
}
