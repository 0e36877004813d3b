import { withoutContractions } from '../contractions.js';
import { titleWithFileName } from '../file-name-words.js';
import { withIdentifierWords } from '../identifier-words.js';
import { fenced } from '../markdown-fence.js';
import type { TeamSearch } from '../retrieval/search-types.js';
import {
  ANSWER_TYPE_NOUN,
  type AnswerType,
  askedKind,
  countedNoun,
  countedNounsIn,
  expectedAnswerType,
  HOW_MEASURE,
  isQuestion,
  questionWords,
  typedWordsIn,
} from './answer-types.js';
import type { Answerer, AnswerInput, ConversationTurn, Passage } from './answerer.js';
import { FRAMING_WORDS } from './framing-words.js';
import {
  collectionWeights,
  evidenceOf,
  joinSectionParts,
  rankSections,
  type SectionFields,
} from './sections.js';
import { type TextUnit, unitsOf, wordCount } from './sentences.js';
import { americanSpelling } from './spelling.js';
import { SYNONYM_WORDS, synonymsFrom } from './synonyms.js';

/** Said when the passages hold nothing that answers the question; never an invented answer. */
export const NOT_FOUND_ANSWER = "I couldn't find an answer to that in your team's documents.";

export interface ExtractiveLimits {
  /** Most sentences in an answer from prose passages. Default 4. */
  readonly maxSentences: number;
  /** Most words in an answer (a first sentence over it is cut). Default 90. */
  readonly maxWords: number;
}

const DEFAULT_LIMITS: ExtractiveLimits = { maxSentences: 4, maxWords: 90 };

/**
 * A statement (a claim to check) is long and its evidence paraphrases it: a smaller share of its
 * terms is already evidence, and answering with the closest sentence is what the asker wants.
 */
const MIN_STATEMENT_COVERAGE = 0.15;
/**
 * The passages found must hold most of a question's weight (its terms' IDF in the team's
 * collection, so its rare, specific terms weigh most) between them. Less, and the documents are
 * about something else, however many common words they share ("parental leave policy" is not
 * answered by a support policy): the answer says it found nothing, and what it looked for.
 */
const EVIDENCE_COVERAGE = 0.5;
/**
 * And one passage must hold a third of that weight on its own: the section an answer shows is
 * about what was asked, not one word of it, while the rest of the question may be worded otherwise
 * than the documents word it.
 */
const SECTION_EVIDENCE = 1 / 3;
/** Most units (sentences, list items, code blocks) of a section an answer shows. */
const MAX_SECTION_UNITS = 8;
/** How many of the question's words a "not found" answer names as what nothing held. */
const MISSING_WORDS_SAID = 3;
/**
 * A question's sentences of this share of its weight (IDF) or more can answer it. Below it, or
 * when a name the question asks about is in no passage, the answer is "not found".
 */
const MIN_COVERAGE = 0.2;
/** A sentence scoring under this share of the best one would only pad the answer. */
const MIN_RELATIVE_SCORE = 0.5;
/**
 * Two sentences sharing this share of the terms they add to the question's say the same thing
 * (a paraphrase, a repeat).
 */
const NEAR_DUPLICATE = 0.8;
/**
 * What a code block's terms count in ranking sections, against prose's 1: code repeats the names
 * it uses (a grammar says "caret" and "tilde" in every rule) more than it says what its section
 * answers.
 */
const CODE_IN_SECTION = 0.5;
/** How much a lower-ranked passage's sentences are discounted, per rank. */
const RANK_DISCOUNT = 0.1;
/** A sentence without a word of the expected type ("when": a date) keeps this share of its score. */
const TYPE_MISS = 0.5;
/** So does one that names none of the names the question asks about ("…Normandy…", "…Dyrrachium…"). */
const NAME_MISS = 0.5;
/** What the sentence before a pronoun-led one lends it: this share of the terms it adds. */
const PRONOUN_CONTEXT = 0.5;
/** Fewer words than this, an earlier answer's lead is read whole, never as the start of a longer sentence. */
const MIN_CUT_LEAD_WORDS = 12;
/** A follow-up's previous question weighs this much against the question itself. */
const PREVIOUS_QUESTION_WEIGHT = 0.3;
/** Another form of a question's word counts this much of the word itself. */
const WORD_FORM = 0.7;
/** A word that says the same ("called" for "name") counts this much. */
const SYNONYM = 0.5;
const MIN_FORM_LETTERS = 4;
/** A name's spelling mistake is forgiven from this length on ("Bedigo", "Bendigo"). */
const MIN_MISSPELT_LETTERS = 5;
/** A longer suffix is another word: "arch", "architectur". */
const MAX_FORM_SUFFIX = 3;
/** The least a passage's search score weighs its sentences (see `passagePrior`). */
const MIN_PASSAGE_PRIOR = 0.05;
/** Bounds the one analysis query: six passages of ~256 words hold ~100 sentences. */
const MAX_CANDIDATES = 300;
/** "Default: `1048576` (1MiB)": a label of a word or two, a colon, and its value. */
const LABELLED_VALUE = /^\p{L}[\p{L}\p{N} _-]{0,24}:\s+\S/u;
/**
 * A line stating what one thing is or equals, however few its words: "`^1.2.3` := `>=1.2.3 <2.0.0-0`",
 * "`x` = 5". Whole, as a labelled value is, not a fragment.
 */
const DEFINITION = /\S\s(?::=|=|==|=>|->|≡)\s\S/u;
/** The longest labelled value read as the line it ends rather than a sentence of its own. */
const LABELLED_VALUE_WORDS = 8;
/** Items of a list (or lines of code) an introducing sentence ("…as follows:") brings along. */
const MAX_FOLLOWING_ITEMS = 8;
// BM25's usual constants, applied to sentences.
const K1 = 1.2;
const B = 0.75;

/**
 * A sentence that opens by pointing back ("He fled…", "This allowed…") or by going on from the one
 * before ("For example, …", "Thus …") needs the one before it.
 */
const POINTS_BACK =
  /^(?:he|she|it|they|this|these|those|that|his|her|its|their|such|the latter|the former|for example|for instance|thus|indeed|again|in particular|however|therefore|hence)\b/i;

