import type { ConversationTurn } from './answerer.js';

/** Words that point back at something said before ("how long does *it* take?"). */
const REFERS_BACK =
  /\b(?:it|its|that|this|these|those|they|them|their|theirs|there|he|she|him|her|his|same|former|latter)\b/i;
/** Openings that continue the previous question ("and for contractors?", "what about Paris?"). */
const CONTINUES = /^\s*(?:and|but|also|or|so|then|what about|how about|what if|and if)\b/i;
/** Too few words to name a subject of their own ("why?", "how long?"). */
const MAX_BARE_WORDS = 3;

/**
 * Whether a question leans on the one before it: it continues it, refers back with a pronoun,
 * or is too short to name its own subject. A short question with its own subject ("What is
 * the refund policy?") stands alone, so it is searched alone.
 */
export function isFollowUp(question: string): boolean {
  const words = question.split(/\s+/).filter((word) => /\p{L}|\p{N}/u.test(word));
  return words.length <= MAX_BARE_WORDS || CONTINUES.test(question) || REFERS_BACK.test(question);
}

/**
 * What to search for, and to match sentences against: the question, preceded by the previous
 * question of the conversation when this one is a follow-up (search sees no conversation, so
 * "and for contractors?" alone would find nothing about the holidays asked about before).
 */
export function standaloneQuery(question: string, history: readonly ConversationTurn[]): string {
  const previous = history.findLast((turn) => turn.role === 'user')?.content.trim();
  if (previous === undefined || previous === '' || !isFollowUp(question)) return question;
  return `${previous}\n${question}`;
}
