/**
 * What kind of answer a question asks for, read from its question word ("when" → a date), and
 * whether a sentence holds one that the question does not already say: SQuAD-style questions are
 * answered by a span the question lacks, so a sentence that only restates the question rarely
 * answers it.
 */
export type AnswerType = 'number' | 'date' | 'name';

// Each pattern is a plain alternation with no nested quantifier: linear on any input. Sticky: each
// is tried where the question word stands.
// "What percentage…", "what was the population of…", "in which year…": the question word, an optional
// "is the", then the noun that says what is asked.
const ASKING = String.raw`\b(?:what|which)(?: (?:is|was|are|were))?(?: the)?(?: name of(?: the)?)? `;
/** Nouns that ask for a date: "in which year…". */
const DATE_NOUNS = 'year|years|date|day|month|century|decade|era|period|time';
/** Nouns that ask for a place: "which country…". */
const PLACE_NOUNS =
  'country|countries|city|cities|state|region|place|location|continent|island|county|area|town|river|mountain';
const HOW_MEASURE_WORDS = String.raw`\bhow (?:many|much|long|old|far|tall|high|big|large|wide|deep|often|fast|heavy)\b`;
const NUMBER_QUESTION = new RegExp(
  `${HOW_MEASURE_WORDS}|${ASKING}` +
    String.raw`(?:percentage|percent|proportion|share|number|amount|fraction|size|population|cost|price|rate|length|height|distance|temperature|total|average)\b`,
  'y',
);
const DATE_QUESTION = new RegExp(String.raw`\bwhen\b|${ASKING}(?:${DATE_NOUNS})\b`, 'y');
const NAME_QUESTION = new RegExp(
  String.raw`\b(?:who|whom|whose|where)\b|` +
    String.raw`${ASKING}(?:${PLACE_NOUNS}|company|organisation|organization|person|team|university|language)\b|` +
    // "What is the lower house called?": asks what something is named.
    String.raw`\bwhat\b[^?]*\b(?:called|named|known as)\s*(?:\?|$)`,
  'y',
);
/**
 * The noun of a "which year…", "what country…" question: it says what kind of answer is asked, and
 * the sentence that answers rarely repeats it ("In 1900, the Times defined…"). Replaced by `$1`, the
 * words that ask.
 */
export const ANSWER_TYPE_NOUN = new RegExp(
  String.raw`(${ASKING.trimEnd()}) (?:${DATE_NOUNS}|${PLACE_NOUNS})\b`,
  'gi',
);
/**
 * What a "how many…" question counts: the noun after "how many" ("How many attempts does it
 * make?": attempts), or undefined.
 */
export function countedNoun(question: string): string | undefined {
  return /\bhow many\s+(?:of\s+(?:the|its|their|these|those)\s+)?(\p{L}[\p{L}-]*)/iu.exec(question)?.[1];
}

/**
 * The words that say what kind of thing a "which…" or "what…" question asks for ("Which Fastify
 * hook…": Fastify hook), up to three, or undefined: a document titled by that kind ("Hooks") lists
 * its members.
 */
export function askedKind(question: string): string | undefined {
  // Words apart by spaces, each read one way only: linear on any input.
  return /\b(?:which|what)\s+(\p{L}[\p{L}\p{N}.-]*(?:\s+\p{L}[\p{L}\p{N}.-]*){0,2})/iu.exec(question)?.[1];
}

/**
 * The nouns a sentence gives the count of: "Maximum number of retries" counts retries. Reference
 * documentation states a count this way rather than with a figure ("Default: `5`" follows).
 */
export function countedNounsIn(sentence: string): string[] {
  return [...sentence.matchAll(/\b(?:number|count|amount|total) of\s+(?:the\s+)?(\p{L}[\p{L}-]*)/giu)].map(
    (match) => match[1] ?? '',
  );
}

/** The measure word of a "how many/high/long…" question: what it asks, not what it is about. */
export const HOW_MEASURE = new RegExp(HOW_MEASURE_WORDS, 'gi');

const QUESTION_WORD = /\b(?:who|whom|whose|what|which|when|where|why|how)\b/;
const TYPED_QUESTIONS: readonly (readonly [RegExp, AnswerType])[] = [
  [NUMBER_QUESTION, 'number'],
  [DATE_QUESTION, 'date'],
  [NAME_QUESTION, 'name'],
];

