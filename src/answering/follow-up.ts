import type { Reader } from '../access.js';
import { withoutContractions } from '../contractions.js';
import { titleWithFileName } from '../file-name-words.js';
import { withIdentifierWords } from '../identifier-words.js';
import type { SearchHit, TeamSearch } from '../retrieval/search-types.js';
import type { ConversationTurn } from './answerer.js';
import { citedNumbers } from './citations.js';
import { isFramingWord } from './framing-words.js';

/** Words that point back at something said before ("how long does *it* take?"). */
const REFERS_BACK =
  /\b(?:it|its|that|this|these|those|they|them|their|theirs|there|he|she|him|her|his|same|former|latter)\b/i;
/** Openings that continue the previous question ("and for contractors?", "what about Paris?"). */
const CONTINUES = /^\s*(?:and|but|also|or|so|then|what about|how about|what if|and if)\b/i;
/** Too few words to name a subject of their own ("why?", "how long?"). */
const MAX_BARE_WORDS = 3;
/** "Are there…" points at nothing said before. */
const EXISTENTIAL_THERE = /\b(?:is|are|was|were|be|been)\s+there\b|\bthere\s+(?:is|are|was|were|be)\b/gi;
/**
 * Whether a turn leans on the conversation: it continues it ("And for contractors?", "What about
 * Paris?"), is too short to name a subject of its own ("Why?"), or points back at something said
 * before ("Can *that* logger…", "Do clients reply to *those* pings?"). Such a turn is searched
 * with the topic it continues (`carriedTopic`), weighted below its own words, so that a turn with
 * a subject of its own still finds that subject first.
 */
export function leansOnConversation(question: string): boolean {
  const words = question.split(/\s+/).filter((word) => /\p{L}|\p{N}/u.test(word));
  if (words.length <= MAX_BARE_WORDS || CONTINUES.test(question)) return true;
  return REFERS_BACK.test(question.replace(EXISTENTIAL_THERE, ' '));
}

/** The conversation's last question, if any. */
export function previousQuestion(history: readonly ConversationTurn[]): string | undefined {
  const previous = history.findLast((turn) => turn.role === 'user')?.content.trim();
  return previous === undefined || previous === '' ? undefined : previous;
}

/** How many of the earlier questions' words a turn carries: the topic, not the whole question. */
const TOPIC_WORDS = 3;
/** How many earlier questions the topic is taken from, the latest first (a chain of follow-ups). */
const TOPIC_QUESTIONS = 2;
/** The passages found for an earlier question whose headings and titles say what it was about. */
const NAMING_PASSAGES = 3;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'\u2019._-]*/gu;

/**
 * What a turn that leans on the conversation continues: the words of the last questions asked
 * before it that it does not say itself, at most three. First those that name what the earlier
 * questions found: the headings, titles and file names of their best passages ("hook" for a
 * question that found the "Hooks" page, "commander" for one that found `commander-Readme.md`),
 * then those the last answer repeats (what the exchange turned out to be about, rather than a rare
 * word of its phrasing), then the rarest (by how few of the team's chunks hold them, and held by
 * at most half of them), the latest question's first among equals: "child" for "Can that logger
 * use a different level from its parent?" after "How do I tag every pino log line with a child
 * logger?". None for a turn that stands alone, or at a conversation's start. The earlier
 * questions are searched as the reader (lexical, their own words): only what they may open names.
 */
export async function carriedTopic(
  search: Pick<TeamSearch, 'analyze' | 'termStatistics' | 'search'>,
  reader: Reader,
  question: string,
  history: readonly ConversationTurn[],
  signal?: AbortSignal,
): Promise<string[]> {
  if (!leansOnConversation(question)) return [];
  const earlier = history
    .filter((turn) => turn.role === 'user')
    .slice(-TOPIC_QUESTIONS)
    .reverse()
    .map((turn) => withoutContractions(turn.content));
  // A word that only frames a question ("whose", "tell") names no topic.
  const words = [...new Set(earlier.flatMap((text) => text.match(WORD) ?? []))].filter(
    (word) => !isFramingWord(word),
  );
  if (words.length === 0) return [];
  // The last answer says which of those words the exchange was about: the ones it repeats.
  // One that cites nothing found nothing (a "not found" repeats the question's words).
  const last = history.findLast((turn) => turn.role === 'assistant')?.content ?? '';
  const answered = citedNumbers(last).length > 0 ? last : '';
  const found: SearchHit[] = [];
  for (const text of earlier) {
    if (text.match(WORD) === null) continue;
    const hits = await search.search({ reader, query: text, topK: NAMING_PASSAGES, mode: 'lexical', signal });
    found.push(...hits);
  }
  const [own, answer, naming, ...analysed] = await search.analyze([
    withoutContractions(question),
    answered,
    found.map(namesOf).join('\n'),
    ...words,
  ]);
  const lexemes = analysed.map((terms, index) => ({
    word: words[index] as string,
    terms: [...(terms?.keys() ?? [])].filter((term) => own?.has(term) !== true),
  }));
  const inAnswer = (entry: { terms: readonly string[] }) =>
    entry.terms.some((term) => answer?.has(term) === true);
  const named = (entry: { terms: readonly string[] }) =>
    entry.terms.some((term) => naming?.has(term) === true);
  const candidates = lexemes.filter((entry) => entry.terms.length > 0);
  if (candidates.length === 0) return [];
  const statistics = await search.termStatistics(reader.teamId, [
    ...new Set(candidates.flatMap((entry) => entry.terms)),
  ]);
  const chunksHolding = (entry: { terms: readonly string[] }) =>
    Math.min(...entry.terms.map((term) => statistics.documentFrequencies.get(term) ?? 0));
  // A word no chunk holds cannot lead search anywhere; one most chunks hold names no topic.
  return candidates
    .map((entry, index) => ({ ...entry, index, chunks: chunksHolding(entry) }))
    .filter((entry) => entry.chunks > 0 && entry.chunks * 2 <= statistics.chunks)
    .sort(
      (a, b) =>
        Number(named(b)) - Number(named(a)) ||
        Number(inAnswer(b)) - Number(inAnswer(a)) ||
        a.chunks - b.chunks ||
        a.index - b.index,
    )
    .slice(0, TOPIC_WORDS)
    .sort((a, b) => a.index - b.index)
    .map((entry) => entry.word);
}

/** What names a passage's subject: its headings, its title and its file name, with their identifiers' words. */
function namesOf(hit: SearchHit): string {
  return withIdentifierWords([...hit.headingPath, titleWithFileName(hit.title, hit.fileName)].join('\n'));
}
