/**
 * The Snowball English stemmer ("Porter2"), as PostgreSQL's `english_stem` dictionary runs it, for
 * words of lower-case ASCII letters; written from the algorithm's definition
 * (snowballstem.org, `english.sbl`). PostgreSQL 15 ships Snowball 2.2; later releases (PGlite's
 * 18) add one condition to undoubling ("added" stays "add" instead of "ad"), which
 * `keepsDoubleAfterLoneVowel` selects. Each rule below names the step it implements.
 */

export interface EnglishStemmerVariant {
  /** Snowball after 2.2: no undoubling when the double consonant follows exactly "a", "e" or "o". */
  readonly keepsDoubleAfterLoneVowel: boolean;
}

const VOWELS = new Set('aeiouy');
/** Vowels, w, x and Y: a syllable ending in one is not short (`v_WXY`). */
const VOWELS_W_X_Y = new Set('aeiouywxY');
const VALID_LI = new Set('cdeghkmnrt');
const LONE_VOWELS_BEFORE_DOUBLE = new Set('aeo');
const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);

/** Whole words stemmed by rule of their own (`exception1`). */
const EXCEPTIONS = new Map<string, string>([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'],
  ['news', 'news'],
  ['howe', 'howe'],
  ['atlas', 'atlas'],
  ['cosmos', 'cosmos'],
  ['bias', 'bias'],
  ['andes', 'andes'],
]);
/** Words left as they are once Step 1a has run (`exception2`). */
const AFTER_STEP_1A = new Set([
  'inning',
  'outing',
  'canning',
  'herring',
  'earring',
  'proceed',
  'exceed',
  'succeed',
]);
/** Prefixes whose end is R1's start (`mark_regions`). */
const R1_PREFIXES = ['gener', 'commun', 'arsen'];

/** A suffix and what it does to the word (the longest suffix a step lists that the word ends with acts). */
type Rule = readonly [suffix: string, act: (stem: Stem, start: number) => void];

class Stem {
  constructor(
    public word: string,
    readonly p1: number,
    readonly p2: number,
  ) {}

  isVowel(index: number): boolean {
    return VOWELS.has(this.word[index] ?? '');
  }

  /** Whether a vowel comes before `end` (exclusive). */
  hasVowelBefore(end: number): boolean {
    for (let index = 0; index < end; index++) if (this.isVowel(index)) return true;
    return false;
  }

  /** The letter before `index`, or '' at the start. */
  letterBefore(index: number): string {
    return this.word[index - 1] ?? '';
  }

  /**
   * A short syllable ends at `end` (exclusive): a non-vowel, a vowel and a non-vowel other than w,
   * x or Y; or, at the word's start, a vowel and a non-vowel.
   */
  shortSyllableEndsAt(end: number): boolean {
    if (end >= 3) {
      return !VOWELS_W_X_Y.has(this.word[end - 1] ?? '') && this.isVowel(end - 2) && !this.isVowel(end - 3);
    }
    return end === 2 && !this.isVowel(1) && this.isVowel(0);
  }

  replace(start: number, replacement: string): void {
    this.word = this.word.slice(0, start) + replacement;
  }
}

/** Runs the rule of the longest of `rules`' suffixes the word ends with, if any. */
function step(stem: Stem, rules: readonly Rule[]): void {
  let found: Rule | undefined;
  for (const rule of rules) {
    if (stem.word.endsWith(rule[0]) && (found === undefined || rule[0].length > found[0].length))
      found = rule;
  }
  if (found !== undefined) found[1](stem, stem.word.length - found[0].length);
}

type Condition = (stem: Stem, start: number) => boolean;
const inR1: Condition = (stem, start) => start >= stem.p1;
/** R2 starts at or after R1: in R2 is in R1 too. */
const inR2: Condition = (stem, start) => start >= stem.p2;
const always: Condition = () => true;
/** The suffix becomes `replacement` when `applies`. */
const to =
  (replacement: string, applies: Condition = always) =>
  (stem: Stem, start: number): void => {
    if (applies(stem, start)) stem.replace(start, replacement);
  };
const unchanged = () => {};

const STEP_1A: readonly Rule[] = [
  ['sses', to('ss')],
  ['ied', (stem, start) => stem.replace(start, start >= 2 ? 'i' : 'ie')],
  ['ies', (stem, start) => stem.replace(start, start >= 2 ? 'i' : 'ie')],
  // Deleted when a vowel comes before the letter before it ("gaps" → "gap", "gas" stays).
  ['s', to('', (stem, start) => stem.hasVowelBefore(start - 1))],
  ['us', unchanged],
  ['ss', unchanged],
];

