import type { Answerer, ConversationTurn } from '../answering/answerer.js';
import { type CitedSource, citedSources, numberPassages } from '../answering/citations.js';
import { standaloneQuery } from '../answering/follow-up.js';
import type { Config } from '../config.js';
import type { TeamSearch } from '../retrieval/search-types.js';

/** What `answerQuestion` yields: the answer's text in pieces, then once the sources it cites. */
export type AnswerEvent =
  | { readonly type: 'answer'; readonly text: string }
  | { readonly type: 'sources'; readonly sources: readonly CitedSource[] };

export interface AnswerQuestionInput {
  /** The asker's team: the only documents searched. */
  readonly teamId: number;
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
}

/**
 * Answers a question from the team's documents, for the web chat and the Slack bot alike:
 * searches (hybrid) for the question, with the previous one when it is a follow-up, numbers the
 * top passages by document, streams the answerer's text, then lists the documents it cited.
 * Throws what search or the answerer throw (`AnswerError` for a model failure), and the signal's
 * reason once it aborts.
 */
export async function* answerQuestion(
  deps: AnswerQuestionDependencies,
  input: AnswerQuestionInput,
): AsyncGenerator<AnswerEvent, void, undefined> {
  const { teamId, question, history, signal } = input;
  signal.throwIfAborted();
  const query = standaloneQuery(question, history).trim();
  const hits =
    query === ''
      ? []
      : await deps.search.search({
          teamId,
          query,
          topK: deps.config.answering.passages,
          mode: 'hybrid',
          signal,
        });
  signal.throwIfAborted();
  const passages = numberPassages(hits);
  let answer = '';
  for await (const text of deps.answerer.answer({ question, history, passages, signal })) {
    answer += text;
    yield { type: 'answer', text };
  }
  yield { type: 'sources', sources: citedSources(answer, passages) };
}