interface Candidate {
  readonly unit: TextUnit;
  readonly words: number;
  readonly passage: Passage;
  /** The passage's place in the ranking, 0 for the best. */
  readonly rank: number;
  /** Its place among the passage's units. */
  readonly index: number;
  /** The passage's units, to read what comes before and after it. */
  readonly siblings: readonly TextUnit[];
  /** The best passage's search score, to weigh this passage's against. */
  readonly topScore: number;
}

interface Scored {
  readonly candidate: Candidate;
  readonly terms: ReadonlyMap<string, number>;
  readonly score: number;
  readonly coverage: number;
}

interface Question {
  /** Term → weight: the question's own 1, a follow-up's previous question's less. */
  readonly terms: ReadonlyMap<string, number>;
  readonly type: AnswerType | undefined;
  readonly words: ReadonlySet<string>;
  readonly statement: boolean;
  /** The terms of the names it asks about, which may be misspelt. */
  readonly names: ReadonlySet<string>;
  /** Term → the terms of words that say the same. */
  readonly synonyms: ReadonlyMap<string, ReadonlySet<string>>;
  /** The sentences giving the count of what a "how many…" question counts ("Maximum number of retries"). */
  readonly counts: ReadonlySet<Candidate>;
}

/**
 * Answers with no model: the sentences of the top passages that best answer the question, scored
 * like BM25 over sentences with PostgreSQL's own stemming (`TeamSearch.analyze`), British and
 * American spellings and hyphenated words and their parts read alike, other forms and everyday
 * synonyms of the question's words and its names' misspellings, weighed by whether
 * they hold the kind of answer the question word asks for ("when": a date the question does not
 * say) and name what it asks about (or sit in a document whose title does), helped by the
 * sentence before one that opens with a pronoun, weighed by their passage's search score and
 * rank, without near-duplicates, capped in length. The best sentence leads (with the next one
 * when it points back at it), each is followed by its citation `[n]`, lists and code stay lists
 * and fenced code. A statement (a claim) gets its closest evidence. When no sentence shares
 * enough of the question's meaningful terms, or a name it asks about is in no passage, it says
 * the documents hold no answer.
 */
export class ExtractiveAnswerer implements Answerer {
  readonly kind = 'extractive' as const;
  private readonly limits: ExtractiveLimits;

