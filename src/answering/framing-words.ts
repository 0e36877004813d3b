/**
 * Words that frame a question rather than say what it is about ("tell me how many…"), and two
 * function words PostgreSQL's English stop words lack (whose, also: it has who, whom and which).
 * PostgreSQL's list already drops what, how, the, is…; these would otherwise match any sentence
 * using them, count as missing where none does ("Nothing in them is about whose…"), and be
 * carried into a follow-up as its topic.
 */
const WORDS = [
  'tell',
  'explain',
  'describe',
  'know',
  'please',
  'give',
  'show',
  'find',
  'want',
  'need',
  'many',
  'much',
  'anything',
  'something',
  'anyone',
  'someone',
  'kind',
  'sort',
  'say',
  'says',
  'said',
  'whose',
  'also',
];

/** Every framing word in a text, to replace. */
export const FRAMING_WORDS = new RegExp(`\\b(?:${WORDS.join('|')})\\b`, 'gi');

const FRAMING_WORD = new RegExp(`^(?:${WORDS.join('|')})$`, 'i');

/** Whether a single word only frames a question, whatever its case. */
export function isFramingWord(word: string): boolean {
  return FRAMING_WORD.test(word);
}
