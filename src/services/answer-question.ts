import type { Reader } from '../access.js';
import type { Answerer, ConversationTurn } from '../answering/answerer.js';
import { type CitedSource, citedSources, numberPassages } from '../answering/citations.js';
import { carriedTopic, previousQuestion } from '../answering/follow-up.js';
import type { QuestionRewriter } from '../answering/standalone-question.js';
import type { Config } from '../config.js';
import type { SearchHit, TeamSearch } from '../retrieval/search-types.js';

/** What `answerQuestion` yields: the answer's text in pieces, then once the sources it cites. */
export type AnswerEvent =
  | { readonly type: 'answer'; readonly text: string }
  | { readonly type: 'sources'; readonly sources: readonly CitedSource[] };

export interface AnswerQuestionInput {
  /**
   * Who reads the answer: only their team's documents that they may open are searched, so the
   * answer and its citations hold nothing else.
   */
  readonly reader: Reader;
  readonly question: string;
  /** Earlier messages of the same conversation, oldest first, already bounded by the caller. */
  readonly history: readonly ConversationTurn[];
  /** Aborted when the asker goes away: search, answering and any LLM request stop. */
  readonly signal: AbortSignal;
}

/** The part of `ServiceDependencies` answering needs. */
export interface AnswerQuestionDependencies {
  readonly config: Pick<Config, 'answering'>;
  readonly search: TeamSearch;
  readonly answerer: Answerer;
  /** Rewrites a follow-up into a standalone question before search; set with an LLM answerer. */
  readonly questionRewriter?: QuestionRewriter | undefined;
}

/**
 * Answers a question from the team's documents, for the web chat and the Slack bot alike:
 * searches (hybrid) for the question completed from the earlier turns it continues (rewritten to
 * stand alone by the model when one is configured, else with the topic it carries), numbers the
 * top passages by document, streams the answerer's text, then lists the documents it cited.
 * Throws what search or the answerer throw (`AnswerError` for a model failure), and the signal's
 * reason once it aborts.
 */
export async function* answerQuestion(
  deps: AnswerQuestionDependencies,
  input: AnswerQuestionInput,
): AsyncGenerator<AnswerEvent, void, undefined> {
  const { reader, question, history, signal } = input;
  signal.throwIfAborted();
  const alone = question.trim();
  // A first turn has nothing to lean on: no model call for it.
  const standalone =
    deps.questionRewriter === undefined || alone === '' || previousQuestion(history) === undefined
      ? undefined
      : await deps.questionRewriter.standalone(alone, history, signal);
  // The model's rewrite carries the topic itself, or judged that the turn stands alone or starts
  // another (then nothing is carried); without a rewrite, a turn that leans on the conversation is
  // searched with the rarest words of the questions before it.
  const topic =
    standalone === undefined ? await carriedTopic(deps.search, reader, question, history, signal) : [];
  const rewrite = standalone === alone ? undefined : standalone;
  const completed = rewrite ?? (topic.length === 0 ? undefined : `${alone} ${topic.join(' ')}`);
  // Searched alone too: should the turn name a subject of its own after all, what it finds alone
  // is still among the passages.
  const queries = alone === '' ? [] : completed === undefined ? [alone] : [completed, alone];
  const rankings: (readonly SearchHit[])[] = [];
  for (const text of queries) {
    const topK = deps.config.answering.passages;
    rankings.push(await deps.search.search({ reader, query: text, topK, mode: 'hybrid', signal }));
  }
  signal.throwIfAborted();
  const passages = numberPassages(interleave(rankings, deps.config.answering.passages));
  let answer = '';
  for await (const text of deps.answerer.answer({
    teamId: reader.teamId,
    question,
    history,
    topic,
    standaloneQuestion: rewrite,
    passages,
    signal,
  })) {
    answer += text;
    yield { type: 'answer', text };
  }
  yield { type: 'sources', sources: citedSources(answer, passages) };
}

/** The rankings' hits taken in turns (first of each, then second…), each chunk once, up to `topK`. */
function interleave(rankings: readonly (readonly SearchHit[])[], topK: number): SearchHit[] {
  const seen = new Set<number>();
  const hits: SearchHit[] = [];
  const longest = Math.max(0, ...rankings.map((ranking) => ranking.length));
  for (let index = 0; index < longest && hits.length < topK; index += 1) {
    for (const ranking of rankings) {
      const hit = ranking[index];
      if (hit === undefined || seen.has(hit.chunkId) || hits.length >= topK) continue;
      seen.add(hit.chunkId);
      hits.push(hit);
    }
  }
  return hits;
}