  constructor(
    private readonly analyzer: Pick<TeamSearch, 'analyze' | 'termStatistics'>,
    limits: Partial<ExtractiveLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  async *answer(input: AnswerInput): AsyncGenerator<string, void, undefined> {
    const { chosen, missing, section } = await this.choose(input);
    if (chosen.length === 0) {
      yield missing.length === 0
        ? NOT_FOUND_ANSWER
        : `${NOT_FOUND_ANSWER} Nothing in them is about ${wordList(missing)}.`;
      return;
    }
    yield* render(chosen, section === true);
  }

  private async choose(
    given: AnswerInput,
  ): Promise<{ chosen: Scored[]; missing: readonly string[]; section?: boolean }> {
    const none = { chosen: [], missing: [] };
    // Spelled out as search reads them: "I'm" would ask for a word "m".
    const input = {
      ...given,
      question: withoutContractions(given.question),
      topic: given.topic.map(withoutContractions),
      passages: joinSectionParts(given.passages),
    };
    const candidates = candidatesOf(input.passages);
    if (candidates.length === 0) return none;
    // A turn that continues the conversation ("and for contractors?") is matched with the topic it
    // continues, as it was searched, but its own words weigh most: a question that names its own
    // subject is answered as it would be alone.
    const previous = input.topic.length === 0 ? undefined : input.topic.join(' ');
    const statement = !isQuestion(input.question);
    // A statement's names may be spelled otherwise in its evidence (an abbreviation, a gene's
    // alias); a question about a name is about that name.
    const names = statement ? [] : namesIn(input.question);
    // A name of several words names one thing: its words scattered over unrelated passages ("AWS"
    // in one, "secrets" in another) do not mention it.
    const longNames = statement ? [] : nameRunsIn(input.question);
    // Each word alone, to say in words which of the question's terms no passage holds.
    const asked = [...new Set(input.question.match(QUESTION_WORD) ?? [])];
    // "How many attempts…": the noun it counts, and the nouns each sentence gives the count of.
    const counted = countedNoun(input.question);
    const countedBy = candidates.map((candidate) =>
      counted === undefined ? [] : countedNounsIn(candidate.unit.text),
    );
    const countWords = [...new Set(countedBy.flat())];
    const kind = askedKind(input.question);
    const [questionTerms, previousTerms, ...analysed] = (
      await this.analyzer.analyze(
        [
          // The words of the identifiers the question, headings and titles name (`msgPrefix`:
          // "msg prefix"), as search indexes headings and titles; a sentence's own identifiers
          // stay whole (code repeats them: their words would match every common word).
          withIdentifierWords(meaningful(input.question)),
          previous === undefined ? '' : withIdentifierWords(meaningful(previous)),
          ...asked,
          kind ?? '',
          ...(counted === undefined ? [] : [counted, ...countWords]),
          ...names,
          ...longNames,
          ...SYNONYM_WORDS,
          ...candidates.map((candidate) => candidate.unit.text),
          ...input.passages.map((passage) => withIdentifierWords(passage.hit.headingPath.join(' '))),
          // The file name with the title: `date-fns-README.md` names what its untitled intro is about.
          ...input.passages.map((passage) =>
            withIdentifierWords(titleWithFileName(passage.hit.title, passage.hit.fileName)),
          ),
        ].map((text) => americanSpelling(unaccented(text))),
      )
    ).map(withoutCompounds);
    input.signal.throwIfAborted();
    const wordTerms = analysed.splice(0, asked.length);
    const kindTerms = new Set(analysed.splice(0, 1)[0]?.keys() ?? []);
    const [countedTerms, ...countWordTerms] = analysed.splice(
      0,
      counted === undefined ? 0 : 1 + countWords.length,
    );
    const longNameTerms = analysed.splice(names.length, longNames.length);
    const nameTerms = analysed.slice(0, names.length);
    // Passages under headings are documentation, whose abbreviations the technical synonyms read.
    const documentation = input.passages.some((passage) => passage.hit.headingPath.length > 0);
    const synonyms = synonymsFrom(
      analysed.slice(names.length, names.length + SYNONYM_WORDS.length),
      documentation,
    );
    const sentenceTerms = analysed.slice(
      names.length + SYNONYM_WORDS.length,
      names.length + SYNONYM_WORDS.length + candidates.length,
    );
    // The headings a passage sits under say what each of its sentences is about ("Caret ranges").
    const headingTerms = new Map<Passage, ReadonlyMap<string, number>>();
    // A document's title names what all of it is about: "Victoria" in every sentence of "Victoria
    // (Australia)", though "…tonnes of tomatoes were produced" does not say it.
    const titleTerms = new Map<Passage, ReadonlyMap<string, number>>();
    const passagesAt = names.length + SYNONYM_WORDS.length + candidates.length;
    input.passages.forEach((passage, index) => {
      const heading = analysed[passagesAt + index];
      if (heading !== undefined && heading.size > 0) headingTerms.set(passage, heading);
      const title = analysed[passagesAt + input.passages.length + index];
      if (title !== undefined && title.size > 0) titleTerms.set(passage, title);
    });
    // A name the question asks about that no passage mentions: the documents are about something
    // else, however many of its other words they share.
    const mentioned = (term: string) =>
      sentenceTerms.some((terms) => terms !== undefined && strengthOf(term, terms, true) > 0);
    const unmentioned = names.filter((_name, index) => {
      const terms = nameTerms[index];
      return terms !== undefined && terms.size > 0 && ![...terms.keys()].some(mentioned);
    });
    if (unmentioned.length > 0) {
      const longNameWords = longNamesIn(input.question);
      const passageWords = input.passages.map((passage) => plainWords(passage.hit.text));
      const absent = unmentioned.filter((name) => !misspeltInLongName(name, longNameWords, passageWords));
      // Documentation names what it is used with ("on our CI server", "JSON lines") beside what it
      // is about: a name the collection holds elsewhere is weighed with the question's other
      // terms below; one the collection never names is what the question is about.
      if (
        absent.length > 0 &&
        !(documentation && (await this.allNamed(input.teamId, absent, nameTerms, names)))
      )
        return none;
    }
    // In documentation a name of several words is one product or API ("AWS Secrets Manager"); prose
    // goes on to call "Frédéric Chopin" Chopin, so there the parts are enough.
    const holdsAll = (passage: Passage, terms: readonly string[]) => {
      const fields = [
        ...candidates.flatMap((candidate, index) =>
          candidate.passage === passage ? [sentenceTerms[index]] : [],
        ),
        headingTerms.get(passage),
        titleTerms.get(passage),
      ].filter((field) => field !== undefined);
      return terms.every((term) => fields.some((field) => strengthOf(term, field, true) > 0));
    };
    const scattered = (documentation ? longNames : []).filter((_name, index) => {
      const terms = [...(longNameTerms[index]?.keys() ?? [])];
      return terms.length > 1 && !input.passages.some((passage) => holdsAll(passage, terms));
    });
    if (scattered.length > 0) return { chosen: [], missing: scattered };
    const terms = new Map<string, number>();
    for (const term of previousTerms?.keys() ?? []) terms.set(term, PREVIOUS_QUESTION_WEIGHT);
    for (const term of questionTerms?.keys() ?? []) terms.set(term, 1);
    if (terms.size === 0) return none;
    const termsOfCountWord = new Map(countWords.map((word, index) => [word, countWordTerms[index]]));
    const countsAsked = (words: readonly string[]) =>
      [...(countedTerms?.keys() ?? [])].some((term) =>
        words.some((word) => matchOf(term, termsOfCountWord.get(word) ?? new Map(), { synonyms }) > 0),
      );
    const question: Question = {
      terms,
      counts: new Set(candidates.filter((_candidate, index) => countsAsked(countedBy[index] ?? []))),
      type: expectedAnswerType(input.question),
      words: questionWords(`${previous ?? ''} ${input.question}`),
      statement,
      names: new Set(nameTerms.flatMap((terms) => [...(terms?.keys() ?? [])])),
      synonyms,
    };
    const scored = score(candidates, question, sentenceTerms, headingTerms, titleTerms);
    if (!statement) {
      const sections = sectionFieldsOf(input.passages, candidates, sentenceTerms, headingTerms, titleTerms);
      const match = (term: string, fieldTerms: ReadonlyMap<string, number>) =>
        matchOf(term, fieldTerms, question);
      // Weighed by the team's whole collection: what a question is about is what few chunks say;
      // and by how often the question says it ("every message… including messages from child
      // loggers"), as BM25 weighs a query's repeated terms when it ranks documents.
      const statistics = await this.analyzer.termStatistics(input.teamId, [...terms.keys()]);
      input.signal.throwIfAborted();
      const weights = collectionWeights(withRepetitions(terms, questionTerms), statistics);
      const [section] = rankSections(sections, weights, match, kindTerms);
      // Documentation (passages under headings, and a README's untitled introduction beside them)
      // answers with one section; prose passages with their best sentences, below.
      if (section !== undefined && documentation) {
        // What a turn that continues the conversation asks about is its topic too ("How often?"
        // after "How do I descale the machine?"): the evidence must hold both, the topic at full weight.
        const asks = new Map([...terms.keys()].map((term) => [term, 1]));
        const evidence = evidenceOf(sections, collectionWeights(asks, statistics), match);
        if (evidence.coverage < EVIDENCE_COVERAGE || evidence.strongest < SECTION_EVIDENCE) {
          return { chosen: [], missing: missingWords(evidence.missing, questionTerms, asked, wordTerms) };
        }
        const lead = sectionLead(
          scored,
          section,
          question,
          headingTerms,
          titleTerms,
          shownLeads(input.history),
        );
        return { chosen: this.selectSection(scored, section, lead, question), missing: [], section: true };
      }
    }
    const chosen = this.selectSentences(
      scored,
      question.statement ? MIN_STATEMENT_COVERAGE : MIN_COVERAGE,
      question,
    );
    return { chosen, missing: [] };
  }

  /** Whether every one of `absent` (some of `names`, analysed as `nameTerms`) is held by some chunk of the team's. */
  private async allNamed(
    teamId: number,
    absent: readonly string[],
    nameTerms: readonly (ReadonlyMap<string, number> | undefined)[],
    names: readonly string[],
  ): Promise<boolean> {
    const termsOf = absent.map((name) => [...(nameTerms[names.indexOf(name)]?.keys() ?? [])]);
    const statistics = await this.analyzer.termStatistics(teamId, [...new Set(termsOf.flat())]);
    return termsOf.every(
      (terms) =>
        terms.length > 0 && terms.every((term) => (statistics.documentFrequencies.get(term) ?? 0) > 0),
    );
  }

  /**
   * A documentation section's answer: its sentence that answers best leads (prose: code shows, it
   * does not answer), then what follows it in the section (its list, the code that shows it), then
   * the section from its top, each part in the document's order, within the word limit (a code
   * block that would pass it is left out, not cut). Other passages' sentences are never stitched on.
   */
  private selectSection(
    scored: readonly Scored[],
    section: Passage,
    lead: Scored | undefined,
    question: Question,
  ): Scored[] {
    const own = scored.filter((item) => item.candidate.passage === section);
    if (lead === undefined) return [];
    const chosen: Scored[] = [this.trimmed(lead)];
    let words = Math.min(lead.candidate.words, this.limits.maxWords);
    // What follows the lead (its list, its code, what it goes on to say), then the section's start.
    const at = lead.candidate.index;
    const rest = own
      .filter((item) => item !== lead)
      .sort(
        (a, b) =>
          Number(a.candidate.index < at) - Number(b.candidate.index < at) ||
          a.candidate.index - b.candidate.index,
      );
    for (const item of rest) {
      if (words >= this.limits.maxWords || chosen.length >= MAX_SECTION_UNITS) break;
      if (words + item.candidate.words > this.limits.maxWords) continue;
      // A sentence saying again what one shown says (overlapping chunks, a summary line).
      if (
        item.candidate.unit.kind !== 'code' &&
        chosen.some((other) => coverage(item.terms, other.terms, question.terms) >= NEAR_DUPLICATE)
      )
        continue;
      chosen.push(item);
      words += item.candidate.words;
    }
    return chosen;
  }

  /**
   * Prose passages' answer: their best sentences, best first (with the lead's next one when it
   * points back at it), skipping weak and repeated ones, within the sentence and word limits.
   */
  private selectSentences(scored: Scored[], minCoverage: number, question: Question): Scored[] {
    // Coverage says whether the passages answer the question at all; once they do, the best
    // sentences answer it, even one that words it otherwise and shares less of the question.
    if (!scored.some((item) => item.coverage >= minCoverage)) return [];
    const ranked = [...scored].sort((a, b) => b.score - a.score);
    const best = ranked[0]?.score ?? 0;
    const chosen: Scored[] = [];
    let words = 0;
    for (const item of ranked) {
      if (chosen.length >= this.limits.maxSentences) break;
      if (item.score < best * MIN_RELATIVE_SCORE) break;
      if (chosen.some((other) => overlap(other.terms, item.terms, question.terms) >= NEAR_DUPLICATE))
        continue;
      if (chosen.length > 0 && words + item.candidate.words > this.limits.maxWords) continue;
      chosen.push(this.trimmed(item));
      words += Math.min(item.candidate.words, this.limits.maxWords);
      // The lead's next sentence when it goes on about the same thing ("It was commissioned by…").
      const next =
        chosen.length === 1 && chosen.length < this.limits.maxSentences
          ? continuationOf(item.candidate, scored)
          : undefined;
      if (next !== undefined && words + next.candidate.words <= this.limits.maxWords) {
        chosen.push(next);
        words += next.candidate.words;
      }
    }
    return chosen;
  }

  /** A sentence over the word limit, cut (code is never cut). */
  private trimmed(item: Scored): Scored {
    if (item.candidate.words <= this.limits.maxWords || item.candidate.unit.kind === 'code') return item;
    return {
      ...item,
      candidate: {
        ...item.candidate,
        unit: { ...item.candidate.unit, text: firstWords(item.candidate.unit.text, this.limits.maxWords) },
      },
    };
  }
}

/**
 * The question's terms weighed by how often its own words say them: 1 + ln(count), a repeated
 * term counting more, with diminishing returns (a carried topic's terms keep their weight).
 */
function withRepetitions(
  terms: ReadonlyMap<string, number>,
  questionTerms: ReadonlyMap<string, number> | undefined,
): Map<string, number> {
  return new Map(
    [...terms].map(([term, weight]) => [
      term,
      weight * (1 + Math.log(Math.max(1, questionTerms?.get(term) ?? 1))),
    ]),
  );
}

/**
 * The sentence that answers within a section (prose: code shows, it does not answer): scored on the
 * question's terms its heading and title do not already hold, as those say what every sentence
 * of it is about ("lru-cache" and "cache" for "Are stale entries in lru-cache deleted…?"); what
 * tells its sentences apart is the rest ("stale", "deleted"). Where the heading and title hold all
 * of the question or none of it, and between sentences that tie, the scores over the whole
 * question decide. A labelled value ("Default: `true`") is read with the sentence it ends: alone,
 * its few words outscore every longer sentence that shares a term with it. A sentence an earlier
 * answer of the conversation opened with (`shown`) leads no follow-up while another can: ws's
 * "…what should I call to drop a dead connection?" after an answer that opened with its section's
 * first sentence.
 */
function sectionLead(
  scored: readonly Scored[],
  section: Passage,
  question: Question,
  headingTerms: ReadonlyMap<Passage, ReadonlyMap<string, number>>,
  titleTerms: ReadonlyMap<Passage, ReadonlyMap<string, number>>,
  shown: readonly string[] = [],
): Scored | undefined {
  const own = scored.filter((item) => item.candidate.passage === section);
  const prose = own.filter((item) => item.candidate.unit.kind !== 'code');
  const all = withLabelledValues(prose.length > 0 ? prose : own, own);
  // A follow-up asks something new: what an earlier answer opened with, the asker has read.
  const fresh = all.filter((item) => {
    const key = leadKey(item.lead.candidate.unit.text);
    return !shown.some((lead) => lead !== '' && (key === lead || isCutFrom(lead, key)));
  });
  const eligible = fresh.length > 0 ? fresh : all;
  const held = [headingTerms.get(section), titleTerms.get(section)].filter((field) => field !== undefined);
  const rest = new Map(
    [...question.terms].filter(([term]) => !held.some((field) => matchOf(term, field, question) > 0)),
  );
  const scoredOn = (terms: ReadonlyMap<string, number>) =>
    score(
      eligible.map((item) => item.lead.candidate),
      { ...question, terms },
      eligible.map((item) => item.terms),
      new Map(),
      titleTerms,
    );
  // The first scores read each value alone: with values joined to their sentences, the whole
  // question is scored again over the section's items as they are now read.
  const whole = eligible.some((item) => item.terms !== item.lead.terms)
    ? scoredOn(question.terms).map((item) => item.score)
    : eligible.map((item) => item.lead.score);
  const within =
    rest.size === 0 || rest.size === question.terms.size
      ? undefined
      : scoredOn(rest).map((item) => item.score);
  const best = eligible
    .map((item, index) => ({ item, distinct: within?.[index] ?? 0, whole: whole[index] ?? 0 }))
    .sort((a, b) => b.distinct - a.distinct || b.whole - a.whole)[0]?.item.lead;
  return best === undefined ? undefined : (labelledOf(best, own) ?? best);
}

/** A sentence as an answer's lead and as the sentence itself compare: its plain words. */
function leadKey(text: string): string {
  return plainWords(text).join(' ');
}

/** Words a long lead is cut to (`trimmed`) start it; a short line ("Example:") starts many sentences. */
function isCutFrom(shown: string, key: string): boolean {
  return shown.split(' ').length >= MIN_CUT_LEAD_WORDS && key.startsWith(`${shown} `);
}

/** The Markdown heading (level 4: below an answer's own headings in a page) a section's answer opens with. */
const HEADING_MARK = '#### ';

/** An answer without the heading line `render` opens a section's answer with. */
function withoutHeading(answer: string): string {
  if (!answer.startsWith(HEADING_MARK)) return answer;
  const end = answer.indexOf('\n');
  return end === -1 ? '' : answer.slice(end).trimStart();
}

/**
 * The sentences earlier answers of the conversation opened with (as far as shown, if cut short), as
 * `leadKey`s: what comes, below a section's heading, before the first citation `withCitation` wrote.
 */
function shownLeads(history: readonly ConversationTurn[]): string[] {
  return history
    .filter((turn) => turn.role === 'assistant')
    .map((turn) => leadKey(withoutHeading(turn.content).split(/\s\[\d+\]/)[0] ?? ''));
}

/**
 * Each item with the terms it is read by: a sentence followed by its labelled value
 * ("maxRetries number - Maximum number of retries." and "Default: `5`") with both's terms, and
 * the value no more on its own; every other item with its own.
 */
function withLabelledValues(
  items: readonly Scored[],
  own: readonly Scored[],
): { lead: Scored; terms: ReadonlyMap<string, number> }[] {
  const labels = new Map<Scored, Scored>();
  for (const item of items) {
    const label = labelledOf(item, own);
    if (label !== undefined && items.includes(label)) labels.set(item, label);
  }
  const valuesOf = new Map<Scored, Scored[]>();
  for (const [value, label] of labels) valuesOf.set(label, [...(valuesOf.get(label) ?? []), value]);
  return items
    .filter((item) => !labels.has(item))
    .map((item) => {
      const values = valuesOf.get(item);
      if (values === undefined) return { lead: item, terms: item.terms };
      const terms = new Map(item.terms);
      for (const value of values)
        for (const [term, count] of value.terms) terms.set(term, (terms.get(term) ?? 0) + count);
      return { lead: item, terms };
    });
}

/**
 * The sentence a labelled value belongs to: "Default: `5`" says what of nothing alone, so the
 * sentence before it in its line ("maxRetries number - Maximum number of retries.") leads, and
 * the value follows it.
 */
function labelledOf(lead: Scored, own: readonly Scored[]): Scored | undefined {
  const { unit, index } = lead.candidate;
  if (unit.kind === 'code' || !LABELLED_VALUE.test(unit.text) || lead.candidate.words > LABELLED_VALUE_WORDS)
    return undefined;
  return own.find(
    (item) =>
      item.candidate.index === index - 1 &&
      item.candidate.unit.block === unit.block &&
      item.candidate.unit.kind !== 'code',
  );
}

/**
 * Each passage's fields: its units' terms (each unit once, as `candidatesOf` kept it), its prose
 * sentences' terms one by one, headings and title.
 */
function sectionFieldsOf(
  passages: readonly Passage[],
  candidates: readonly Candidate[],
  sentenceTerms: readonly (ReadonlyMap<string, number> | undefined)[],
  headingTerms: ReadonlyMap<Passage, ReadonlyMap<string, number>>,
  titleTerms: ReadonlyMap<Passage, ReadonlyMap<string, number>>,
): SectionFields[] {
  const bodies = new Map<Passage, Map<string, number>>();
  const prose = new Map<Passage, ReadonlyMap<string, number>[]>();
  candidates.forEach((candidate, index) => {
    let body = bodies.get(candidate.passage);
    if (body === undefined) {
      body = new Map();
      bodies.set(candidate.passage, body);
    }
    const terms = sentenceTerms[index] ?? new Map<string, number>();
    const share = candidate.unit.kind === 'code' ? CODE_IN_SECTION : 1;
    for (const [term, count] of terms) body.set(term, (body.get(term) ?? 0) + share * count);
    if (candidate.unit.kind === 'code') return;
    const sentences = prose.get(candidate.passage);
    if (sentences === undefined) prose.set(candidate.passage, [terms]);
    else sentences.push(terms);
  });
  return passages.map((passage) => ({
    passage,
    body: bodies.get(passage) ?? new Map(),
    sentences: prose.get(passage) ?? [],
    heading: headingTerms.get(passage),
    title: titleTerms.get(passage),
  }));
}

/** The sentence right after `lead` in its passage when it opens by pointing back at it. */
function continuationOf(lead: Candidate, scored: readonly Scored[]): Scored | undefined {
  const next = scored.find(
    (item) => item.candidate.passage === lead.passage && item.candidate.index === lead.index + 1,
  );
  if (next === undefined || next.candidate.unit.kind !== 'sentence') return undefined;
  return POINTS_BACK.test(next.candidate.unit.text) ? next : undefined;
}

/** The question's own words (not a carried topic's) whose terms no passage holds, weightiest first. */
function missingWords(
  missing: readonly string[],
  questionTerms: ReadonlyMap<string, number> | undefined,
  asked: readonly string[],
  wordTerms: readonly (ReadonlyMap<string, number> | undefined)[],
): string[] {
  const words = missing
    .filter((term) => questionTerms?.has(term) === true)
    .flatMap((term) => {
      const at = wordTerms.findIndex((word) => word?.has(term) === true);
      return at < 0 ? [] : [asked[at] as string];
    });
  return [...new Set(words)].slice(0, MISSING_WORDS_SAID);
}

/** "a", "a and b", "a, b and c". */
function wordList(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/**
 * One spelling mistake apart (a letter missing, added, changed, or two swapped: "Hatmanis",
 * "Hartmanis"), in words long enough for one letter not to make another word.
 */
function misspelt(a: string, b: string): boolean {
  if (a.length < MIN_MISSPELT_LETTERS || b.length < MIN_MISSPELT_LETTERS) return false;
  return oneEditApart(a, b);
}

/** A letter missing, added or changed, or two swapped, between two different words. */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let start = 0;
  while (start < a.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const restA = a.slice(start, endA);
  const restB = b.slice(start, endB);
  if (restA.length <= 1 && restB.length <= 1) return true;
  // Two letters swapped.
  return restA.length === 2 && restB.length === 2 && restA[0] === restB[1] && restA[1] === restB[0];
}

/** Accents off (Hervé, Herve), as people type names either way; the analysis keeps them. */
function unaccented(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '');
}

// "V/Line" is one name, as the analyser reads it.
const QUESTION_WORD = /[\p{L}\p{N}][\p{L}\p{N}'\u2019./-]*/gu;

/**
 * A word that names something: capitalised (not the question's first word, nor the pronoun "I"
 * and its contractions), or with digits and letters.
 */
function isName(word: string, index: number): boolean {
  if (FIRST_PERSON.test(word)) return false;
  return (index > 0 && /^\p{Lu}/u.test(word)) || (/\p{L}/u.test(word) && /\p{N}/u.test(word));
}

/** "I", "I've", "I'm", "I'd", "I'll" (straight or curly apostrophe): the asker, not a name. */
const FIRST_PERSON = /^I(?:['\u2019](?:ve|m|d|ll))?$/;

/** Words of a question that name something. */
function namesIn(question: string): string[] {
  return (question.match(QUESTION_WORD) ?? []).filter(isName);
}

/** The question's names of several words ("San Bernardino"), each as its lower-case words. */
function longNamesIn(question: string): string[][] {
  return nameRunsIn(question).map(plainWords);
}

/** The question's names of several words, as it writes them ("AWS Secrets Manager"). */
function nameRunsIn(question: string): string[] {
  const runs: string[] = [];
  let run: string[] = [];
  for (const [index, word] of (question.match(QUESTION_WORD) ?? []).entries()) {
    if (isName(word, index)) {
      run.push(word);
      continue;
    }
    if (run.length > 1) runs.push(run.join(' '));
    run = [];
  }
  if (run.length > 1) runs.push(run.join(' '));
  return runs;
}

function plainWords(text: string): string[] {
  return (
    unaccented(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * Whether a name no passage mentions is misspelt in a longer name that a passage (its words in
 * `texts`) spells with every other word in place ("Sand Bernardino" for "San Bernardino"): the
 * rest of the name makes one letter enough to tell, however short the word.
 */
function misspeltInLongName(
  name: string,
  longNames: readonly string[][],
  texts: readonly string[][],
): boolean {
  const [word, ...more] = plainWords(name);
  if (word === undefined || more.length > 0) return false;
  return longNames.some((longName) => {
    const at = longName.indexOf(word);
    if (at < 0) return false;
    return texts.some((text) =>
      text.some(
        (_, start) =>
          start + longName.length <= text.length &&
          longName.every((part, offset) =>
            offset === at ? oneEditApart(part, text[start + offset] ?? '') : part === text[start + offset],
          ),
      ),
    );
  });
}

/**
 * The terms without hyphenated compounds, whose parts PostgreSQL's parser emits beside them: so
 * "Saint-Evroul" and "Saint Evroul" are read alike, and a hyphenated word does not count twice.
 */
function withoutCompounds(terms: ReadonlyMap<string, number>): ReadonlyMap<string, number> {
  if (![...terms.keys()].some((term) => COMPOUND.test(term))) return terms;
  return new Map([...terms].filter(([term]) => !COMPOUND.test(term)));
}

/** A hyphenated word; not a host, address or path ("my-host.example.com"), which has no parts. */
const COMPOUND = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+$/u;

/** "How long…": it asks how much time (`meaningful`). */
const HOW_LONG = /\bhow long\b/gi;

/** The question without its framing words, unless nothing else is left ("tell me more"). */
function meaningful(question: string): string {
  const framed = question
    // "How long…" asks how much time: the answer says "time" or a form of it ("timeout").
    .replace(HOW_LONG, ' time ')
    .replace(HOW_MEASURE, ' ')
    .replace(ANSWER_TYPE_NOUN, '$1')
    .replace(FRAMING_WORDS, ' ');
  return /\p{L}{2}/u.test(framed) ? framed : question;
}

/**
 * Too short to say anything alone: a caption, a label, a heading's echo. A short line of the form
 * "Label: value" ("Default: `1048576`", "Type: string") states a fact, so it stays.
 */
function isFragment(text: string, words: number): boolean {
  if (LABELLED_VALUE.test(text) || DEFINITION.test(text)) return false;
  return words < 3 || (words <= 4 && !/[.!?]["')\]]*$/.test(text));
}

/** Each passage's units, once each (overlapping chunks repeat some), headings and fragments left out. */
function candidatesOf(passages: readonly Passage[]): Candidate[] {
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const [rank, passage] of passages.entries()) {
    const units = unitsOf(passage.hit.text);
    for (const [index, unit] of units.entries()) {
      const words = wordCount(unit.text);
      const key = unit.text.toLowerCase();
      if (seen.has(key)) continue;
      if (unit.kind !== 'code' && isFragment(unit.text, words)) continue;
      seen.add(key);
      candidates.push({
        unit,
        words,
        passage,
        rank,
        index,
        siblings: units,
        topScore: passages[0]?.hit.score ?? 1,
      });
      if (candidates.length >= MAX_CANDIDATES) return candidates;
    }
  }
  return candidates;
}

/**
 * BM25 over the candidate sentences (IDF from the sentences themselves, so a question term found
 * nowhere weighs most and lowers every sentence's coverage), with what the sentence before lends
 * a pronoun-led one and the passage's headings lend each of its sentences, times the answer-type
 * factor and a discount by passage rank.
 */
function score(
  candidates: readonly Candidate[],
  question: Question,
  sentenceTerms: readonly (ReadonlyMap<string, number> | undefined)[],
  headingTerms: ReadonlyMap<Passage, ReadonlyMap<string, number>>,
  titleTerms: ReadonlyMap<Passage, ReadonlyMap<string, number>>,
): Scored[] {
  const terms = candidates.map((_, index) => sentenceTerms[index] ?? new Map<string, number>());
  const lengths = terms.map((map) => [...map.values()].reduce((sum, count) => sum + count, 0));
  const averageLength = Math.max(1, lengths.reduce((sum, length) => sum + length, 0) / candidates.length);
  const idf = new Map<string, number>();
  for (const [term, weight] of question.terms) {
    const documentFrequency = terms.filter((map) => matchOf(term, map, question) > 0).length;
    idf.set(
      term,
      weight * Math.log(1 + (candidates.length - documentFrequency + 0.5) / (documentFrequency + 0.5)),
    );
  }
  // "How many attempts…" asks for the count of attempts: a sentence giving it ("Maximum number of
  // retries") holds what is asked as a term of its own, weighed as rare as such sentences are.
  const counting = candidates.filter((candidate) => question.counts.has(candidate)).length;
  const countWeight =
    counting === 0 ? 0 : Math.log(1 + (candidates.length - counting + 0.5) / (counting + 0.5));
  const questionWeight = [...idf.values()].reduce((sum, weight) => sum + weight, countWeight);
  // The candidate before each one in its passage, to lend a pronoun-led sentence its subject.
  const previousOf = new Map<Candidate, number>();
  candidates.forEach((candidate, index) => {
    const before = candidates[index - 1];
    if (
      before !== undefined &&
      before.passage === candidate.passage &&
      before.index === candidate.index - 1
    ) {
      previousOf.set(candidate, index - 1);
    }
  });
  // The question's words and the passage's title's: neither is news in a sentence of it.
  const known = new Map<Passage, ReadonlySet<string>>();
  const knownWords = (passage: Passage) => {
    let words = known.get(passage);
    if (words === undefined) {
      words = new Set([...question.words, ...questionWords(passage.hit.title)]);
      known.set(passage, words);
    }
    return words;
  };
  const naming = passagesNaming(candidates, terms, titleTerms, question.names);
  return candidates.map((candidate, index) => {
    const sentence = terms[index] ?? new Map<string, number>();
    const length = lengths[index] ?? 0;
    const previousIndex = POINTS_BACK.test(candidate.unit.text) ? previousOf.get(candidate) : undefined;
    const context = previousIndex === undefined ? undefined : terms[previousIndex];
    const heading = headingTerms.get(candidate.passage);
    const title = titleTerms.get(candidate.passage);
    let bm25 = 0;
    let matched = 0;
    for (const [term, idfWeight] of idf) {
      let frequency = sentence.get(term) ?? 0;
      let weight = idfWeight;
      if (frequency === 0) {
        // Another form of the word ("marri", "marriag") or a synonym, else what the sentence before
        // or the passage's headings lend.
        const strength =
          matchOf(term, sentence, question) ||
          PRONOUN_CONTEXT *
            Math.max(
              context === undefined ? 0 : matchOf(term, context, question),
              heading === undefined ? 0 : matchOf(term, heading, question),
            );
        if (strength === 0) continue;
        frequency = 1;
        weight *= strength;
      }
      matched += weight;
      bm25 += (weight * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / averageLength));
    }
    if (question.counts.has(candidate)) {
      matched += countWeight;
      bm25 += (countWeight * (K1 + 1)) / (1 + K1 * (1 - B + (B * length) / averageLength));
    }
    const typeFactor =
      question.type === undefined ||
      typedWordsIn(candidate.unit.text, question.type, knownWords(candidate.passage)) > 0
        ? 1
        : TYPE_MISS;
    const namesHeld =
      question.names.size === 0 ||
      holdsAName(question.names, sentence) ||
      holdsAName(question.names, context) ||
      holdsAName(question.names, title);
    return {
      candidate,
      terms: sentence,
      score:
        (bm25 *
          typeFactor *
          (namesHeld ? 1 : NAME_MISS) *
          (naming.has(candidate.passage) ? 1 : NAME_MISS) *
          passagePrior(candidate)) /
        (1 + RANK_DISCOUNT * candidate.rank),
      coverage: questionWeight === 0 ? 0 : matched / questionWeight,
    };
  });
}

/**
 * The passages naming one of the names the question asks about (in a sentence or their title),
 * every passage when it asks about none. A passage naming none is about something else, so each of
 * its sentences loses again what a sentence not naming them loses ("…located in northern San
 * Diego" for "Where was Dyrrachium located?").
 */
function passagesNaming(
  candidates: readonly Candidate[],
  terms: readonly ReadonlyMap<string, number>[],
  titleTerms: ReadonlyMap<Passage, ReadonlyMap<string, number>>,
  names: ReadonlySet<string>,
): Set<Passage> {
  const passages = new Set(candidates.map((candidate) => candidate.passage));
  if (names.size === 0) return passages;
  const naming = new Set<Passage>();
  for (const passage of passages) if (holdsAName(names, titleTerms.get(passage))) naming.add(passage);
  candidates.forEach((candidate, index) => {
    if (!naming.has(candidate.passage) && holdsAName(names, terms[index])) naming.add(candidate.passage);
  });
  return naming;
}

/** Whether the terms hold one of the names (a misspelling forgiven). */
function holdsAName(names: ReadonlySet<string>, terms: ReadonlyMap<string, number> | undefined): boolean {
  return terms !== undefined && [...names].some((name) => strengthOf(name, terms, true) > 0);
}

/**
 * How well a sentence's terms hold a question term: 1 for the term, `WORD_FORM` for another form
 * of its word that the stemmer left apart (marry "marri", marriage "marriag": one the other's
 * prefix but for a short suffix, both of four letters or more) or, for a `name`, one spelling
 * mistake away from it; 0 otherwise.
 */
function strengthOf(term: string, terms: ReadonlyMap<string, number>, name = false): number {
  if (terms.has(term)) return 1;
  if (term.length < MIN_FORM_LETTERS) return 0;
  for (const other of terms.keys()) {
    if (other.length < MIN_FORM_LETTERS || Math.abs(other.length - term.length) > MAX_FORM_SUFFIX) continue;
    if (other.startsWith(term) || term.startsWith(other) || (name && misspelt(term, other))) return WORD_FORM;
  }
  return 0;
}

/**
 * How well a sentence's terms hold a question's term: as `strengthOf` (a name's misspelling
 * forgiven), else `SYNONYM` for a word that says the same, else 0.
 */
function matchOf(
  term: string,
  terms: ReadonlyMap<string, number>,
  question: Pick<Question, 'synonyms'> & Partial<Pick<Question, 'names'>>,
): number {
  const strength = strengthOf(term, terms, question.names?.has(term) === true);
  if (strength > 0) return strength;
  for (const other of question.synonyms.get(term) ?? []) if (terms.has(other)) return SYNONYM;
  return 0;
}

/**
 * The passage's search score as a share of the best passage's: a sentence of a passage that
 * matched the question far less well is less likely its answer (beside the discount by rank).
 */
function passagePrior(candidate: Candidate): number {
  if (!(candidate.topScore > 0) || !(candidate.passage.hit.score > 0)) return 1;
  return Math.max(MIN_PASSAGE_PRIOR, Math.min(1, candidate.passage.hit.score / candidate.topScore));
}

/**
 * What two sentences add to the question (their terms, the question's left out: every sentence
 * that answers it shares those), shared over the smaller of the two: 1 when one sentence says
 * nothing beyond the question that the other does not.
 */
function overlap(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  asked: ReadonlyMap<string, number>,
): number {
  const [addedA, addedB] = [addedTo(asked, a), addedTo(asked, b)];
  const [small, large] =
    addedA.length <= addedB.length ? [addedA, new Set(addedB)] : [addedB, new Set(addedA)];
  if (small.length === 0) return 1;
  return small.filter((term) => large.has(term)).length / small.length;
}

/** A unit's terms the question does not hold: what it adds to it. */
function addedTo(asked: ReadonlyMap<string, number>, terms: ReadonlyMap<string, number>): string[] {
  return [...terms.keys()].filter((term) => !asked.has(term));
}

/**
 * How much of what `item` adds to the question (its terms, the question's left out) `shown` holds:
 * 1 when it would say nothing new beside it. Unlike `overlap`, a longer sentence that goes on from
 * a short one shown ("`^1.2.3` := `>=1.2.3 <2.0.0-0`", then "`^1.2.3-beta.2` := … Note that…") is new.
 */
function coverage(
  item: ReadonlyMap<string, number>,
  shown: ReadonlyMap<string, number>,
  asked: ReadonlyMap<string, number>,
): number {
  const added = addedTo(asked, item);
  if (added.length === 0) return 1;
  return added.filter((term) => shown.has(term)).length / added.length;
}

/**
 * The chosen sentences, best first, each followed by its citation; a sentence of the same passage
 * and paragraph (block) as the one before it continues its paragraph, anything else starts a new one. A sentence that
 * introduces what follows ("…as follows:") brings its list or code along; code is fenced and its
 * citation stays outside the fence. A section's answer (`sectionAnswer`) cites its one passage once,
 * under its section's heading: reference entries say what their heading names without naming it
 * ("This method causes all requests to throw…" under `MockAgent.disableNetConnect()`).
 */
function* render(chosen: readonly Scored[], sectionAnswer: boolean): Generator<string> {
  let previous: Candidate | undefined;
  // By text: overlapping chunks joined into one section repeat a unit (an introduction, a line).
  const shown = new Set<string>();
  // A section's answer is one passage's: its number once, after the sentence that leads.
  let cited = false;
  const cite = (text: string, number: number) => {
    if (sectionAnswer && cited) return text;
    cited = true;
    return withCitation(text, number);
  };
  const heading = sectionAnswer ? chosen[0]?.candidate.passage.hit.headingPath.at(-1)?.trim() : undefined;
  if (heading !== undefined && heading !== '') yield `${HEADING_MARK}${heading}\n\n`;
  for (const { candidate } of chosen) {
    if (shown.has(candidate.unit.text)) continue;
    const number = candidate.passage.number;
    const separator =
      previous === undefined
        ? ''
        : previous.passage === candidate.passage &&
            previous.unit.kind === 'sentence' &&
            candidate.unit.kind === 'sentence' &&
            previous.unit.block === candidate.unit.block
          ? ' '
          : '\n\n';
    previous = candidate;
    shown.add(candidate.unit.text);
    if (candidate.unit.kind === 'code') {
      // Code is shown after the sentence that introduces it ("…run the following:"), which carries
      // the citation; without one, the citation follows the fence. Never inside it.
      const intro = candidate.siblings[candidate.index - 1];
      if (
        intro !== undefined &&
        intro.kind !== 'code' &&
        intro.text.trimEnd().endsWith(':') &&
        !shown.has(intro.text)
      ) {
        shown.add(intro.text);
        yield `${separator}${cite(intro.text, number)}\n\n${fenced(candidate.unit.text, candidate.unit.language)}`;
      } else {
        const fence = fenced(candidate.unit.text, candidate.unit.language);
        yield sectionAnswer && cited ? `${separator}${fence}` : `${separator}${fence}\n[${number}]`;
        cited = true;
      }
      continue;
    }
    yield `${separator}${cite(candidate.unit.text, number)}`;
    if (!candidate.unit.text.trimEnd().endsWith(':')) continue;
    const following = followingUnits(candidate).filter((unit) => !shown.has(unit.text));
    for (const unit of following) shown.add(unit.text);
    const lines = following.map((unit) =>
      unit.kind === 'code' ? fenced(unit.text, unit.language) : `- ${unit.text}`,
    );
    if (lines.length > 0) {
      yield `\n\n${lines.join('\n')}`;
      previous = { ...candidate, unit: following.at(-1) as TextUnit };
    }
  }
}

/** What a sentence ending in a colon introduces: the code block, or the list items, right after it. */
function followingUnits(candidate: Candidate): TextUnit[] {
  const next = candidate.siblings[candidate.index + 1];
  if (next === undefined || next.block === candidate.unit.block) return [];
  if (next.kind === 'code') return [next];
  const items: TextUnit[] = [];
  for (const unit of candidate.siblings.slice(candidate.index + 1)) {
    if (items.length >= MAX_FOLLOWING_ITEMS || unit.kind === 'code') break;
    // A list's items are short blocks of their own; a paragraph of prose ends it.
    const previousBlock = items.at(-1)?.block ?? candidate.unit.block;
    if (unit.block !== previousBlock + 1 || (unit.kind === 'sentence' && wordCount(unit.text) > 25)) break;
    items.push(unit);
  }
  return items.length >= 2 ? items : [];
}

const END_MARKS: ReadonlySet<string> = new Set(['.', '!', '?', ':', '\u2026']);

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
