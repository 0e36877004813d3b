import type { TeamSearch } from '../retrieval/search-types.js';
import type { Answerer, AnswerInput, Passage } from './answerer.js';
import { standaloneQuery } from './follow-up.js';
import { sentencesOf, wordCount } from './sentences.js';

/** Said when the passages hold nothing that answers the question; never an invented answer. */
export const NOT_FOUND_ANSWER = "I couldn't find an answer to that in your team's documents.";

export interface ExtractiveLimits {
  /** Most sentences in an answer. Default 4. */
  readonly maxSentences: number;
  /** Most words in an answer (a first sentence over it is cut). Default 120. */
  readonly maxWords: number;
}

const DEFAULT_LIMITS: ExtractiveLimits = { maxSentences: 4, maxWords: 120 };

/** Sentences of this share of the question's weight (IDF) or more can answer it. */
const MIN_COVERAGE = 0.3;
/** A sentence scoring under this share of the best one would only pad the answer. */
const MIN_RELATIVE_SCORE = 0.4;
/**
 * Two sentences sharing this share of their terms say the same thing (a paraphrase, a repeat);
 * set high because sentences answering one question share its terms anyway.
 */
const NEAR_DUPLICATE = 0.8;
/** How much a lower-ranked passage's sentences are discounted, per rank. */
const RANK_DISCOUNT = 0.1;
/** Bounds the one analysis query: six passages of ~256 words hold ~100 sentences. */
const MAX_CANDIDATES = 300;
// BM25's usual constants, applied to sentences.
const K1 = 1.2;
const B = 0.75;

/**
 * Words that frame a question rather than say what it is about ("tell me how many…"). PostgreSQL's
 * stop words already drop what, how, the, is…; these would otherwise match any sentence using them.
 */
const FRAMING_WORDS =
  /\b(?:tell|explain|describe|know|please|give|show|find|want|need|many|much|anything|something|anyone|someone|kind|sort|say|says|said)\b/gi;

interface Candidate {
  readonly text: string;
  readonly words: number;
  readonly passage: Passage;
  /** The passage's place in the ranking, 0 for the best. */
  readonly rank: number;
  /** Its place in the passage's text. */
  readonly index: number;
}

interface Scored {
  readonly candidate: Candidate;
  readonly terms: ReadonlyMap<string, number>;
  readonly score: number;
  readonly coverage: number;
}

/**
 * Answers with no model: the sentences of the top passages that best match the question, scored
 * like BM25 over sentences with PostgreSQL's own stemming (`TeamSearch.analyze`), discounted by
 * their passage's rank, without near-duplicates, capped in length; then grouped by passage in
 * reading order, each followed by its citation `[n]`. When no sentence shares enough of the
 * question's meaningful terms, it says the documents hold no answer.
 */
export class ExtractiveAnswerer implements Answerer {
  readonly kind = 'extractive' as const;
  private readonly limits: ExtractiveLimits;

