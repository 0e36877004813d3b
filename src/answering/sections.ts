import type { TermStatistics } from '../retrieval/search-types.js';
import type { Passage } from './answerer.js';

/**
 * Which passage answers, and whether any does. Each passage is a section of its document (chunks
 * never span two), read as three fields, as BM25F reads a web page: the headings it sits under,
 * its document's title, and its body. A question's term in a heading says what the whole section
 * is about ("Caret Ranges", "`msgPrefix`"), so it counts several times what the same term in a
 * sentence does. Terms weigh what they weigh in the team's whole collection (IDF over its chunks):
 * a term few chunks hold says what a question is about; "policy" or "log" in half of them says
 * little.
 */

/** How many body occurrences a term in a heading or the title counts for (BM25F field boosts). */
const HEADING_BOOST = 3;
const TITLE_BOOST = 1.5;
// BM25's usual constants.
const K1 = 1.2;
const B = 0.75;
/**
 * Reciprocal rank fusion's constant for the two rankings of a handful of passages (search's over
 * the whole collection, BM25F's over the sections): the top of either counts most.
 */
const FUSION_K = 2;
/** How many times a term naming the kind a "which…" question asks for ("Which Fastify hook…") counts when titles are weighed. */
const ASKED_KIND = 2;
/** What a section counts for, fused, when another passage's title names all its title names of the question, and more its headings do not. */
const OUTNAMED_DOCUMENT = 0.5;

/** How well a field's terms hold a question term: 1 for the term, less for another form or a synonym. */
export type TermMatch = (term: string, terms: ReadonlyMap<string, number>) => number;

/** A passage's terms by field. */
export interface SectionFields {
  readonly passage: Passage;
  readonly body: ReadonlyMap<string, number>;
  /** Its prose sentences' terms, each on its own (code left out: it shows, it does not say). */
  readonly sentences: readonly ReadonlyMap<string, number>[];
  readonly heading: ReadonlyMap<string, number> | undefined;
  readonly title: ReadonlyMap<string, number> | undefined;
}

/** How much of the question the passages hold between them. */
export interface Evidence {
  /**
   * The share of the question's weight (its terms' collection IDF, each times its weight in the
   * question) found in some passage's heading, title or body.
   */
  readonly coverage: number;
  /**
   * The largest share of that weight one passage holds on its own: what the answer's section
   * can hold at best. Terms spread over unrelated sections ("AWS" in one, "secrets" in another)
   * answer nothing together.
   */
  readonly strongest: number;
  /** The question's terms no passage holds, weightiest first. */
  readonly missing: readonly string[];
}

/**
 * Each term's weight in the question times its IDF in the collection (Lucene's, never negative).
 * A term no chunk holds weighs most: the question asks about something the collection never
 * names.
 */
export function collectionWeights(
  question: ReadonlyMap<string, number>,
  statistics: TermStatistics,
): Map<string, number> {
  const weights = new Map<string, number>();
  const chunks = Math.max(statistics.chunks, 1);
  for (const [term, weight] of question) {
    const frequency = Math.min(statistics.documentFrequencies.get(term) ?? 0, chunks);
    weights.set(term, weight * Math.log(1 + (chunks - frequency + 0.5) / (frequency + 0.5)));
  }
  return weights;
}

/** Whether the passages between them hold what the question asks about, and what they lack. */
export function evidenceOf(
  sections: readonly SectionFields[],
  weights: ReadonlyMap<string, number>,
  match: TermMatch,
): Evidence {
  let total = 0;
  let covered = 0;
  const held = sections.map(() => 0);
  const missing: [string, number][] = [];
  for (const [term, weight] of weights) {
    total += weight;
    let anywhere = false;
    sections.forEach((section, index) => {
      if (
        [section.body, section.heading, section.title].some((field) => frequencyIn(term, field, match) > 0)
      ) {
        held[index] = (held[index] ?? 0) + weight;
        anywhere = true;
      }
    });
    if (anywhere) covered += weight;
    else missing.push([term, weight]);
  }
  return {
    coverage: total === 0 ? 0 : covered / total,
    strongest: total === 0 ? 0 : Math.max(0, ...held) / total,
    missing: missing.sort((a, b) => b[1] - a[1]).map(([term]) => term),
  };
}

