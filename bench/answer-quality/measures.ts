// How an answer is read for the answer-quality figures (bench/answer-quality and its replay).
import { NOT_FOUND_ANSWER } from '../../src/answering/extractive-answerer.js';
import type { ChatAnswer } from './chat-client.js';
import { withoutMarkers } from './squad.js';

/** The answer as people read it: citation markers out. */
export function plain(answer: Pick<ChatAnswer, 'text' | 'sources'>): string {
  return withoutMarkers(answer.text, new Set(answer.sources.map((source) => source.citation))).trim();
}

/**
 * Cut after `.`, `!` or `?` and a space, as naively as the figures were read (a strict
 * reading: "St. Louis" ends a sentence), so an answer gains nothing from the answerer's own splitter.
 */
export function naiveSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

/** The answer's first sentence (a lead line of its own counts as the sentence). */
export function firstSentence(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return naiveSentences(line)[0] ?? line;
}

/** "Not found" with no citation: what a question the documents cannot answer should get. */
export function isNotFound(answer: ChatAnswer): boolean {
  return answer.sources.length === 0 && answer.text.trim().startsWith(NOT_FOUND_ANSWER.slice(0, 20));
}

const WORD = /[\p{L}\p{N}]+/gu;

function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(WORD) ?? []);
}

/** The naive baseline: the top hit's sentence sharing most (distinct) words with the question. */
export function baselineSentence(question: string, topHit: string | undefined): string {
  if (topHit === undefined) return '';
  const asked = wordSet(question);
  let best = '';
  let bestShared = -1;
  for (const line of topHit.split('\n')) {
    for (const text of naiveSentences(line)) {
      let shared = 0;
      for (const word of wordSet(text)) if (asked.has(word)) shared += 1;
      if (shared > bestShared) {
        best = text;
        bestShared = shared;
      }
    }
  }
  return best;
}