  constructor(
    private readonly analyzer: Pick<TeamSearch, 'analyze'>,
    limits: Partial<ExtractiveLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  async *answer(input: AnswerInput): AsyncGenerator<string, void, undefined> {
    const chosen = await this.choose(input);
    if (chosen.length === 0) {
      yield NOT_FOUND_ANSWER;
      return;
    }
    yield* render(chosen);
  }

  private async choose(input: AnswerInput): Promise<Scored[]> {
    const candidates = candidatesOf(input.passages);
    if (candidates.length === 0) return [];
    // A follow-up ("and for contractors?") is matched with the question it follows, as it was searched.
    const question = standaloneQuery(input.question, input.history);
    const framed = question.replace(FRAMING_WORDS, ' ');
    const [questionTerms, ...sentenceTerms] = await this.analyzer.analyze([
      // A question of framing words only ("tell me more") keeps them rather than be empty.
      /\p{L}{2}/u.test(framed) ? framed : question,
      ...candidates.map((candidate) => candidate.text),
    ]);
    input.signal.throwIfAborted();
    if (questionTerms === undefined || questionTerms.size === 0) return [];
    const scored = score(candidates, [...questionTerms.keys()], sentenceTerms);
    return this.select(scored);
  }

  /** Best first, skipping weak and repeated sentences, within the sentence and word limits. */
  private select(scored: Scored[]): Scored[] {
    const ranked = scored.filter((item) => item.coverage >= MIN_COVERAGE).sort((a, b) => b.score - a.score);
    const best = ranked[0]?.score ?? 0;
    const chosen: Scored[] = [];
    let words = 0;
    for (const item of ranked) {
      if (chosen.length >= this.limits.maxSentences) break;
      if (item.score < best * MIN_RELATIVE_SCORE) break;
      if (chosen.some((other) => overlap(other.terms, item.terms) >= NEAR_DUPLICATE)) continue;
      if (chosen.length > 0 && words + item.candidate.words > this.limits.maxWords) continue;
      chosen.push(
        item.candidate.words > this.limits.maxWords
          ? {
              ...item,
              candidate: { ...item.candidate, text: firstWords(item.candidate.text, this.limits.maxWords) },
            }
          : item,
      );
      words += Math.min(item.candidate.words, this.limits.maxWords);
    }
    return chosen;
  }
}

/** Each passage's sentences, once each (overlapping chunks repeat some), headings and fragments left out. */
function candidatesOf(passages: readonly Passage[]): Candidate[] {
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const [rank, passage] of passages.entries()) {
    for (const [index, text] of sentencesOf(passage.hit.text).entries()) {
      const words = wordCount(text);
      const key = text.toLowerCase();
      if (seen.has(key) || words < 3 || (words <= 4 && !/[.!?]["')\]]*$/.test(text))) continue;
      seen.add(key);
      candidates.push({ text, words, passage, rank, index });
      if (candidates.length >= MAX_CANDIDATES) return candidates;
    }
  }
  return candidates;
}

/**
 * BM25 over the candidate sentences (IDF from the sentences themselves, so a question term found
 * nowhere weighs most and lowers every sentence's coverage), times a discount by passage rank.
 */
function score(
  candidates: readonly Candidate[],
  questionTerms: readonly string[],
  sentenceTerms: readonly (ReadonlyMap<string, number> | undefined)[],
): Scored[] {
  const terms = candidates.map((_, index) => sentenceTerms[index] ?? new Map<string, number>());
  const lengths = terms.map((map) => [...map.values()].reduce((sum, count) => sum + count, 0));
  const averageLength = Math.max(1, lengths.reduce((sum, length) => sum + length, 0) / candidates.length);
  const idf = new Map<string, number>();
  for (const term of questionTerms) {
    const documentFrequency = terms.filter((map) => map.has(term)).length;
    idf.set(term, Math.log(1 + (candidates.length - documentFrequency + 0.5) / (documentFrequency + 0.5)));
  }
  const questionWeight = [...idf.values()].reduce((sum, weight) => sum + weight, 0);
  return candidates.map((candidate, index) => {
    const sentence = terms[index] ?? new Map<string, number>();
    const length = lengths[index] ?? 0;
    let bm25 = 0;
    let matched = 0;
    for (const term of questionTerms) {
      const frequency = sentence.get(term) ?? 0;
      if (frequency === 0) continue;
      const weight = idf.get(term) ?? 0;
      matched += weight;
      bm25 += (weight * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / averageLength));
    }
    return {
      candidate,
      terms: sentence,
      score: bm25 / (1 + RANK_DISCOUNT * candidate.rank),
      coverage: questionWeight === 0 ? 0 : matched / questionWeight,
    };
  });
}

/** Shared terms over the smaller sentence's terms: 1 when one sentence says nothing the other does not. */
function overlap(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 0;
  let shared = 0;
  for (const term of small.keys()) if (large.has(term)) shared += 1;
  return shared / small.size;
}

/**
 * The chosen sentences grouped by the passage (document) they cite, in citation order (the
 * search's ranking), each group in reading order: one paragraph per source, [1] before [2].
 */
function* render(chosen: readonly Scored[]): Generator<string> {
  const groups = new Map<number, Candidate[]>();
  for (const { candidate } of chosen) {
    const group = groups.get(candidate.passage.number) ?? [];
    group.push(candidate);
    groups.set(candidate.passage.number, group);
  }
  let first = true;
  for (const [number, group] of [...groups].sort(([a], [b]) => a - b)) {
    group.sort((a, b) => a.passage.hit.chunkId - b.passage.hit.chunkId || a.index - b.index);
    for (const [position, candidate] of group.entries()) {
      const separator = first ? '' : position === 0 ? '\n\n' : ' ';
      first = false;
      yield `${separator}${withCitation(candidate.text, number)}`;
    }
  }
}

const END_MARKS: ReadonlySet<string> = new Set(['.', '!', '?', '\u2026']);

/** `…holiday.` becomes `…holiday [1].`; a sentence with no end mark gets ` [1]` after it. */
export function withCitation(sentence: string, number: number): string {
  // Scanned from the end: `/[.!?\u2026]+$/` backtracked over every run of marks inside the sentence.
  let marksStart = sentence.length;
  while (marksStart > 0 && END_MARKS.has(sentence[marksStart - 1] ?? '')) marksStart -= 1;
  if (marksStart === sentence.length) return `${sentence} [${number}]`;
  return `${sentence.slice(0, marksStart).trimEnd()} [${number}]${sentence.slice(marksStart)}`;
}

function firstWords(text: string, count: number): string {
  return `${text
    .split(/\s+/)
    .filter((word) => word !== '')
    .slice(0, count)
    .join(' ')}\u2026`;
}