/**
 * The passages best first: search's order (BM25 over the whole collection), BM25F's over the
 * sections' fields and the order of their closest sentences (`closestSentence`), fused by
 * reciprocal rank (each ranking counting only the sections it found), so a section whose heading
 * names what is asked rises, as does one with a sentence that says what the question asks, and one
 * they agree on leads; a section of a document whose title names less of the question than another
 * passage's title (all it names, and more that its headings do not name) counts half
 * (`namingTitles`); `kind` is what a "which…" question asks for. Of two alike, search's order stands.
 */
export function rankSections(
  sections: readonly SectionFields[],
  weights: ReadonlyMap<string, number>,
  match: TermMatch,
  kind: ReadonlySet<string> = new Set(),
): Passage[] {
  const lengthOf = (section: SectionFields) =>
    sum(section.body) + HEADING_BOOST * sum(section.heading) + TITLE_BOOST * sum(section.title);
  const averageLength = Math.max(
    1,
    sections.reduce((all, section) => all + lengthOf(section), 0) / Math.max(1, sections.length),
  );
  const bm25f = sections.map((section) => {
    const length = lengthOf(section);
    let score = 0;
    for (const [term, weight] of weights) {
      const frequency =
        frequencyIn(term, section.body, match) +
        HEADING_BOOST * frequencyIn(term, section.heading, match) +
        TITLE_BOOST * frequencyIn(term, section.title, match);
      if (frequency === 0) continue;
      score += (weight * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / averageLength));
    }
    return score;
  });
  const byFields = placesOf(bm25f);
  const closest = sections.map((section) => closestSentence(section, weights, match));
  const bySentence = placesOf(closest);
  // As in reciprocal rank fusion, a ranking counts only what it found: a section no sentence of
  // which says any of the question (code alone under an "Example" heading) gets nothing from the
  // sentences' order, rather than the place its tie with the others gives it.
  const fused = sections.map(
    (_, index) =>
      1 / (FUSION_K + index) +
      ((bm25f[index] ?? 0) > 0 ? 1 / (FUSION_K + (byFields[index] ?? 0)) : 0) +
      ((closest[index] ?? 0) > 0 ? 1 / (FUSION_K + (bySentence[index] ?? 0)) : 0),
  );
  const named = namingTitles(sections, weights, match, kind);
  const score = (index: number) => (named[index] ? 1 : OUTNAMED_DOCUMENT) * (fused[index] ?? 0);
  return sections
    .map((section, index) => ({ section, index }))
    .sort((a, b) => score(b.index) - score(a.index) || a.index - b.index)
    .map(({ section }) => section.passage);
}

/**
 * How much of the question one sentence of the section says, its headings lending their terms:
 * the weight of the question's terms it holds. A reference entry says what it does in one
 * sentence ("Defines the maximum payload… the server is allowed to accept"), where a section
 * that only repeats one of the question's words ("Accept-Version" in every line) holds them apart.
 */
function closestSentence(
  section: SectionFields,
  weights: ReadonlyMap<string, number>,
  match: TermMatch,
): number {
  const inHeading = termsHeld(weights, section.heading, match);
  let best = 0;
  for (const sentence of section.sentences) {
    let held = 0;
    for (const [term, weight] of weights) {
      if (inHeading.has(term) || frequencyIn(term, sentence, match) > 0) held += weight;
    }
    best = Math.max(best, held);
  }
  return best;
}