/**
 * The answer type a question asks for, or undefined (why, how, what is…), read from its question
 * word: the first one, as a later "when" or "who" opens a clause ("Who led the troops when Cyprus
 * was conquered?" asks for a name, "What did the monks who fled build?" for none).
 */
export function expectedAnswerType(question: string): AnswerType | undefined {
  const lower = question.toLowerCase();
  const questionWord = QUESTION_WORD.exec(lower);
  if (questionWord === null) return undefined;
  for (const [pattern, type] of TYPED_QUESTIONS) {
    pattern.lastIndex = questionWord.index;
    if (pattern.test(lower)) return type;
  }
  return undefined;
}

/** Whether a text reads as a question (rather than a statement, such as a claim to check). */
export function isQuestion(text: string): boolean {
  return (
    text.trimEnd().endsWith('?') ||
    /^\s*(?:who|whom|whose|what|which|when|where|why|how|is|are|was|were|do|does|did|can|could|should|would|will|has|have)\b/i.test(
      text,
    )
  );
}

const NUMBER_WORDS: ReadonlySet<string> = new Set([
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'hundred',
  'hundreds',
  'thousand',
  'thousands',
  'million',
  'millions',
  'billion',
  'dozen',
  'half',
  'twice',
  'once',
  'single',
  'double',
]);
const MONTHS: ReadonlySet<string> = new Set([
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
]);
const DATE_WORDS: ReadonlySet<string> = new Set([
  'century',
  'centuries',
  'decade',
  'bc',
  'ad',
  'bce',
  'ce',
  'today',
  'yesterday',
  'spring',
  'summer',
  'autumn',
  'winter',
]);

/** Words before a bare number that make it a year ("in 911"). */
const YEAR_BEFORE: ReadonlySet<string> = new Set(['in', 'since', 'until', 'circa', 'c']);
const ERAS: ReadonlySet<string> = new Set(['ad', 'bc', 'bce', 'ce']);

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}'\u2019.,%-]*/gu;

/** A token with its trailing punctuation off (`1066,` → `1066`, `U.S.` stays). */
function clean(token: string): string {
  let end = token.length;
  while (end > 0 && /[.,'\u2019-]/.test(token[end - 1] ?? '')) end -= 1;
  return token.slice(0, end);
}

/** The question's words, lower case, for telling new words from repeated ones. */
export function questionWords(question: string): Set<string> {
  return new Set((question.match(TOKEN) ?? []).map((token) => clean(token).toLowerCase()));
}

/** A count or amount; a year ("in 1066") answers "when", not "how many". */
function isNumber(token: string, lower: string): boolean {
  if (/^(?:1[0-9]|20)\d{2}$/.test(token)) return false;
  return /^\p{N}/u.test(token) || NUMBER_WORDS.has(lower);
}

function isDate(
  token: string,
  lower: string,
  next: string | undefined,
  previous: string | undefined,
): boolean {
  if (/^(?:1\d{3}|20\d{2})s?$/.test(token) || /^\d{2,4}s$/.test(token)) return true;
  // An early year: "in 911", "since 476", "800 AD".
  if (
    /^[1-9]\d{2}$/.test(token) &&
    ((previous !== undefined && YEAR_BEFORE.has(previous)) || (next !== undefined && ERAS.has(next)))
  )
    return true;
  if (MONTHS.has(lower) && lower !== 'may') return true;
  if (MONTHS.has(lower)) return /^\p{Lu}/u.test(token);
  if (DATE_WORDS.has(lower)) return true;
  return /^\d{1,2}(?:st|nd|rd|th)$/.test(lower) && next !== undefined && /^centur/.test(next);
}

/**
 * How many words of the expected type a sentence holds that the question does not: numbers for
 * "how many", dates for "when", capitalised names (not the sentence's first word) for "who" and
 * "where". Zero when the sentence only repeats the question's own.
 */
export function typedWordsIn(sentence: string, type: AnswerType, asked: ReadonlySet<string>): number {
  const tokens = (sentence.match(TOKEN) ?? []).map(clean);
  let count = 0;
  for (const [index, token] of tokens.entries()) {
    if (token === '') continue;
    const lower = token.toLowerCase();
    if (asked.has(lower)) continue;
    const next = tokens[index + 1]?.toLowerCase();
    const typed =
      type === 'number'
        ? isNumber(token, lower)
        : type === 'date'
          ? isDate(token, lower, next, tokens[index - 1]?.toLowerCase())
          : index > 0 && /^\p{Lu}/u.test(token) && !MONTHS.has(lower);
    if (typed) count += 1;
  }
  return count;
}
