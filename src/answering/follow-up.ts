import type { ConversationTurn } from './answerer.js';

/** Words that point back at something said before ("how long does *it* take?"). */
const REFERS_BACK =
  /\b(?:it|its|that|this|these|those|they|them|their|theirs|there|he|she|him|her|his|same|former|latter)\b/i;
/** Openings that continue the previous question ("and for contractors?", "what about Paris?"). */
const CONTINUES = /^\s*(?:and|but|also|or|so|then|what about|how about|what if|and if)\b/i;
/** Too few words to name a subject of their own ("why?", "how long?"). */
const MAX_BARE_WORDS = 3;
/**
 * A question that points back but has more words of its own than this names its own subject
 * ("What century did the Normans first gain their separate identity?"): "their" is the Normans'.
 */
const MAX_OWN_WORDS_OF_A_FOLLOW_UP = 2;
/** "Are there…" points at nothing said before. */
const EXISTENTIAL_THERE = /\b(?:is|are|was|were|be|been)\s+there\b|\bthere\s+(?:is|are|was|were|be)\b/gi;
/** Words that carry no subject: question words, auxiliaries, pronouns, the commonest function words. */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but so of in on at to for from by with about as into than then also ' +
    'what which who whom whose when where why how is are was were be been being do does did ' +
    'can could should would will shall may might must has have had not no any some many much ' +
    'it its that this these those they them their theirs there he she him her his i me my we us our you your ' +
    'same former latter one ones more most long take get'
  ).split(' '),
);

/**
 * Whether a question leans on the one before it: it continues it, is too short to name its own
 * subject, or refers back with a pronoun and has few words of its own. A question with its own
 * subject ("What is the refund policy?", "When did the Normans lose their lands?") stands alone,
 * so it is searched alone.
 */
export function isFollowUp(question: string): boolean {
  const words = question.split(/\s+/).filter((word) => /\p{L}|\p{N}/u.test(word));
  if (words.length <= MAX_BARE_WORDS || CONTINUES.test(question)) return true;
  if (!REFERS_BACK.test(question.replace(EXISTENTIAL_THERE, ' '))) return false;
  const own = words.filter((word) => {
    const bare = word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    return bare !== '' && !FUNCTION_WORDS.has(bare);
  });
  return own.length <= MAX_OWN_WORDS_OF_A_FOLLOW_UP;
}

/** The conversation's last question, if any. */
export function previousQuestion(history: readonly ConversationTurn[]): string | undefined {
  const previous = history.findLast((turn) => turn.role === 'user')?.content.trim();
  return previous === undefined || previous === '' ? undefined : previous;
}

/**
 * What to search for: the question, preceded by the previous question of the conversation when
 * this one is a follow-up (search sees no conversation, so "and for contractors?" alone would
 * find nothing about the holidays asked about before).
 */
export function standaloneQuery(question: string, history: readonly ConversationTurn[]): string {
  const previous = previousQuestion(history);
  if (previous === undefined || !isFollowUp(question)) return question;
  return `${previous}\n${question}`;
}
