// SciFact's abstracts grown to a larger collection for the speed benchmarks beside Xapian (issue
// 37's 50k and 200k sets): the abstracts themselves, then documents made of other abstracts'
// sentences. Every derived document mixes the sentences of three abstracts, so it is a new bag of
// words (not a copy that would tie with its original) with the corpus's own vocabulary, term
// frequencies and lengths. The judgements still name only the original abstracts: the derived
// documents are distractors, as a larger real collection's other documents would be.
import { seededRandom } from '../../test/helpers/seeded-random.js';
import type { ScifactDocument } from './scifact.js';

/** Abstracts whose sentences one derived document mixes. */
const SOURCES_PER_DERIVED = 3;

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z0-9])/).filter((sentence) => sentence.trim() !== '');
}

/**
 * The corpus and, when `size` is larger, `size − corpus.length` derived documents (ids
 * `derived-<seed>-<n>`), the same for the same corpus, size and seed; `size` at or below the
 * corpus's keeps its first `size` abstracts.
 */
export function scifactOfSize(
  corpus: readonly ScifactDocument[],
  size: number,
  seed = 37,
): ScifactDocument[] {
  if (size <= corpus.length) return corpus.slice(0, size);
  const next = seededRandom(seed);
  const split = corpus.map((document) => sentences(document.text));
  const pick = () => Math.floor(next() * corpus.length);
  const derived: ScifactDocument[] = [];
  for (let n = 0; corpus.length + n < size; n++) {
    const sources = Array.from({ length: SOURCES_PER_DERIVED }, pick);
    const lead = sources[0] ?? 0;
    // As many sentences as the lead abstract has, taken in turn from each source.
    const count = Math.max(1, split[lead]?.length ?? 1);
    const text: string[] = [];
    for (let position = 0; position < count; position++) {
      const from = split[sources[position % SOURCES_PER_DERIVED] ?? lead] ?? [];
      const sentence = from[position % Math.max(1, from.length)];
      if (sentence !== undefined) text.push(sentence);
    }
    derived.push({
      id: `derived-${seed}-${n}`,
      title: corpus[lead]?.title ?? '',
      text: text.join(' '),
      metadata: {},
    });
  }
  return [...corpus, ...derived];
}
