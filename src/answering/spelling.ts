/**
 * British and American spellings read as one, so "the centre of dairy farming" answers "What is
 * the center of…": the stemmer keeps "centr" and "center", "organis" and "organ" apart. Both the
 * question and the passages go through it, so a word rewritten that has no other spelling is still
 * read alike on both sides; each rule only has to avoid merging two different words ("four"
 * staying "four", not "for"). Word endings only, each rule a single pass with no nested quantifier.
 */
const RULES: readonly (readonly [RegExp, (match: string, ...groups: string[]) => string])[] = [
  // centre, metre, fibres → center, meter, fibers (centred → centered).
  [
    /\b(\p{L}{2,}[tb])re(s|d)?\b/gu,
    (_match, stem = '', ending = '') => `${stem}er${ending === 'd' ? 'ed' : ending}`,
  ],
  // colour, behaviours, honoured → color, behaviors, honored (not four, your, flour: too short).
  [
    /\b(\p{L}{3,})our(s|ed|ing|ful|ite|ites|able|ably|less)?\b/gu,
    (_match, stem = '', ending = '') => `${stem}or${ending}`,
  ],
  // organise, organisation, analysed → organize, organization, analyzed (not rise, noise, raise).
  [
    /\b(\p{L}{3,})([iy])s(e|es|ed|ing|ation|ations|er|ers)\b/gu,
    (_match, stem = '', vowel = '', ending = '') => `${stem}${vowel}z${ending}`,
  ],
  // travelled, modelling → traveled, modeling (not filled, called: too short).
  [/\b(\p{L}{3,}[aeiou])ll(ed|ing|er|ers)\b/gu, (_match, stem = '', ending = '') => `${stem}l${ending}`],
];

/** The text with British spellings of word endings in their American form. */
export function americanSpelling(text: string): string {
  let spelled = text;
  for (const [pattern, replace] of RULES) spelled = spelled.replace(pattern, replace);
  return spelled;
}