/**
 * For each section, whether no other passage's title (with its file name) names all of the
 * question's terms its own title names, and more that its headings do not name either (the
 * reference's `logger.child()` section is about child loggers as much as the "Child loggers"
 * guide is): a question naming a package or a guide
 * ("commander", "child loggers") is about that document, and a section of another that shares its
 * other words ("unit tests" in the server's reference) is less likely its answer; of two documents
 * of the package it names ("undici"), the one whose title also names what is asked ("RetryHandler"
 * for "retry") is likelier. Titles naming different terms ("Routes", "Server") are not ranked
 * against each other: which names the subject is not known. What the other title names beyond
 * this one's must weigh more than what this section's headings name beyond the other title: the
 * Errors guide's title naming "errors out" does not outname the `pluginTimeout` entry of a question
 * about a plugin; a term naming the kind a "which…" question asks for ("hook") counts `ASKED_KIND`
 * times, as a document titled by it lists its members.
 */
function namingTitles(
  sections: readonly SectionFields[],
  weights: ReadonlyMap<string, number>,
  match: TermMatch,
  kind: ReadonlySet<string>,
): boolean[] {
  const naming = sections.map((section) => termsHeld(weights, section.title, match));
  const headed = sections.map((section) => termsHeld(weights, section.heading, match));
  const weightOf = (terms: readonly string[]) =>
    terms.reduce((sum, term) => sum + (weights.get(term) ?? 0) * (kind.has(term) ? ASKED_KIND : 1), 0);
  // Another title names all this one names, and more that its headings do not name either,
  // weighing more than what its headings name that the other title does not.
  const outnamed = (named: ReadonlySet<string>, heading: ReadonlySet<string>) =>
    naming.some(
      (other) =>
        other.size > named.size &&
        [...named].every((term) => other.has(term)) &&
        weightOf([...other].filter((term) => !named.has(term) && !heading.has(term))) >
          weightOf([...heading].filter((term) => !other.has(term))),
    );
  return naming.map((named, index) => !outnamed(named, headed[index] ?? new Set()));
}

/** Each section's place when ordered by its score, best first (0 for the best; ties keep their order). */
function placesOf(scores: readonly number[]): number[] {
  const places = scores.map(() => 0);
  scores
    .map((_, index) => index)
    .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0))
    .forEach((index, place) => {
      places[index] = place;
    });
  return places;
}

/** The question's terms a field holds. */
function termsHeld(
  weights: ReadonlyMap<string, number>,
  field: ReadonlyMap<string, number> | undefined,
  match: TermMatch,
): Set<string> {
  return new Set([...weights.keys()].filter((term) => frequencyIn(term, field, match) > 0));
}

function frequencyIn(term: string, terms: ReadonlyMap<string, number> | undefined, match: TermMatch): number {
  if (terms === undefined) return 0;
  return terms.get(term) ?? match(term, terms);
}

function sum(terms: ReadonlyMap<string, number> | undefined): number {
  let total = 0;
  for (const count of terms?.values() ?? []) total += count;
  return total;
}

/**
 * The passages with the parts of one section joined: chunks of the same document under the same
 * headings are one section cut for length ("WebSocket compression" in two chunks), so the answer
 * reads all of it, in the document's order, where its best part ranked. Passages without headings
 * (prose) stay as they are: nothing says two of them are one section.
 */
export function joinSectionParts(passages: readonly Passage[]): Passage[] {
  const keyOf = (passage: Passage) =>
    passage.hit.headingPath.length === 0
      ? undefined
      : JSON.stringify([passage.hit.documentId, ...passage.hit.headingPath]);
  const parts = new Map<string, Passage[]>();
  for (const passage of passages) {
    const key = keyOf(passage);
    if (key === undefined) continue;
    const group = parts.get(key);
    if (group === undefined) parts.set(key, [passage]);
    else group.push(passage);
  }
  const joined: Passage[] = [];
  for (const passage of passages) {
    const key = keyOf(passage);
    const group = key === undefined ? undefined : parts.get(key);
    if (group === undefined || group.length === 1) {
      joined.push(passage);
      continue;
    }
    if (group[0] !== passage) continue;
    // Chunk ids follow the document's order.
    const inOrder = [...group].sort((a, b) => a.hit.chunkId - b.hit.chunkId);
    joined.push({
      ...passage,
      hit: { ...passage.hit, text: inOrder.map((part) => part.hit.text).join('\n\n') },
    });
  }
  return joined;
}