function step1b(stem: Stem, variant: EnglishStemmerVariant): void {
  const eed = to('ee', inR1);
  const ed = (s: Stem, start: number): void => {
    if (!s.hasVowelBefore(start)) return;
    s.replace(start, '');
    const word = s.word;
    if (word.endsWith('at') || word.endsWith('bl') || word.endsWith('iz')) {
      s.word = `${word}e`;
    } else if (DOUBLES.has(word.slice(-2))) {
      const loneVowel = word.length === 3 && LONE_VOWELS_BEFORE_DOUBLE.has(word[0] ?? '');
      if (!(variant.keepsDoubleAfterLoneVowel && loneVowel)) s.word = word.slice(0, -1);
    } else if (word.length === s.p1 && s.shortSyllableEndsAt(word.length)) {
      s.word = `${word}e`;
    }
  };
  step(stem, [
    ['eed', eed],
    ['eedly', eed],
    ['ed', ed],
    ['edly', ed],
    ['ing', ed],
    ['ingly', ed],
  ]);
}

function step1c(stem: Stem): void {
  const word = stem.word;
  const last = word.length - 1;
  if ((word[last] === 'y' || word[last] === 'Y') && last >= 2 && !stem.isVowel(last - 1)) {
    stem.replace(last, 'i');
  }
}

const STEP_2: readonly Rule[] = [
  ['tional', to('tion', inR1)],
  ['enci', to('ence', inR1)],
  ['anci', to('ance', inR1)],
  ['abli', to('able', inR1)],
  ['entli', to('ent', inR1)],
  ['izer', to('ize', inR1)],
  ['ization', to('ize', inR1)],
  ['ational', to('ate', inR1)],
  ['ation', to('ate', inR1)],
  ['ator', to('ate', inR1)],
  ['alism', to('al', inR1)],
  ['aliti', to('al', inR1)],
  ['alli', to('al', inR1)],
  ['fulness', to('ful', inR1)],
  ['ousli', to('ous', inR1)],
  ['ousness', to('ous', inR1)],
  ['iveness', to('ive', inR1)],
  ['iviti', to('ive', inR1)],
  ['biliti', to('ble', inR1)],
  ['bli', to('ble', inR1)],
  ['ogi', to('og', (stem, start) => inR1(stem, start) && stem.letterBefore(start) === 'l')],
  ['fulli', to('ful', inR1)],
  ['lessli', to('less', inR1)],
  ['li', to('', (stem, start) => inR1(stem, start) && VALID_LI.has(stem.letterBefore(start)))],
];

const STEP_3: readonly Rule[] = [
  ['tional', to('tion', inR1)],
  ['ational', to('ate', inR1)],
  ['alize', to('al', inR1)],
  ['icate', to('ic', inR1)],
  ['iciti', to('ic', inR1)],
  ['ical', to('ic', inR1)],
  ['ful', to('', inR1)],
  ['ness', to('', inR1)],
  ['ative', to('', inR2)],
];

const STEP_4: readonly Rule[] = [
  ...[
    'al',
    'ance',
    'ence',
    'er',
    'ic',
    'able',
    'ible',
    'ant',
    'ement',
    'ment',
    'ent',
    'ism',
    'ate',
    'iti',
    'ous',
    'ive',
    'ize',
  ].map((suffix): Rule => [suffix, to('', inR2)]),
  ['ion', to('', (stem, start) => inR2(stem, start) && ['s', 't'].includes(stem.letterBefore(start)))],
];

const STEP_5: readonly Rule[] = [
  [
    'e',
    to('', (stem, start) => inR2(stem, start) || (inR1(stem, start) && !stem.shortSyllableEndsAt(start))),
  ],
  ['l', to('', (stem, start) => inR2(stem, start) && stem.letterBefore(start) === 'l')],
];

/** The start of the region after the first non-vowel that follows a vowel, from `from`; the length when none. */
function regionAfter(word: string, from: number): number {
  for (let index = from + 1; index < word.length; index++) {
    if (!VOWELS.has(word[index] ?? '') && VOWELS.has(word[index - 1] ?? '')) return index + 1;
  }
  return word.length;
}

/** The stem of a word of lower-case ASCII letters. */
export function englishStem(word: string, variant: EnglishStemmerVariant): string {
  const exception = EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;
  if (word.length < 3) return word;
  // Prelude: a y that starts the word or follows a vowel is a consonant, written Y meanwhile.
  let marked = '';
  for (let index = 0; index < word.length; index++) {
    const letter = word[index] ?? '';
    const previous = marked[index - 1];
    marked +=
      letter === 'y' && (index === 0 || (previous !== undefined && VOWELS.has(previous))) ? 'Y' : letter;
  }
  const prefix = R1_PREFIXES.find((candidate) => marked.startsWith(candidate));
  const p1 = prefix === undefined ? regionAfter(marked, 0) : prefix.length;
  const p2 = regionAfter(marked, p1);
  const stem = new Stem(marked, p1, p2);
  step(stem, STEP_1A);
  if (!AFTER_STEP_1A.has(stem.word)) {
    step1b(stem, variant);
    step1c(stem);
    step(stem, STEP_2);
    step(stem, STEP_3);
    step(stem, STEP_4);
    step(stem, STEP_5);
  }
  return stem.word.replaceAll('Y', 'y');
}
